"""The catalogue (``operations.py``'s operations) walked against the running
surfaces: a real ``hearth serve``'s OpenAPI document and routes, its MCP tools
through the official client, and the CLI's command tree.

Every surface an operation declares exists and runs that operation; nothing on
a surface runs an operation the catalogue does not declare there; and each MCP
tool refuses a token one scope below its operation's and admits its own (the
HTTP routes are walked the same way in ``test_scope_policy.py``).
"""

from __future__ import annotations

from typing import Any

import anyio
import click
import pytest

from hearth.cli import cli
from hearth.operations import OPERATIONS, SCOPES, route_of
from tests.api.conftest import Server
from tests.mcp.conftest import http_client


def _http_routes(server: Server) -> dict[str, str | None]:
    """``"METHOD /path"`` -> the operation the route declares in the OpenAPI document."""
    spec = server.get("/openapi.json", token=None).body
    return {
        f"{method.upper()} {path}": info.get("x-hearth-operation")
        for path, methods in spec["paths"].items()
        for method, info in methods.items()
    }


def _declaring(surface: str, where: str) -> set[str]:
    """The operations that declare ``where`` on ``surface``."""
    found = set()
    for op in OPERATIONS.values():
        places = {"http": op.http, "mcp": (op.mcp,) if op.mcp else (), "cli": op.cli}[surface]
        if where in places:
            found.add(op.name)
    return found


def test_every_declared_http_route_runs_its_operation_and_none_is_undeclared(
    shared_server: Server,
) -> None:
    routes = _http_routes(shared_server)
    for op in OPERATIONS.values():
        for route in op.http:
            assert route in routes, f"{op.name} declares {route}, which the server lacks"
            assert routes[route] in _declaring("http", route), (route, routes[route])
    for route, operation in routes.items():
        if route.split(" ", 1)[1].startswith("/v1/"):
            assert operation is not None, f"{route} names no operation"
            assert route in OPERATIONS[operation].http, f"{operation} does not declare {route}"


def _sample(schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments that satisfy a tool's input schema (so the call reaches the gate)."""
    args: dict[str, Any] = {}
    for name in schema.get("required", []):
        prop = schema["properties"][name]
        kind = prop.get("type") or next(
            (option.get("type") for option in prop.get("anyOf", []) if "type" in option), "string"
        )
        if "enum" in prop:
            args[name] = prop["enum"][-1]
        elif kind == "array":
            args[name] = ["catalogue sample"]
        elif kind == "integer":
            args[name] = 1
        else:
            args[name] = "catalogue-sample.md" if name in ("path", "file") else "catalogue sample"
    return args


def test_every_mcp_tool_runs_a_declared_operation_with_its_scope(shared_server: Server) -> None:
    s = shared_server

    async def run() -> dict[str, Any]:
        async with http_client(s, "admin") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
        answers: dict[str, Any] = {}
        for scope in SCOPES:
            async with http_client(s, scope) as client:
                for name, tool in tools.items():
                    result = await client.call_tool(name, _sample(tool.input_schema))
                    answers[scope, name] = result
        return {"tools": tools, "answers": answers}

    out = anyio.run(run)
    tools = out["tools"]
    declared = {op.mcp for op in OPERATIONS.values() if op.mcp}
    assert set(tools) == declared, set(tools) ^ declared
    checked = 0
    for name, tool in tools.items():
        operation = tool.meta["hearth/operation"]
        assert operation in _declaring("mcp", name), (name, operation)
        needed = OPERATIONS[operation].scope
        assert tool.meta["hearth/scope"] == needed
        at = SCOPES.index(needed)
        for scope in SCOPES:
            result = out["answers"][scope, name]
            body = result.structured_content or {}
            code = body.get("error", {}).get("code") if result.is_error else None
            if SCOPES.index(scope) < at:
                assert code == "forbidden", (name, scope, result.content)
            else:
                assert code != "forbidden", (name, scope, result.content)
            checked += 1
    assert checked >= 3 * 15


def _cli_commands(group: click.Group, prefix: str = "") -> set[str]:
    found: set[str] = set()
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found |= _cli_commands(command, f"{prefix}{name} ")
        else:
            found.add(prefix + name)
    return found


def test_every_declared_cli_command_exists() -> None:
    commands = _cli_commands(cli)
    for op in OPERATIONS.values():
        for command in op.cli:
            assert command in commands, f"{op.name} declares 'hearth {command}', which is missing"


def test_each_operation_is_reachable_somewhere() -> None:
    # "edit" is the review page's alone (its form posts to /ui/proposals/{key}/entries),
    # and so is "changes.seen" (its form posts to /ui/changes/seen).
    unreachable = [op.name for op in OPERATIONS.values() if not (op.http or op.mcp or op.cli)]
    assert sorted(unreachable) == ["changes.seen", "edit"], unreachable


def test_the_cli_asks_the_server_on_the_catalogues_routes(shared_server: Server) -> None:
    # The commands that ask a running server (status, search, active, context and the
    # agent hooks) take the route from the catalogue (policy.route_of): each exists.
    routes = _http_routes(shared_server)
    for operation in ("status", "search", "active", "context"):
        assert f"GET {route_of(operation)}" in routes
        assert routes[f"GET {route_of(operation)}"] == operation
    with pytest.raises(KeyError):
        route_of("memory.conflicts")  # the CLI only: no route to ask
