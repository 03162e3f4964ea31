"""What every ``hearth`` command shares: the group, its state, JSON output."""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from hearth.domain.text import counted, shown

if TYPE_CHECKING:
    from pathlib import Path

    from hearth.app.results import WriteResult
    from hearth.app.usecases import Hearth
    from hearth.reconcile.reports import PassReport

# Start-up: `hearth --help` and the light commands import click and this package
# only; each command imports what it needs (see docs/cli.md, "Start-up").


class _Run:
    """Whether this run is still light: parsing, ``--help``, a usage error, or a
    command that only reads (``status`` answered without a pass). ``main`` runs
    with the cyclic garbage collector off and ends a light run without the
    interpreter's teardown (``os._exit``: a tenth of a light command's time);
    a command that does more makes the run heavy before it starts."""

    light = True


def heavy() -> None:
    """This run does real work: collect garbage again and end the interpreter
    normally (its threads joined, its files closed, its exit handlers run)."""
    _Run.light = False
    gc.enable()


def is_light() -> bool:
    return _Run.light


class _Command(click.Command):
    #: Whether the command's body keeps the run light (it calls ``heavy`` itself
    #: when it turns out to need more).
    light = False

    def invoke(self, ctx: click.Context) -> Any:
        if not self.light:
            heavy()
        return super().invoke(ctx)


class LightCommand(_Command):
    light = True


class _Group(click.Group):
    command_class = _Command
    group_class = type  # subgroups are _Groups, their commands _Commands


#: The module of this package that defines each command. A run imports only its
#: command's module: the others (and what they import) are start-up for nothing
#: (docs/cli.md, "Start-up"). ``--help``, a name not listed here and
#: ``hearth.cli.cli`` import them all (tests/cli/test_lazy_commands.py holds
#: this table against what each module defines).
COMMAND_MODULES = {
    "agents": ("setup", "agent-hook"),
    "home": ("init", "status", "search", "reindex", "active", "rollup", "check"),
    "files": ("put", "get", "restore", "history"),
    "mcp": ("mcp",),
    "memory": ("memory", "topic", "reflect", "consolidate"),
    "records": (
        "note",
        "propose",
        "proposals",
        "merge",
        "reject",
        "loop",
        "loops",
        "decide",
        "decisions",
        "decision",
    ),
    "running": ("watch", "serve", "context", "sync", "review", "hooks", "hook"),
    "tokens": ("token",),
}
_MODULE_OF = {name: module for module, names in COMMAND_MODULES.items() for name in names}


def load_commands(names: tuple[str, ...] | None = None) -> None:
    """Register the commands of the modules defining ``names`` (all when None)."""
    modules = COMMAND_MODULES if names is None else {_MODULE_OF[n] for n in names}
    for module in modules:
        # The import statement's own path, which ``python -X importtime`` reports
        # (importlib.import_module's is not).
        __import__(f"hearth.cli.{module}")


class _Root(_Group):
    """The ``hearth`` group: each command's module is imported when it is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        load_commands()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            load_commands((cmd_name,) if cmd_name in _MODULE_OF else None)
        return super().get_command(ctx, cmd_name)


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

        heavy()
        if self._app is None:
            self._app = wiring.open_app(self.root, lock_timeout=lock_wait())
        return self._app


def lock_wait() -> float:
    """How long this command's reconcile pass waits for another's lock: briefly
    once the home's server took a request and did not answer it in time."""
    from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)
    from hearth.client import transport  # noqa: PLC0415

    return wiring.STUCK_WAIT_SECONDS if transport.STUCK else wiring.RECONCILE_WAIT_SECONDS


def home_path(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """A click callback: a path argument as the home names it. Run inside the
    home, a path is relative to the working folder, as git reads one
    (``hearth history ../SOUL.md`` in ``memory/``, ``hearth get garden.md`` in
    ``memory/topics/``); outside it, relative to the home. An absolute path
    inside the home becomes home-relative; what still climbs out of the home
    stays so, and is refused (truly) by the path rules."""
    import os  # noqa: PLC0415  (start-up: only commands that take a path)
    from pathlib import Path  # noqa: PLC0415  (as above)

    state = ctx.find_object(_State)
    if not value or state is None:
        return value
    root = str(state.root.resolve())
    try:
        here = str(Path.cwd().resolve())
    except OSError:  # the working folder was deleted
        return value
    folder = value.endswith("/")
    if Path(value).is_absolute():
        full = os.path.normpath(value)
    elif here == root or here.startswith(root + os.sep):
        full = os.path.normpath(Path(here) / value)
    else:
        return value
    if full != root and not full.startswith(root + os.sep):
        return value  # outside the home: refused, naming it as given
    named = os.path.relpath(full, root).replace(os.sep, "/")
    if named == ".":
        return "" if folder else value
    return named + "/" if folder else named


def _emit(as_json: bool, data: Any, human: Callable[[], str] | str) -> None:
    if as_json:
        import json  # noqa: PLC0415  (start-up: only commands that print JSON)

        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    text = human() if callable(human) else human
    if text:
        # What a command prints is read off files others write too: no control
        # sequence reaches the terminal, no invisible character hides a word.
        click.echo(shown(text))


def _written(as_json: bool, result: WriteResult | dict[str, Any], done: str) -> None:
    """A write's answer: ``WriteResult.as_dict``'s JSON, or a line saying it."""
    data = result if isinstance(result, dict) else result.as_dict()
    short = str(data.get("commit") or "")[:12]
    message = f"{done} (commit {short})" if data.get("changed") else f"{done}: nothing changed"
    _emit(as_json, data, message)


#: A write the server refuses as input it does not take (bounds of the API's
#: schema, a rule of the home) is done here: nothing was written, and the
#: command's own checks say why in their words, as before.
_SAID_HERE = (400, 413, 422)


#: The fields of a write's answer (``WriteResult.as_dict``; a key when it has one).
WRITTEN = ("commit", "path", "changed")
#: ...and of a batch's (``BatchResult.as_dict``).
BATCH_WRITTEN = ("commit", "changed", "keys", "outcome", "added", "skipped")


def served_write(
    state: _State,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    fields: tuple[str, ...] | None = WRITTEN,
    *,
    start: bool = True,
) -> dict[str, Any] | None:
    """A write asked of the home's one running server (started on demand, as the
    reads do), as ``--actor`` with the person's scope, so that it takes the
    server's lock and index instead of opening a second copy of the home here.
    Its answer's ``fields`` as the result's ``as_dict`` has them (None: all of
    it, for a read); None when no server could be
    reached (``HEARTH_SERVER=off``, starting turned off, not a home), so the
    command writes itself (also when the server refuses the input: ``_SAID_HERE``).
    Any other refusal raises ``HearthError`` with the server's message.
    ``start`` False: only a server that runs already is asked."""
    from hearth.client import delegate  # noqa: PLC0415  (start-up: only commands that write)
    from hearth.errors import HearthError  # noqa: PLC0415

    served = delegate.send(state.root, method, path, body, state.actor, start=start)
    if served is None:
        return None
    status, data = served
    if status in _SAID_HERE:
        return None
    if status != 200:
        raise HearthError(delegate.refusal(data, status))
    if fields is None:
        return data
    result = {key: data.get(key) for key in fields}
    if fields == WRITTEN and data.get("key") is not None:
        result["key"] = data["key"]
    return result


def keyed(as_json: bool, result: WriteResult | dict[str, Any]) -> None:
    """A new record's answer: its key (``--json``: key, path and commit)."""
    data = result if isinstance(result, dict) else result.as_dict()
    key = data.get("key")
    shown = {"key": key, "path": data.get("path"), "commit": data.get("commit")}
    _emit(as_json, shown, str(key) if key else "")


def quoted(path: str) -> str:
    """``path`` as a URL's path (a home's path may hold spaces or any letter)."""
    from urllib.parse import quote  # noqa: PLC0415  (start-up: only commands that write)

    return quote(path, safe="/")


def key_route(prefix: str, key: str, action: str) -> str | None:
    """The route ``prefix/KEY/action`` of a record's write, or None when ``key``
    cannot be one segment of it (``a/b``, ``..``: no record's key): the command
    then refuses it in its own words instead of the server's "Not Found"."""
    if "/" in key or key in (".", ".."):
        return None
    return f"{prefix}/{quoted(key)}/{action}"


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
verbose_option = click.option(
    "--verbose", "-v", is_flag=True, help="Say on stderr how the answer was reached."
)


def served_or_local(
    state: _State,
    name: str,
    params: dict[str, str | int | None],
    keys: tuple[str, ...],
    local: Callable[[], dict[str, Any]],
    verbose: bool,
    done_here: str = "after a reconcile pass",
) -> dict[str, Any]:
    """A read that runs a reconcile pass first when the command answers it: asked
    of the home's running server when it has a current answer (the ``GET`` route
    the catalogue declares for the operation ``name``, with ``params``), else
    ``local()``. The answer is the
    same JSON either way: ``keys``, what ``local`` answers, in its order (an
    answer without them, from another hearth's server, is not taken).
    ``--verbose`` says on stderr which way it went (``done_here``: how
    ``local`` reaches it)."""
    from hearth.client import delegate  # noqa: PLC0415  (start-up: only commands that read)
    from hearth.operations import route_of  # noqa: PLC0415

    data, how = delegate.ask(state.root, delegate.query(route_of(name), params), keys)
    if data is None:
        data, how = local(), f"{done_here}{how}"
    if verbose:
        click.echo(f"hearth: {name} {how}", err=True)
    return data


@click.group(cls=_Root, context_settings={"help_option_names": ["-h", "--help"]})
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
@click.version_option(None, "--version", package_name="hearth-home", message="hearth %(version)s")
@click.pass_context
def cli(ctx: click.Context, home_option: str | None, actor: str | None) -> None:
    """hearth: an AI assistant's home as markdown in git."""
    ctx.obj = _State(home_option, actor or None)


def _report_line(report: PassReport | dict[str, Any]) -> str:
    """A pass's line (``PassReport``, or its ``as_dict`` as a server answers it)."""
    r: dict[str, Any] = report if isinstance(report, dict) else report.as_dict()
    what = "rebuilt the index" if r["rebuilt"] else ("full pass" if r["full"] else "pass")
    line = (
        f"{what}: {counted(r['scanned'], 'file')} listed, {r['hashed']} read, {r['indexed']} "
        f"indexed, {r['removed']} removed, {r['parked']} parked in {r['seconds']:.3f} s"
    )
    return "\n".join([line, *(f"  error: {e}" for e in r["errors"])])


# -- progress on a terminal ----------------------------------------------------------


def shows_progress(as_json: bool) -> bool:
    """Progress lines go to stderr on a terminal only: never with --json, and never
    when either output is a pipe or a file (a script reads only the answer)."""
    return not as_json and sys.stdout.isatty() and sys.stderr.isatty()


class ProgressLine:
    """One stderr line, rewritten in place as long work goes on (a terminal's
    progress: see ``shows_progress``). ``counter`` counts files, at most 10
    updates a second; ``step`` names work that cannot be counted (a fetch, a
    push); either replaces what the line showed before."""

    def __init__(self) -> None:
        self._width = 0  # of the text on the open line; 0: no line open
        self._last = 0.0

    def _show(self, text: str, *, done: bool = False) -> None:
        click.echo(f"\r{text.ljust(self._width)}", err=True, nl=done)
        self._width = 0 if done else len(text)

    def counter(self, label: str) -> Callable[[int, int], None]:
        """A ``progress(done, total)``; the line is finished when all are done."""

        def show(done: int, total: int) -> None:
            now = time.monotonic()
            if done < total and now - self._last < 0.1:
                return
            self._last = now
            self._show(f"{label}: {done}/{total}", done=done >= total)

        return show

    def step(self, label: str) -> Callable[[str], None]:
        """A ``step(what)``: shows ``label: what`` until the next update."""
        return lambda what: self._show(f"{label}: {what}")

    def end(self) -> None:
        """Finish a line left open (its last step stays in view), so what is
        printed next starts on a line of its own."""
        if self._width:
            click.echo(err=True)
            self._width = 0


def progress_line(label: str) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` on a line of its own (see ``ProgressLine``)."""
    return ProgressLine().counter(label)
