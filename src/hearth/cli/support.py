"""What every ``hearth`` command shares: the group, its state, JSON output."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from pathlib import Path

    from hearth.app.results import WriteResult
    from hearth.app.usecases import Hearth
    from hearth.reconcile.reports import PassReport

# Start-up: `hearth --help` and the light commands import click and this package
# only; each command imports what it needs (see docs/cli.md, "Start-up").


class _State:
    def __init__(self, home_option: str | None, actor: str | None) -> None:
        self.home_option = home_option
        self._actor = actor
        self._app: Hearth | None = None

    @property
    def actor(self) -> str:
        """``--actor``, else ``$HEARTH_ACTOR``, else ``cli``."""
        if self._actor is not None:
            return self._actor
        from hearth import wiring  # noqa: PLC0415  (start-up: only commands that write)

        return wiring.default_actor()

    @property
    def root(self) -> Path:
        from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)

        return wiring.resolve_home(self.home_option)

    def app(self) -> Hearth:
        """The home's use cases (opened once per command)."""
        from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)

        if self._app is None:
            self._app = wiring.open_app(self.root)
        return self._app


def _emit(as_json: bool, data: Any, human: Callable[[], str] | str) -> None:
    if as_json:
        import json  # noqa: PLC0415  (start-up: only commands that print JSON)

        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    text = human() if callable(human) else human
    if text:
        click.echo(text)


def _written(as_json: bool, result: WriteResult, done: str) -> None:
    short = (result.commit or "")[:12]
    message = f"{done} (commit {short})" if result.changed else f"{done}: nothing changed"
    _emit(as_json, result.as_dict(), message)


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--home",
    "home_option",
    metavar="PATH",
    help=(
        "The home (default: $HEARTH_HOME, else the hearth home holding the current "
        "folder, found as git finds its repository, else ~/.hearth/home)."
    ),
)
@click.option("--actor", default=None, help="Who is acting, for the Hearth-Actor trailer.")
@click.pass_context
def cli(ctx: click.Context, home_option: str | None, actor: str | None) -> None:
    """hearth: an AI assistant's home as markdown in git."""
    ctx.obj = _State(home_option, actor or None)


def _report_line(report: PassReport) -> str:
    what = "rebuilt the index" if report.rebuilt else ("full pass" if report.full else "pass")
    line = (
        f"{what}: {report.scanned} files listed, {report.hashed} read, {report.indexed} "
        f"indexed, {report.removed} removed, {report.parked} parked in {report.seconds:.3f} s"
    )
    return "\n".join([line, *(f"  error: {e}" for e in report.errors)])
