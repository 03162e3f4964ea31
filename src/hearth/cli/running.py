"""The commands that run things: serve, watch, context, tokens, hooks, sync, review."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from hearth import heap
from hearth.cli.support import (
    LightCommand,
    ProgressLine,
    _emit,
    _report_line,
    _State,
    cli,
    json_option,
    served_or_local,
    served_write,
    shows_progress,
    verbose_option,
)

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from hearth.domain.context import Session
    from hearth.reconcile.reports import PassReport
from hearth.client.printed import context_text
from hearth.domain import layout
from hearth.domain.layout import HOOK_NAMES
from hearth.domain.text import counted

# The standard modules that only serve, watch or start a server need are imported
# in those commands: every other command's start-up is felt (docs/cli.md).


@cli.command()
@click.pass_obj
def watch(state: _State) -> None:
    """Keep the index and ACTIVE.md in step with the files until interrupted.

    Runs the file watcher and the reconcile worker in the foreground and
    prints one line per pass that changed something.
    """
    import signal  # noqa: PLC0415
    import threading  # noqa: PLC0415

    from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)

    def on_pass(report: PassReport) -> None:
        if report.changed or report.errors or report.rebuilt:
            click.echo(_report_line(report))

    heap.for_long_runs()
    service = wiring.open_service(state.root, on_pass=on_pass)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())

    def tell(line: str, trouble: bool) -> None:
        click.echo(line, err=trouble)

    service.watch(stop, tell, lambda first: click.echo(_report_line(first)))


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8979, show_default=True, type=click.IntRange(0, 65535))
@click.option("--uds", default=None, metavar="PATH", help="Serve on this unix socket instead.")
@click.option(
    "--allow-remote",
    "allow_remote",
    multiple=True,
    is_flag=False,
    flag_value="*",
    metavar="[NAME]",
    help="Serve beyond loopback, answering for NAME (repeat; bare: any name).",
)
@click.option(
    "--on-demand",
    "on_demand",
    is_flag=True,
    hidden=True,
    help="Started by a client: the home socket and a free loopback port; stops when idle.",
)
@click.pass_obj
def serve(
    state: _State,
    host: str,
    port: int,
    uds: str | None,
    allow_remote: tuple[str, ...],
    on_demand: bool,
) -> None:
    """Serve the home over HTTP, with the watcher and the scheduler, until SIGTERM.

    One server per home: refused while another 'hearth serve' serves it; a
    server a client started on demand hands over. It also listens on the
    home's own socket (.git/hearth/server.sock), where 'hearth mcp', the CLI
    and agent-hook reach it.
    """
    # Imported here: FastAPI and uvicorn would slow every other command's start.
    import contextlib  # noqa: PLC0415
    import shlex  # noqa: PLC0415
    import signal  # noqa: PLC0415

    from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)
    from hearth.cli import connections, serving  # noqa: PLC0415
    from hearth.store import server_file  # noqa: PLC0415

    if uds is None and not allow_remote and not _is_loopback(host):
        raise click.UsageError(
            f"{host} is not a loopback address; pass --allow-remote to serve beyond this "
            "machine (and put TLS in front of it)"
        )
    root = state.root
    wiring.require_home(root)  # before the lock or a socket is made in it
    state_dir = serving.state_dir_of(root)
    lock = serving.claim(state_dir, on_demand)
    if lock is None:
        return  # started on demand, but another server already serves the home
    home_socket = server_file.socket_path(state_dir)
    # --uds first: a path it refuses leaves nothing of this server behind.
    named = serving.bind_unix(Path(uds)) if uds else None
    sockets = [serving.bind_unix(home_socket, held=True)]
    if named is not None:
        sockets.append(named)
    else:
        # Started on demand: a free loopback port too, for the git hooks' shell
        # shims (they speak HTTP over TCP); clients use the home's socket.
        sockets.append(
            serving.bind_tcp("127.0.0.1", 0) if on_demand else serving.bind_tcp(host, port)
        )
    import uvicorn  # noqa: PLC0415  (after the sockets: a refused --uds exits at once)

    from hearth.api.app import create_app  # noqa: PLC0415

    heap.for_long_runs()
    connections.raise_open_files_limit()
    service = wiring.open_service(
        root,
        local_socket=str(home_socket),
        started_as="on-demand" if on_demand else "serve",
    )
    bound = sockets[-1].getsockname()
    url = f"unix:{uds}" if uds else f"http://{'127.0.0.1' if on_demand else host}:{bound[1]}"
    names = [*allow_remote, *([] if _is_loopback(host) else [host])]
    activity = serving.Activity(
        create_app(service, url=url, allowed_hosts=names, unix=uds is not None)
    )
    config = uvicorn.Config(
        activity,
        log_level="warning",
        lifespan="on",
        # No route takes a WebSocket: uvicorn's "auto" would import its
        # WebSocket protocol for nothing (memory the server keeps). A request
        # asking to upgrade gets a plain HTTP answer, and uvicorn logs a
        # warning that suggests installing a WebSocket library: not needed.
        ws="none",
        # A deadline for each request and a bound on each listener (a client
        # sending half a header would otherwise hold its descriptor for good).
        http=connections.protocol(),
        server_header=False,
        timeout_graceful_shutdown=10,
    )
    exe = shlex.quote(sys.argv[0] if sys.argv and sys.argv[0] else "hearth")
    for line in banner(service.writes.root, url, [t.name for t in service.tokens.list()], exe):
        click.echo(line)

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

    server = Server(config)
    idle = serving.idle_seconds(service.writes.settings.server.idle_minutes) if on_demand else None
    serving.watch_idle(server, activity, service.reconciler.presence.gone, idle)
    try:
        server.run(sockets=sockets)
    finally:
        service.forget_address()
        with contextlib.suppress(OSError):
            home_socket.unlink()
        os.close(lock)


def _is_loopback(host: str) -> bool:
    import ipaddress  # noqa: PLC0415

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@cli.command(cls=LightCommand)
@click.option(
    "--session",
    type=click.Choice(["main", "subagent"]),
    default="main",
    show_default=True,
    help="main: the full hot set; subagent: AGENTS.md and TOOLS.md only.",
)
@click.option("--query", "-q", "query", default=None, help="Add passages recalled for this text.")
@click.option("--user", default=None, help="Add users/<ID>.md after USER.md.")
@click.option(
    "--explain",
    is_flag=True,
    help="Say what each runtime is handed: the session start's size and cuts, and "
    "with --query the recall its prompt hook would add.",
)
@json_option
@verbose_option
@click.pass_obj
def context(
    state: _State,
    session: str,
    query: str | None,
    user: str | None,
    explain: bool,
    as_json: bool,
    verbose: bool,
) -> None:
    """Print the bounded bundle of hot files a runtime loads every turn."""
    if explain:
        from hearth.cli import handed  # noqa: PLC0415  (start-up: only this option)

        handed.no_explain_of_subagent(session)
        handed.explain(state, query, user, as_json, verbose)
        return
    passes = session == "main" or bool(query and query.strip())

    def here() -> dict[str, Any]:
        chosen: Session = "main" if session == "main" else "subagent"
        return state.app().context(chosen, query, user).as_dict()

    found = served_or_local(
        state,
        "context",
        {"session": session, "q": query, "user": user},
        ("session", "truncated", "total_chars", "files", "query", "recall"),
        here,
        verbose,
        "after a reconcile pass" if passes else "read here",
    )

    _emit(as_json, found, lambda: context_text(found))


@cli.command(cls=LightCommand)
@json_option
@click.pass_obj
def sync(state: _State, as_json: bool) -> None:
    """Sync with the branch's upstream: fetch, then fast-forward, push or merge.

    On a terminal, a progress line on stderr names each step and counts the
    files read when the incoming changes are indexed.
    """
    result = served_write(state, "POST", "/v1/sync", fields=None) or _sync_here(state, as_json)

    def human() -> str:
        short = (result["head"] or "")[:12]
        lines = [
            f"{result['action']} with {result['upstream']} (was {result['ahead']} ahead, "
            f"{result['behind']} behind; now at {short})"
        ]
        lines += [f"  {_sync_conflict_line(c, state.root)}" for c in result["conflicts"]]
        vectors = result["vectors"]
        if vectors is not None:
            lines.append(
                f"  vectors: {vectors['imported']} from the remote, {vectors['exported']} sent"
                + ("" if vectors["pushed"] or not vectors["exported"] else " (not pushed yet)")
            )
            lines += [f"  vectors refused: {reason}" for reason in vectors["refused"]]
            if vectors["error"]:
                lines.append(f"  {vectors['error']}")
        return "\n".join(lines)

    _emit(as_json, result, human)


def _sync_here(state: _State, as_json: bool) -> dict[str, Any]:
    """A sync in this process, its steps on a terminal's progress line."""
    line = ProgressLine()
    shown = shows_progress(as_json)
    try:
        return (
            state.app()
            .sync(
                line.step("sync") if shown else None,
                line.counter("reading files") if shown else None,
            )
            .as_dict()
        )
    finally:
        line.end()


@cli.command()
@json_option
@click.pass_obj
def review(state: _State, as_json: bool) -> None:
    """What waits for a person: pending proposals and open loops, with their keys."""
    from hearth.cli.records import proposal_lines  # noqa: PLC0415  (start-up)

    found = state.app().review()
    proposals, loops = found.proposals, found.loops

    def human() -> str:
        lines = [f"pending proposals ({len(proposals)}):"]
        lines += [f"  {line}" for v in proposals for line in proposal_lines(v)]
        lines.append(f"open loops ({len(loops)}):")
        lines += [
            f"  {v.key}  {v.record.title if v.record else '(broken: ' + str(v.error) + ')'}"
            for v in loops
        ]
        lines.append("merge with 'hearth merge KEY', reject with 'hearth reject KEY --reason ...'")
        return "\n".join(lines)

    _emit(as_json, found.as_dict(), human)


@cli.group()
def hooks() -> None:
    """The git hooks hearth installs into the home."""


@hooks.command("install")
@json_option
@click.pass_obj
def hooks_install(state: _State, as_json: bool) -> None:
    """Install hearth's git hooks (keeping any hook already there, which runs first).

    Also registers hearth's merge drivers (daily notes; USER.md, MEMORY.md and
    person notes) in the repository's config and brings .gitattributes up to
    date (one commit, only when it is out of date).
    """
    from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)

    installed = wiring.install_hooks(state.root)
    updated = wiring.update_attributes(state.root)
    lines = [f"installed hooks: {', '.join(installed)}", "registered hearth's merge drivers"]
    if updated:
        lines.append(
            "updated .gitattributes: daily notes and entry files merge entry by entry (one commit)"
        )
    _emit(
        as_json,
        {"installed": installed, "merge_driver": True, "committed": list(updated)},
        "\n".join(lines),
    )


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("name", type=click.Choice(list(HOOK_NAMES)))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.pass_obj
def hook(state: _State, name: str, args: tuple[str, ...]) -> None:
    """Run git hook NAME (what the installed hook shims call)."""
    from hearth.hooks import run as hooks_run  # noqa: PLC0415

    code = hooks_run.run(name, state.root)
    if code:
        sys.exit(code)


def _sync_conflict_line(path: str, root: Path | None = None) -> str:
    if path.startswith(layout.ENTRY_CONFLICTS_DIR + "/"):
        # Both versions are in the file; the record only names them.
        return f"entry conflict: an entry changed two ways, both versions in the file; see {path}"
    # A file deleted on one side and changed on the other stays deleted, and
    # the copy is the changed version, which may be this machine's own edit:
    # "the remote's version" told a person their edit was still in place.
    original = path.removeprefix(layout.CONFLICTS_DIR + "/").rpartition("--")[0]
    if root is not None and original and not (root / original).exists():
        return (
            f"conflict: {original} was deleted on one side and changed on the other; "
            f"it stays deleted, and the changed version is kept at {path}"
        )
    return f"conflict: the remote's version kept at {path}"


def banner(root: Path, url: str, tokens: list[str], exe: str) -> list[str]:
    """What ``hearth serve`` says as it starts: where, the review page, the API's
    schema, and the tokens (how to make one only when there are none)."""
    import shlex  # noqa: PLC0415  (start-up: only hearth serve)

    home = shlex.quote(str(root))
    lines = [
        f"hearth: serving {root} at {url}",
        f"hearth: review page {url}/ui/ (log in with a token); API schema {url}/openapi.json",
    ]
    if tokens:
        shown = ", ".join(tokens[:5]) + (", ..." if len(tokens) > 5 else "")
        lines.append(
            f"hearth: {counted(len(tokens), 'API token')} ({shown}); list them with: "
            f"{exe} --home {home} token list"
        )
    else:
        lines.append(
            f"hearth: no API token yet; create yours (a person's token is admin: it merges "
            f"and rejects proposals) with: {exe} --home {home} token create --name me "
            "--scope admin (an agent's: --name agent --scope write)"
        )
    return lines
