"""``hearth mcp``: the home as MCP tools over stdio, for a runtime that starts hearth itself.

It runs the served home (the reconcile worker and the file watcher, as
``hearth serve`` does, without HTTP or the scheduler) so search stays fresh
while a person edits files beside the agent. The MCP SDK points file
descriptor 1 at stderr while it serves, so nothing but MCP reaches stdout.
"""

from __future__ import annotations

import click

from hearth import heap
from hearth.cli.support import _State, cli


@cli.command("mcp")
@click.option(
    "--scope",
    type=click.Choice(["read", "write", "admin"]),
    default="write",
    show_default=True,
    help="What the agent may do: read; write (also notes, proposals, memory); admin (also merge).",
)
@click.pass_context
def mcp_command(ctx: click.Context, scope: str) -> None:
    """Serve the home as MCP tools over stdin/stdout until the client closes it."""
    from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)

    # Imported here: the MCP SDK would add to every other command's start-up.
    from hearth.mcp.server import build_server, fixed_caller  # noqa: PLC0415

    state: _State = ctx.obj
    given = ctx.find_root().params.get("actor")
    actor = given or wiring.default_actor(fallback="mcp")
    heap.for_long_runs()
    service = wiring.open_service(state.root)
    server = build_server(service, fixed_caller(actor, scope))  # type: ignore[arg-type]
    service.start()
    try:
        import anyio  # noqa: PLC0415

        from hearth.mcp.stdio import serve_stdio  # noqa: PLC0415

        anyio.run(serve_stdio, server)
    finally:
        service.stop()
