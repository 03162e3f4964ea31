"""The ``hearth`` command line: a thin shell over the operations.

Exit statuses: 0 done, 1 refused (validation, conflict, not found, bad path)
with the reason on stderr, 2 usage. Every command that prints data takes
``--json``. This module and ``api/errors.py`` are the only places that turn
errors into statuses.
"""

from __future__ import annotations

import contextlib
import ctypes
import ipaddress
import json
import shlex
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import click
import pygit2

from hearth import hooks as hooks_runtime
from hearth import queries, wiring
from hearth.catalog import RecordView
from hearth.domain.layout import ACTIVE_PATH, KINDS
from hearth.errors import HearthError
from hearth.home import Home, WriteResult
from hearth.home_init import HOOK_NAMES
from hearth.index.query import MAX_LIMIT
from hearth.reconcile.reconciler import PassReport
from hearth.reconcile.watcher import Watcher
from hearth.reconcile.worker import ReconcileWorker


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
HEALTH_CHECK_SECONDS = 2.0

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--home",
    "home_option",
    metavar="PATH",
    help="The home (default: $HEARTH_HOME, else ~/.hearth/home).",
)
@click.option("--actor", default=None, help="Who is acting, for the Hearth-Actor trailer.")
@click.pass_context
def cli(ctx: click.Context, home_option: str | None, actor: str | None) -> None:
    """hearth: an AI assistant's home as markdown in git."""
    ctx.obj = _State(home_option, actor or wiring.default_actor())


@cli.command()
@click.argument("path", required=False)
@json_option
@click.pass_obj
def init(state: _State, path: str | None, as_json: bool) -> None:
    """Create a home at PATH (or adopt the files already there)."""
    root = wiring.resolve_home(path or state.home_option)
    result = wiring.initialize(root)

    def human() -> str:
        lines = [f"home: {root}"]
        if result.commit:
            lines.append(f"added {len(result.added)} files (commit {result.commit[:12]})")
        else:
            lines.append("already initialized: nothing to add")
        for failure in result.skipped:
            lines.append(f"not committed: {failure.describe()}")
        for failure in result.warnings:
            lines.append(f"warning: {failure.describe()}")
        return "\n".join(lines)

    _emit(as_json, result.as_dict(), human)


@cli.command()
@json_option
@click.pass_obj
def status(state: _State, as_json: bool) -> None:
    """Show the home's branch, HEAD, uncommitted changes, records and index freshness.

    Runs a reconcile pass first (nearly free when nothing changed), so the
    index figures describe the files as they are now.
    """
    home = state.home()
    reconciler = wiring.reconciler_of(home)
    reconciler.reconcile()
    data = queries.status(home, reconciler.status(), wiring.syncer_of(home))

    def human() -> str:
        index = data["index"]
        lines = [
            f"home: {data['home']}",
            f"branch: {data['branch']}",
            f"head: {(data['head'] or '(no commits)')[:12]}",
            f"dirty: {'yes' if data['dirty'] else 'no'}",
        ]
        lines += [f"  {c['state']}: {c['path']}" for c in data["changes"]]
        lines += [
            f"pending proposals: {data['pending_proposals']}",
            f"open loops: {data['open_loops']}",
            f"index: {'fresh' if index['fresh'] else 'STALE'}, "
            f"{index['files_indexed']} of {index['files_on_disk']} files, "
            f"{index['documents']} sections, last reconcile {index['last_reconcile']}",
        ]
        lines += [f"  parked: {p['path']}: {p['reason']}" for p in index["parked"]]
        lines += [f"  error: {e}" for e in index["errors"]]
        if index["active_error"]:
            lines.append(f"  {index['active_error']}")
        sync_state = data["sync"]
        if sync_state["upstream"]:
            lines.append(
                f"sync: {sync_state['upstream']}, {sync_state['ahead']} ahead, "
                f"{sync_state['behind']} behind; last {sync_state['last_result'] or 'never'}"
                + (f" at {sync_state['last_time']}" if sync_state["last_time"] else "")
            )
        lines += [f"  conflict copy to resolve: {c}" for c in data["conflicts"]]
        return "\n".join(lines)

    _emit(as_json, data, human)


@cli.command()
@click.argument("query")
@click.option("--kind", type=click.Choice(KINDS), default=None, help="Only this kind of file.")
@click.option("--path", "path_prefix", default=None, help="Only paths starting with this.")
@click.option(
    "--limit", type=click.IntRange(1, MAX_LIMIT), default=10, show_default=True, help="Most hits."
)
@json_option
@click.pass_obj
def search(
    state: _State, query: str, kind: str | None, path_prefix: str | None, limit: int, as_json: bool
) -> None:
    """Full-text search over the home's sections (after a reconcile pass)."""
    reconciler = wiring.reconciler_of(state.home())
    reconciler.reconcile()
    hits = reconciler.search(query, kind, path_prefix, limit)

    def human() -> str:
        if not hits:
            return "no matches"
        return "\n".join(
            f"{h.path}:{h.start_line}-{h.end_line}  [{h.kind}] {h.title}"
            + (f" > {h.heading}" if h.heading and h.heading != h.title else "")
            + f"\n    {h.snippet}"
            for h in hits
        )

    _emit(as_json, {"hits": [h.as_dict() for h in hits]}, human)


def _report_line(report: PassReport) -> str:
    what = "rebuilt the index" if report.rebuilt else ("full pass" if report.full else "pass")
    line = (
        f"{what}: {report.scanned} files listed, {report.hashed} read, {report.indexed} "
        f"indexed, {report.removed} removed, {report.parked} parked in {report.seconds:.3f} s"
    )
    return "\n".join([line, *(f"  error: {e}" for e in report.errors)])


@cli.command()
@click.option("--full", is_flag=True, help="Rebuild the index from every file, aside, then swap.")
@json_option
@click.pass_obj
def reindex(state: _State, full: bool, as_json: bool) -> None:
    """Bring the index up to date with the files (a reconcile pass)."""
    reconciler = wiring.reconciler_of(state.home())
    report = reconciler.rebuild() if full else reconciler.reconcile()
    _emit(as_json, report.as_dict(), lambda: _report_line(report))


@cli.command()
@json_option
@click.pass_obj
def active(state: _State, as_json: bool) -> None:
    """Print continuity/ACTIVE.md, refreshed first, after a line on how fresh it is."""
    home = state.home()
    reconciler = wiring.reconciler_of(home)
    reconciler.reconcile()
    index = reconciler.status()
    content = queries.active_text(home)
    head = (index.head or "no commit")[:12]
    freshness = (
        f"ACTIVE.md: refreshed {index.last_reconcile} from commit {head}; "
        + ("index fresh" if index.fresh else "index STALE")
        + (f"; {index.active_error}" if index.active_error else "")
    )
    data = {
        "path": ACTIVE_PATH,
        "head": index.head,
        "refreshed": index.last_reconcile,
        "fresh": index.fresh and index.active_error is None,
        "error": index.active_error,
        "content": content,
    }
    _emit(as_json, data, lambda: f"{freshness}\n\n{content}".rstrip("\n"))


@cli.command()
@click.option("--week", default=None, metavar="YYYY-Www", help="ISO week (default: last week).")
@json_option
@click.pass_obj
def rollup(state: _State, week: str | None, as_json: bool) -> None:
    """Commit the weekly digest of daily notes to continuity/rollups/."""
    result = state.home().rollup(week, state.actor)
    _written(as_json, result, f"wrote {result.path}")


@cli.command()
@click.pass_obj
def watch(state: _State) -> None:
    """Keep the index and ACTIVE.md in step with the files until interrupted.

    Runs the file watcher and the reconcile worker in the foreground and
    prints one line per pass that changed something.
    """
    home = state.home()
    reconciler = wiring.reconciler_of(home)

    def on_pass(report: PassReport) -> None:
        if report.changed or report.errors or report.rebuilt:
            click.echo(_report_line(report))

    worker = ReconcileWorker(reconciler, on_pass=on_pass)
    watcher = Watcher(home.root, worker.request)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    click.echo(_report_line(reconciler.reconcile()))
    worker.start()
    watcher.start()
    click.echo(f"watching {home.root} (Ctrl-C to stop)")
    try:
        while not stop.wait(HEALTH_CHECK_SECONDS):
            if watcher.ensure_running():
                click.echo(f"watcher re-armed: {watcher.last_error or 'it stopped delivering'}")
    finally:
        watcher.stop()
        worker.stop()


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8979, show_default=True, type=click.IntRange(0, 65535))
@click.option("--uds", default=None, metavar="PATH", help="Serve on this unix socket instead.")
@click.option("--allow-remote", is_flag=True, help="Allow binding an address other than loopback.")
@click.pass_obj
def serve(state: _State, host: str, port: int, uds: str | None, allow_remote: bool) -> None:
    """Serve the home over HTTP, with the watcher and the scheduler, until SIGTERM."""
    # Imported here: FastAPI and uvicorn would add ~0.2 s to every other command.
    import uvicorn  # noqa: PLC0415

    from hearth.api.app import create_app  # noqa: PLC0415

    if uds is None and not allow_remote and not _is_loopback(host):
        raise click.UsageError(
            f"{host} is not a loopback address; pass --allow-remote to serve beyond this "
            "machine (and put TLS in front of it)"
        )
    _cap_malloc_arenas()
    service = wiring.open_service(state.root)
    url = f"unix:{uds}" if uds else f"http://{host}:{port}"
    app = create_app(service, url=url)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        uds=uds,
        log_level="warning",
        lifespan="on",
        server_header=False,
        timeout_graceful_shutdown=10,
    )
    tokens = service.tokens.list()
    click.echo(f"hearth: serving {service.home.root} at {url}")
    exe = shlex.quote(sys.argv[0] if sys.argv and sys.argv[0] else "hearth")
    click.echo(
        f"hearth: {len(tokens)} API token(s); create one with: "
        f"{exe} --home {shlex.quote(str(service.home.root))} token create --name me --scope write"
    )

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            # Shut down gracefully on SIGINT/SIGTERM and exit 0; uvicorn's own
            # handler would re-raise the signal after the graceful shutdown.
            signals = (signal.SIGINT, signal.SIGTERM)
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in signals}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    Server(config).run()


def _cap_malloc_arenas() -> None:
    """Hold the server's memory flat under writes (glibc only; elsewhere a no-op).

    glibc gives threads their own malloc arenas and seldom returns freed
    memory from them; with Tantivy's writer threads that grew a server on a
    10,000-file home by about 1.5 MB per write (88 MB to 155 MB over 40
    writes). Two arenas keep it near 96 MB (bench/http_service.py).
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_ARENA_MAX, 2)
    except (OSError, AttributeError):
        return


_M_ARENA_MAX = -8


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@cli.command()
@click.option(
    "--session",
    type=click.Choice(["main", "subagent"]),
    default="main",
    show_default=True,
    help="main: the full hot set; subagent: AGENTS.md and TOOLS.md only.",
)
@json_option
@click.pass_obj
def context(state: _State, session: str, as_json: bool) -> None:
    """Print the bounded bundle of hot files a runtime loads every turn."""
    service = wiring.open_service(state.root)
    service.reconciler.reconcile()  # ACTIVE.md is part of the main bundle
    found = service.context("main" if session == "main" else "subagent")

    def human() -> str:
        parts = []
        for f in found.files:
            note = " (missing)" if f.missing else (" (truncated)" if f.truncated else "")
            parts.append(f"===== {f.path}{note} =====\n{f.content.rstrip()}")
        return "\n\n".join(parts)

    _emit(as_json, found.as_dict(), human)


@cli.group()
def token() -> None:
    """API tokens for hearth serve: create, list, revoke."""


@token.command("create")
@click.option("--name", required=True, help="What the token is for (unique).")
@click.option(
    "--scope",
    type=click.Choice(["read", "write", "admin"]),
    required=True,
    help="read: search and read; write: also write and review; admin: also reconcile, sync.",
)
@json_option
@click.pass_obj
def token_create(state: _State, name: str, scope: str, as_json: bool) -> None:
    """Create a token and print it once (only its hash is kept)."""
    secret, info = wiring.token_store(state.root).create(name, scope, wiring.utc_now())
    _emit(as_json, {"token": secret, "name": info.name, "scope": info.scope}, secret)


@token.command("list")
@json_option
@click.pass_obj
def token_list(state: _State, as_json: bool) -> None:
    """List tokens by name and scope (never the tokens themselves)."""
    tokens = wiring.token_store(state.root).list()
    _emit(
        as_json,
        {"tokens": [t.as_dict() for t in tokens]},
        lambda: "\n".join(f"{t.name}  {t.scope}  {t.created}" for t in tokens) or "no tokens",
    )


@token.command("revoke")
@click.argument("name")
@json_option
@click.pass_obj
def token_revoke(state: _State, name: str, as_json: bool) -> None:
    """Revoke the token called NAME; requests with it get 401 at once."""
    wiring.token_store(state.root).revoke(name)
    _emit(as_json, {"revoked": name}, f"revoked {name}")


@cli.command()
@json_option
@click.pass_obj
def sync(state: _State, as_json: bool) -> None:
    """Sync with the branch's upstream: fetch, then fast-forward, push or merge."""
    home = state.home()
    result = wiring.syncer_of(home).sync()
    wiring.reconciler_of(home).reconcile()

    def human() -> str:
        short = (result.head or "")[:12]
        lines = [
            f"{result.action} with {result.upstream} (was {result.ahead} ahead, "
            f"{result.behind} behind; now at {short})"
        ]
        lines += [f"  conflict: the remote's version kept at {c}" for c in result.conflicts]
        return "\n".join(lines)

    _emit(as_json, result.as_dict(), human)


@cli.command()
@json_option
@click.pass_obj
def review(state: _State, as_json: bool) -> None:
    """What waits for a person: pending proposals and open loops, with their keys."""
    home = state.home()
    proposals = queries.list_records(home, "proposal")
    loops = queries.list_records(home, "loop")

    def human() -> str:
        lines = [f"pending proposals ({len(proposals)}):"]
        lines += [
            f"  {v.key}  {v.record.title if v.record else '(broken: ' + str(v.error) + ')'}"
            for v in proposals
        ]
        lines.append(f"open loops ({len(loops)}):")
        lines += [
            f"  {v.key}  {v.record.title if v.record else '(broken: ' + str(v.error) + ')'}"
            for v in loops
        ]
        lines.append("merge with 'hearth merge KEY', reject with 'hearth reject KEY --reason ...'")
        return "\n".join(lines)

    _emit(
        as_json,
        {"proposals": [v.as_dict() for v in proposals], "loops": [v.as_dict() for v in loops]},
        human,
    )


@cli.group()
def hooks() -> None:
    """The git hooks hearth installs into the home."""


@hooks.command("install")
@json_option
@click.pass_obj
def hooks_install(state: _State, as_json: bool) -> None:
    """Install hearth's git hooks (keeping any hook already there, which runs first)."""
    installed = wiring.install_hooks(state.root)
    _emit(as_json, {"installed": installed}, f"installed hooks: {', '.join(installed)}")


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("name", type=click.Choice(list(HOOK_NAMES)))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.pass_obj
def hook(state: _State, name: str, args: tuple[str, ...]) -> None:
    """Run git hook NAME (what the installed hook shims call)."""
    code = hooks_runtime.run(name, state.root)
    if code:
        sys.exit(code)


@cli.command()
@json_option
@click.pass_obj
def check(state: _State, as_json: bool) -> None:
    """Run the validation rules over the whole home (exit 1 on any failure)."""
    failures = queries.check(state.home())
    _emit(
        as_json,
        {"ok": not failures, "failures": [f.as_dict() for f in failures]},
        lambda: "\n".join(f.describe() for f in failures) or "all rules pass",
    )
    if failures:
        sys.exit(1)


@cli.command()
@click.argument("text")
@click.option("--title", default=None, help="Heading for the entry.")
@json_option
@click.pass_obj
def note(state: _State, text: str, title: str | None, as_json: bool) -> None:
    """Append TEXT to today's daily note."""
    result = state.home().note(text, title, state.actor)
    _written(as_json, result, f"appended to {result.path}")


@cli.command()
@click.option("--title", required=True, help="Short title; the same title updates the same file.")
@click.option("--entry", "entries", multiple=True, required=True, help="A memory entry (repeat).")
@click.option("--target", default=None, help="File to merge into (default MEMORY.md).")
@click.option("--rationale", default="", help="Why this should be remembered.")
@click.option("--source", default="", help="Where it came from (session, channel).")
@json_option
@click.pass_obj
def propose(
    state: _State,
    title: str,
    entries: Sequence[str],
    target: str | None,
    rationale: str,
    source: str,
    as_json: bool,
) -> None:
    """Propose memory entries for a person to review; prints the key."""
    result = state.home().propose(title, entries, state.actor, target, rationale, source)
    _emit(
        as_json, {"key": result.key, "path": result.path, "commit": result.commit}, result.key or ""
    )


def _record_lines(views: list[RecordView], describe: Callable[[Any], str]) -> str:
    if not views:
        return "none"
    return "\n".join(
        f"{v.key}  {describe(v.record)}" if v.record else f"{v.key}  (broken: {v.error})"
        for v in views
    )


@cli.command()
@json_option
@click.pass_obj
def proposals(state: _State, as_json: bool) -> None:
    """List pending memory proposals."""
    views = queries.list_records(state.home(), "proposal")
    _emit(
        as_json,
        {"proposals": [v.as_dict() for v in views]},
        lambda: _record_lines(
            views, lambda p: f"{p.title} ({len(p.entries)} entries -> {p.target})"
        ),
    )


@cli.command()
@click.argument("key")
@json_option
@click.pass_obj
def merge(state: _State, key: str, as_json: bool) -> None:
    """Merge proposal KEY into its target and archive it, in one commit."""
    _written(as_json, state.home().merge(key, state.actor), f"merged {key}")


@cli.command()
@click.argument("key")
@click.option("--reason", required=True, help="Why it is rejected (kept in the archive).")
@json_option
@click.pass_obj
def reject(state: _State, key: str, reason: str, as_json: bool) -> None:
    """Reject proposal KEY and archive it with the reason."""
    _written(as_json, state.home().reject(key, reason, state.actor), f"rejected {key}")


@cli.group()
def loop() -> None:
    """Open loops: add one, or resolve one."""


@loop.command("add")
@click.option("--title", required=True, help="Short title; the same title updates the same loop.")
@click.option("--summary", default="", help="What is open.")
@click.option("--next", "next_step", default="", help="The next step.")
@click.option("--source", default="", help="Where it came from.")
@json_option
@click.pass_obj
def loop_add(
    state: _State, title: str, summary: str, next_step: str, source: str, as_json: bool
) -> None:
    """Open a loop (or update the one with the same title); prints the key."""
    result = state.home().add_loop(title, state.actor, summary, next_step, source)
    _emit(
        as_json, {"key": result.key, "path": result.path, "commit": result.commit}, result.key or ""
    )


@loop.command("resolve")
@click.argument("key")
@click.option("--note", default="", help="How it was resolved.")
@json_option
@click.pass_obj
def loop_resolve(state: _State, key: str, note: str, as_json: bool) -> None:
    """Resolve loop KEY and archive it."""
    _written(as_json, state.home().resolve_loop(key, state.actor, note), f"resolved {key}")


@cli.command()
@json_option
@click.pass_obj
def loops(state: _State, as_json: bool) -> None:
    """List open loops."""
    views = queries.list_records(state.home(), "loop")
    _emit(
        as_json,
        {"loops": [v.as_dict() for v in views]},
        lambda: _record_lines(
            views, lambda lp: lp.title + (f" (next: {lp.next_step})" if lp.next_step else "")
        ),
    )


@cli.command()
@click.argument("path")
@click.option(
    "--from-file", "source", type=click.File("rb"), required=True, help="File to read; - is stdin."
)
@click.option("--expected-oid", default=None, help="Refuse unless HEAD's blob id is this.")
@click.option("--message", default=None, help="Commit summary.")
@json_option
@click.pass_obj
def put(
    state: _State,
    path: str,
    source: BinaryIO,
    expected_oid: str | None,
    message: str | None,
    as_json: bool,
) -> None:
    """Replace PATH in the home with the content of a file, as one commit."""
    home = state.home()
    content = source.read(home.settings.file_bytes + 1)
    result = home.put(path, content, state.actor, expected_oid, message)
    _written(as_json, result, f"wrote {result.path}")


@cli.command()
@click.argument("path")
@click.option("--rev", default=None, help="Read the file as of this revision.")
@json_option
@click.pass_obj
def get(state: _State, path: str, rev: str | None, as_json: bool) -> None:
    """Print a file of the home (from the work tree, or as of --rev)."""
    view = queries.get_file(state.home(), path, rev)
    if as_json:
        _emit(True, view.as_dict(), "")
    else:
        click.echo(view.content, nl=False)


@cli.command()
@click.argument("path")
@click.argument("rev")
@json_option
@click.pass_obj
def restore(state: _State, path: str, rev: str, as_json: bool) -> None:
    """Bring PATH back as it was at REV, as a new commit (history is kept)."""
    result = state.home().restore(path, rev, state.actor)
    _written(as_json, result, f"restored {result.path} from {rev}")


@cli.command()
@click.argument("path")
@click.option("--limit", default=20, show_default=True, help="Most commits to list.")
@json_option
@click.pass_obj
def history(state: _State, path: str, limit: int, as_json: bool) -> None:
    """List the commits that changed PATH, newest first."""
    commits = queries.history(state.home(), path, limit)
    _emit(
        as_json,
        {"path": path, "commits": [c.as_dict() for c in commits]},
        lambda: (
            "\n".join(f"{c.id[:12]} {c.time} {c.author}: {c.subject}" for c in commits)
            or "no commits"
        ),
    )


def _run(argv: Sequence[str] | None, default_map: dict[str, Any] | None = None) -> int:
    try:
        cli.main(
            args=list(argv) if argv is not None else None,
            prog_name="hearth",
            standalone_mode=False,
            default_map=default_map,
        )
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("hearth: aborted", err=True)
        return 1
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except HearthError as exc:
        click.echo(f"hearth: {exc.message}", err=True)
        return 1
    except (OSError, pygit2.GitError) as exc:
        click.echo(f"hearth: {exc}", err=True)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> None:
    sys.exit(_run(argv))


def git_main(argv: Sequence[str] | None = None) -> None:
    """``git hearth ...``: the home defaults to the repository around the current folder."""
    default_map = None
    found = pygit2.discover_repository(str(Path.cwd()))
    if found is not None:
        repo_root = Path(found).parent if Path(found).name == ".git" else Path(found)
        default_map = {"home_option": str(repo_root)}
    sys.exit(_run(argv, default_map))
