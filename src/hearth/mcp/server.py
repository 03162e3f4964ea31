"""hearth's MCP server: the tools, the hot files as resources, a session-start prompt.

One ``MCPServer`` per transport, built over the served home (``ServedHearth``):
``hearth mcp`` runs it over stdio with a fixed scope, and ``hearth serve``
mounts it at ``/mcp`` where each request's bearer token gives the scope
(hearth.mcp.http). Resources and the prompt only read, which every scope may.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from pydantic import Field

from hearth import package_version
from hearth.app.served.service import ServedHearth
from hearth.domain import layout
from hearth.domain.context import MAIN_FILES
from hearth.errors import HearthError, NotFound
from hearth.mcp.calls import Caller, Tools, WhoCalls
from hearth.mcp.tools import READ_TOOLS
from hearth.mcp.write_tools import ADMIN_TOOLS, WRITE_TOOLS
from hearth.runtimes.handed import MCP_INSTRUCTIONS, prompt_handed

NAME = "hearth"

INSTRUCTIONS = MCP_INSTRUCTIONS

#: The resources: each file of the main bundle (ACTIVE.md included) by its path.
RESOURCES = {f"hearth://home/{path}": path for path in MAIN_FILES}


class HearthServer(MCPServer):
    """The SDK's server, with one more way to run it: on the streams given
    (``run_stdio_async`` runs it on stdio's own, and the SDK offers no other way
    to the low-level server it runs; ``stdio.serve_stdio`` wraps stdio's)."""

    async def run_on(
        self,
        read_stream: ReadStream[SessionMessage | Exception],
        write_stream: WriteStream[SessionMessage],
    ) -> None:
        lowlevel = self._lowlevel_server
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def build_server(
    service: ServedHearth,
    who: WhoCalls,
    *,
    token_verifier: TokenVerifier | None = None,
    auth: AuthSettings | None = None,
) -> HearthServer:
    """The MCP server over ``service``; ``who`` names the caller of each request."""
    tools = Tools(who, service)
    tools.add_all(READ_TOOLS, WRITE_TOOLS, ADMIN_TOOLS)
    server = HearthServer(
        NAME,
        title="hearth: the assistant's home",
        instructions=INSTRUCTIONS,
        version=package_version(),
        token_verifier=token_verifier,
        auth=auth,
        # The SDK logs at INFO by default (each refused call): a serving process's
        # stderr is for operators, so only warnings and worse.
        log_level="WARNING",
        tools=tools.built,
    )
    _register_resources(server, service)
    _register_prompt(server, service)
    return server


def fixed_caller(actor: str, scope: Literal["read", "write", "admin"]) -> WhoCalls:
    """The caller over stdio: one person's runtime with the scope it was started with."""
    caller = Caller(actor, scope, session=True)
    return lambda: caller


def _register_resources(server: MCPServer, service: ServedHearth) -> None:
    def reader(path: str) -> Callable[[], str]:
        def read_file() -> str:
            if path == layout.ACTIVE_PATH:
                service.settle_active()  # the passes writes asked for, so it is current
            try:
                return service.get_file(path).content
            except NotFound as exc:
                raise ResourceNotFoundError(exc.message) from exc
            except HearthError as exc:
                raise ResourceError(f"{exc.code}: {exc.message}") from exc

        return read_file

    for uri, path in RESOURCES.items():
        what = (
            "what hearth renders from the home: open loops, pending proposals, recent notes"
            if path == layout.ACTIVE_PATH
            else "a persona or memory file the assistant loads every session"
        )
        server.resource(
            uri,
            name=path,
            title=path,
            description=f"{path}: {what}.",
            mime_type="text/markdown",
        )(reader(path))


def _register_prompt(server: MCPServer, service: ServedHearth) -> None:
    @server.prompt(
        name="session_start",
        title="Load the assistant's home",
        description=(
            "The persona and memory bundle for the start of a session, with how to keep "
            "memory through hearth's tools. For runtimes that do not call `context` on "
            "their own: pick it once when a session starts."
        ),
    )
    def session_start(
        user: Annotated[str | None, Field(description="The person's id (users/<id>.md)")] = None,
    ) -> str:
        try:
            bundle = service.context("main", None, user)
        except HearthError as exc:
            raise ValueError(exc.message) from exc
        return prompt_handed(bundle.as_dict()).text
