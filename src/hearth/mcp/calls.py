"""How one MCP tool call runs: the caller's scope, a worker thread, errors as tool errors.

Every tool is a plain module-level function of its typed arguments that returns
a pydantic model, declared in its module's ``ToolSet``. ``Tools`` registers them
with the SDK behind one wrapper that

- refuses a call the caller's scope does not allow, before anything runs;
- runs a blocking tool on a worker thread (the use cases take the home's lock
  and touch git), so the event loop keeps serving other sessions;
- turns a ``HearthError`` into a tool error (``isError``) whose text and
  structured content are the HTTP API's error body, ``{"error": {"code",
  "message", "detail"}}``, with the same code and message the API gives.

Anything else a tool raises is the SDK's to report: the client sees only
``Error executing tool <name>`` and the traceback stays in the server's log,
so a crash never reaches the model and never ends the session.

Each tool's output schema is published with its nested models written in
place rather than as ``$ref``s into ``$defs`` (``inline_refs``): the same
schema, but a client that checks every result against it (the official SDK's
does, with ``jsonschema``) has no references to resolve, about a fifth less
work on a search answer (docs/mcp.md, Measured).
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin

import anyio.to_thread
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from hearth.errors import HearthError, OutOfScope, error_body
from hearth.operations import Scope, may, refusal, scope_of


@dataclass(frozen=True)
class Caller:
    """Who calls: the name written as the commits' actor, and the scope held."""

    actor: str
    scope: Scope
    #: A ``hearth mcp`` session (stdio, in-process or relayed): its scope is the
    #: one it was started with (``--scope``), not a token's.
    session: bool = False


#: Resolves the caller of the current request (the bearer token's, or stdio's fixed one).
WhoCalls = Callable[[], Caller | None]

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
#: Adds something (a note, a proposal, a loop): never overwrites, but twice is twice.
ADDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)
#: Replaces or removes what is there (history keeps the old version).
REPLACES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False)
#: Writes a given state: the same call twice leaves the same files.
SETS = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True)


def error_result(code: str, message: str, detail: object = None) -> CallToolResult:
    body = error_body(code, message, detail)
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(body, ensure_ascii=False))],
        structured_content=body,
        is_error=True,
    )


def require(held: Scope, operation: str) -> None:
    """Raise the API's 403, word for word, unless the one policy lets a caller of
    scope ``held`` run ``operation`` (``operations.py``)."""
    if not may(held, operation):
        raise OutOfScope(
            refusal(held, operation), for_session=refusal(held, operation, session=True)
        )


def _result(model: BaseModel) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=model.model_dump_json(by_alias=True))],
        structured_content=model.model_dump(mode="json", by_alias=True),
    )


def _alias(parameter: inspect.Parameter) -> str | None:
    if get_origin(parameter.annotation) is not Annotated:
        return None
    for extra in get_args(parameter.annotation)[1:]:
        if isinstance(extra, FieldInfo) and extra.alias:
            return extra.alias
    return None


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with each local ``$ref`` (``#/$defs/Name``) replaced by its
    definition and ``$defs`` dropped: the same schema, without references.

    The tools' answers are not recursive; a recursive definition is a
    programming error, refused when the tool is registered.
    """
    defs: dict[str, Any] = schema.get("$defs", {})

    def expand(node: object, seen: tuple[str, ...]) -> object:
        if isinstance(node, list):
            return [expand(item, seen) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in seen:
                raise ValueError(f"recursive output schema: {name}")
            siblings = {k: expand(v, seen) for k, v in node.items() if k != "$ref"}
            return {**expand(defs[name], (*seen, name)), **siblings}  # type: ignore[dict-item]
        return {k: expand(v, seen) for k, v in node.items() if k != "$defs"}

    return expand(schema, ())  # type: ignore[return-value]


@dataclass(frozen=True)
class Declared:
    """A tool as its module declares it: the function, the operation it runs, how
    it behaves (annotations), and whether it blocks (runs on a worker thread)."""

    fn: Callable[..., BaseModel]
    operation: str
    annotations: ToolAnnotations
    blocking: bool


class ToolSet:
    """The tools one module declares, at module level: ``@tool(operation, ...)``
    above a plain function. Parameters named ``service``, ``actor`` and ``scope``
    are injected on each call (the served home, the caller's name and scope) and
    left out of the published schema; the docstring is the description."""

    def __init__(self) -> None:
        self.declared: list[Declared] = []

    def tool(
        self,
        operation: str,
        annotations: ToolAnnotations,
        *,
        blocking: bool = True,
    ) -> Callable[[Callable[..., BaseModel]], Callable[..., BaseModel]]:
        """Declare the decorated function as the tool of its name.

        ``operation`` names what every call runs, so the policy gives its scope;
        a tool whose arguments ask for more (``write`` of a file that is not
        markdown, ``memory`` with a change) calls ``require`` itself.
        """

        def declare(fn: Callable[..., BaseModel]) -> Callable[..., BaseModel]:
            self.declared.append(Declared(fn, operation, annotations, blocking))
            return fn

        return declare


#: What each call may be given besides its arguments.
INJECTED = frozenset({"service", "actor", "scope"})


class Tools:
    """hearth's tools (``built``, for ``MCPServer(tools=...)``) over ``service``,
    for callers resolved by ``who``."""

    def __init__(self, who: WhoCalls, service: object) -> None:
        self.who = who
        self.service = service
        self.built: list[Tool] = []
        #: The operation (``operations.py``) each tool runs, by tool name.
        self.operations: dict[str, str] = {}

    def add_all(self, *sets: ToolSet) -> None:
        for tool_set in sets:
            for declared in tool_set.declared:
                self._add(declared)

    def _add(self, declared: Declared) -> None:
        fn, operation = declared.fn, declared.operation
        signature = inspect.signature(fn, eval_str=True)
        injected = INJECTED & set(signature.parameters)
        published = [p for p in signature.parameters.values() if p.name not in injected]
        # The SDK hands arguments over by their JSON names (``from`` for ``rev_from``).
        renamed = {alias: p.name for p in published if (alias := _alias(p)) is not None}

        async def call(**arguments: Any) -> CallToolResult:
            caller = self.who()
            if caller is None:  # the HTTP mount answers 401 first; a safety net
                return error_result("unauthorized", "send 'Authorization: Bearer <token>'")
            arguments = {renamed.get(k, k): v for k, v in arguments.items()}
            given = {"service": self.service, "actor": caller.actor, "scope": caller.scope}
            arguments.update((name, given[name]) for name in injected)
            try:
                require(caller.scope, operation)
                if declared.blocking:
                    model = await anyio.to_thread.run_sync(functools.partial(fn, **arguments))
                else:
                    model = fn(**arguments)
            except OutOfScope as exc:
                message = exc.for_session if caller.session else exc.message
                return error_result("forbidden", message)
            except HearthError as exc:
                return error_result(exc.code, exc.message, exc.detail)
            return _result(model)

        call.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=published,
            return_annotation=Annotated[CallToolResult, signature.return_annotation],
        )
        call.__name__ = fn.__name__
        tool = Tool.from_function(
            call,
            name=fn.__name__,
            description=inspect.cleandoc(fn.__doc__ or ""),
            annotations=declared.annotations,
            # What the catalogue test (and a curious client) reads: the operation
            # every call runs, and the scope the one policy gives it.
            meta={"hearth/operation": operation, "hearth/scope": scope_of(operation)},
        )
        if tool.fn_metadata.output_schema is not None:
            # Read live by the SDK (listing); results are still checked against the model.
            tool.fn_metadata.output_schema = inline_refs(tool.fn_metadata.output_schema)
        self.built.append(tool)
        self.operations[tool.name] = operation
