"""What every ``hearth`` command shares: the group, its state, JSON output."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from hearth import wiring
from hearth.home import Home, WriteResult
from hearth.reconcile.reports import PassReport


@dataclass
class _State:
    home_option: str | None
    actor: str
    _home: Home | None = field(default=None, repr=False)

    @property
    def root(self) -> Path:
        return wiring.resolve_home(self.home_option)

    def home(self) -> Home:
        if self._home is None:
            self._home = wiring.open_home(self.root)
        return self._home


def _emit(as_json: bool, data: Any, human: Callable[[], str] | str) -> None:
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    text = human() if callable(human) else human
    if text:
        click.echo(text)


def _written(as_json: bool, result: WriteResult, done: str) -> None:
    short = (result.commit or "")[:12]
    message = f"{done} (commit {short})" if result.changed else f"{done}: nothing changed"
    _emit(as_json, result.as_dict(), message)


#: Seconds between watcher health checks in ``hearth watch``.
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
    ctx.obj = _State(home_option, actor or wiring.default_actor())


def _report_line(report: PassReport) -> str:
    what = "rebuilt the index" if report.rebuilt else ("full pass" if report.full else "pass")
    line = (
        f"{what}: {report.scanned} files listed, {report.hashed} read, {report.indexed} "
        f"indexed, {report.removed} removed, {report.parked} parked in {report.seconds:.3f} s"
    )
    return "\n".join([line, *(f"  error: {e}" for e in report.errors)])
