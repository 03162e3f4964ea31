"""``hearth mcp``: the home as MCP tools over stdio, for a runtime that starts hearth itself.

It relays the session to the home's one server (``client/relay.py``), starting
that server in the background when none runs: every session of every runtime
shares one index, one watcher and one model. With starting turned off
(``HEARTH_SERVER=off``, or ``[server] on_demand = false`` while no server runs)
it serves the home in-process as before: the reconcile worker and the file
watcher, as ``hearth serve`` does, without HTTP or the scheduler. The MCP SDK
points file descriptor 1 at stderr while it serves, so nothing but MCP
reaches stdout.
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
    import os  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from hearth.client import relay  # noqa: PLC0415

    state: _State = ctx.obj
    given = ctx.find_root().params.get("actor")
    actor = given or os.environ.get("HEARTH_ACTOR") or "mcp"  # wiring.default_actor's rule
    root = state.root
    # Usually reached through hearth.launch without click; the same relay here
    # for the shapes it does not take (the home found from the working folder).
    relayed = relay.serve_stdio(root, scope, actor)
    if relayed is not None:
        sys.exit(relayed)

    from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)

    # Imported here: the MCP SDK would add to every other command's start-up.
    from hearth.mcp.server import build_server, fixed_caller  # noqa: PLC0415

    heap.for_long_runs()
    service = wiring.open_service(root)
    server = build_server(service, fixed_caller(actor, scope))  # type: ignore[arg-type]
    service.start()
    try:
        import anyio  # noqa: PLC0415

        from hearth.mcp.stdio import serve_stdio  # noqa: PLC0415

        anyio.run(serve_stdio, server)
    finally:
        service.stop()
