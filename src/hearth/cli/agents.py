"""Agent runtimes: ``hearth setup RUNTIME`` and ``hearth agent-hook RUNTIME EVENT``.

``agent-hook`` runs inside a runtime's turn, so it is light (the running
server answers when there is one; see ``delegate``) and it never fails the
turn: whatever goes wrong, it prints nothing on stdout, says why on stderr and
exits 0. docs/runtimes.md says what each runtime gets.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from hearth.cli.support import LightCommand, _emit, _State, cli, json_option
from hearth.runtimes.known import EVENTS, RUNTIMES

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hearth.domain.context import Session

_HOOKED = [name for name, r in RUNTIMES.items() if r.hooks]


#: Set up by its own use case (runtimes/openclaw_setup.py): a workspace, a memory plugin, MCP.
OPENCLAW = "openclaw"


@cli.command()
@click.argument("runtime", type=click.Choice([*RUNTIMES, OPENCLAW]))
@click.option(
    "--scope",
    type=click.Choice(["read", "write"]),
    default="write",
    show_default=True,
    help="What the runtime's MCP server may do.",
)
@click.option("--remove", is_flag=True, help="Take out exactly what setup added.")
@click.option("--dry-run", "dry_run", is_flag=True, help="Show what would change; change nothing.")
@click.option(
    "--trust",
    is_flag=True,
    help="Codex: record trust for hearth's own two hooks (else approve them in /hooks).",
)
@json_option
@click.pass_obj
def setup(
    state: _State,
    runtime: str,
    scope: str,
    remove: bool,
    dry_run: bool,
    trust: bool,
    as_json: bool,
) -> None:
    """Wire the home into an agent runtime: its MCP server, and hooks that give
    the runtime the persona at session start and the recall at every prompt
    (OpenClaw: its workspace is the home and its memory slot is hearth's)."""
    from hearth.wiring import runtimes as setups  # noqa: PLC0415  (start-up: only this command)

    if runtime == OPENCLAW:
        claw = setups.openclaw_setup(state.root)
        report = claw.remove(dry_run=dry_run) if remove else claw.setup(scope, dry_run=dry_run)
    elif remove:
        report = setups.runtime_setup(state.root).remove(runtime, dry_run=dry_run)
    else:
        report = setups.runtime_setup(state.root).setup(
            runtime, scope, dry_run=dry_run, trust=trust
        )

    def human() -> str:
        verb = "would change" if dry_run else "changed"
        lines = []
        for c in report.changes:
            mark = (f"{verb}: " if c.changed else "unchanged: ") + c.file
            lines.append(f"{mark}\n  {c.what}")
            if dry_run and c.diff:
                lines.append(c.diff.rstrip("\n"))
        if not report.changed:
            lines.append(f"{runtime}: nothing to change")
        lines += [f"still to do: {t}" for t in (report.todo if report.changed else [])]
        return "\n".join(lines)

    _emit(as_json, report.as_dict(), human)


@cli.command("agent-hook", cls=LightCommand)
@click.argument("runtime", type=click.Choice(_HOOKED))
@click.argument("event", type=click.Choice(list(EVENTS)))
@click.pass_obj
def agent_hook(state: _State, runtime: str, event: str) -> None:
    """Answer a runtime's hook: the persona at session-start, the recall at prompt.

    Reads the runtime's hook JSON on stdin and prints its answer on stdout;
    on any error prints nothing and exits 0 (the reason on stderr)."""
    import contextlib  # noqa: PLC0415

    out = sys.stdout
    try:
        with contextlib.redirect_stdout(sys.stderr):
            line = _answer(state, runtime, event, sys.stdin.read())
    except Exception as exc:  # never fail the runtime's turn
        click.echo(f"hearth agent-hook: {getattr(exc, 'message', None) or exc!r}", err=True)
        return
    if line:
        out.write(line)


def _answer(state: _State, runtime: str, event: str, raw: str) -> str | None:
    """The line to print, from the bundle the running server has (started on
    demand) unless the launcher already asked it (``client/hook.py``), else from
    the home opened here."""
    from hearth.client import delegate, hook  # noqa: PLC0415
    from hearth.operations import route_of  # noqa: PLC0415
    from hearth.runtimes import hook_answer  # noqa: PLC0415

    root = state.root

    def bundle(session: str, query: str | None) -> Mapping[str, Any]:
        if not hook.asked():
            asked = delegate.query(route_of("context"), {"session": session, "q": query})
            found, _ = delegate.ask(root, asked, ("files", "recall"))
            if found is not None:
                return found
        chosen: Session = "main" if session == "main" else "subagent"
        return state.app().context(chosen, query).as_dict()

    return hook_answer.answer(runtime, event, raw, bundle, str(root))
