"""Commands about the home as a whole: init, status, search, reindex, active,
rollup and check."""

from __future__ import annotations

import sys
from typing import Any

import click

from hearth.cli.support import (
    LightCommand,
    _emit,
    _report_line,
    _State,
    _written,
    cli,
    home_path,
    json_option,
    lock_wait,
    progress_line,
    served_or_local,
    served_write,
    shows_progress,
    verbose_option,
)
from hearth.client.printed import search_text, status_text
from hearth.client.read import served_status, server_record
from hearth.domain.layout import KINDS
from hearth.domain.searching import MAX_LIMIT
from hearth.domain.text import counted

#: What ``init`` says when git knows no one to sign a person's commits.
IDENTITY_ADVICE = [
    "git has no name and email for your own commits yet (hearth's commits sign as",
    "hearth, but your first 'git commit' in the home would fail); set them once with:",
    '  git config --global user.name "Your Name"',
    '  git config --global user.email "you@example.com"',
]


@cli.command()
@click.argument("path", required=False)
@json_option
@click.pass_obj
def init(state: _State, path: str | None, as_json: bool) -> None:
    """Create a home at PATH (or adopt the files already there).

    On a terminal, progress lines on stderr count the files checked and stored
    while a large folder is adopted.
    """
    from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)

    root = wiring.resolve_home(path or state.home_option)
    shown = shows_progress(as_json)
    result = wiring.initialize(
        root,
        checking=progress_line("checking files") if shown else None,
        storing=progress_line("storing files in git") if shown else None,
    )

    def human() -> str:
        lines = [f"home: {root}"]
        if result.from_remote:
            lines.append(
                f"{result.from_remote} already holds this home: checked it out "
                "(no second home was made)"
            )
        if result.commit:
            lines.append(f"committed {result.commit[:12]}")
        else:
            lines.append("already initialized: nothing to add")
        for label, paths in (("added", result.added), ("adopted", result.adopted)):
            if paths:
                listed = ", ".join(paths)
                lines.append(f"{label} {counted(len(paths), 'file')}: {listed}")
        if result.daily_layout == "lionclaw":
            lines.append("daily notes: LionClaw's layout (continuity/daily/YYYY/MM/), kept")
        if result.bootstrap_skipped and not result.from_remote:
            lines.append(f"BOOTSTRAP.md not added: {result.bootstrap_skipped}")
        for failure in result.skipped:
            lines.append(f"not committed: {failure.describe()}")
        if result.untracked:
            lines.append(
                f"left untracked ({counted(len(result.untracked), 'file')}; commit them with git "
                "if they belong in the home):"
            )
            lines += [f"  {path}" for path in result.untracked]
        for failure in result.warnings:
            lines.append(f"warning: {failure.describe()}")
        if result.identity_missing:
            lines += IDENTITY_ADVICE
        if result.exposed is not None:
            lines.append(f"warning: {result.exposed[0]}; make it private with: {result.exposed[1]}")
        return "\n".join(lines)

    _emit(as_json, result.as_dict(), human)


@cli.command(cls=LightCommand)
@json_option
@verbose_option
@click.pass_obj
def status(state: _State, as_json: bool, verbose: bool) -> None:
    """Show the home's branch, HEAD, uncommitted changes, records and index freshness.

    The index figures describe the files as they are now: a running server for
    the home answers from its status (kept current by its watcher); without
    one, a reconcile pass runs first, skipped when the files, HEAD and
    ACTIVE.md show it would change nothing.
    """
    data, how = _status(state)
    data["server"] = server_record(str(state.root))
    if verbose:
        click.echo(f"hearth: status {how}", err=True)

    _emit(as_json, data, lambda: status_text(data))


def _status(state: _State) -> tuple[dict[str, Any], str]:
    """The status and how it was reached: asked of the home's running server (when
    its snapshot is current), read without a pass (when one would change nothing),
    or after a reconcile pass."""
    from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)
    from hearth.client import delegate  # noqa: PLC0415
    from hearth.operations import route_of  # noqa: PLC0415

    root = state.root
    server = delegate.find(root)
    if server is not None:
        served = delegate.get(server, route_of("status"))
        snapshot = (served or {}).get("snapshot")
        if served is not None and isinstance(snapshot, dict) and snapshot.get("current"):
            return served_status(served, str(root)), f"answered by the server at {server.url}"
    note = "" if server is None else f" (the server at {server.url} had no current answer)"
    found = wiring.open_lean(root, lock_wait()).status()
    if found is not None:
        return found, f"read without a reconcile pass: nothing changed since the last one{note}"
    return state.app().status().as_dict(), f"after a reconcile pass{note}"


@cli.command(cls=LightCommand)
@click.argument("query")
@click.option("--kind", type=click.Choice(KINDS), default=None, help="Only this kind of file.")
@click.option(
    "--path",
    "path_prefix",
    default=None,
    callback=home_path,
    help="Only paths starting with this.",
)
@click.option(
    "--limit", type=click.IntRange(1, MAX_LIMIT), default=10, show_default=True, help="Most hits."
)
@click.option(
    "--all",
    "everything",
    is_flag=True,
    help="Every hit, also those below the relevance floor (browsing).",
)
@json_option
@verbose_option
@click.pass_obj
def search(
    state: _State,
    query: str,
    kind: str | None,
    path_prefix: str | None,
    limit: int,
    everything: bool,
    as_json: bool,
    verbose: bool,
) -> None:
    """Full-text search over the home's sections (after a reconcile pass, or
    answered by the home's running server): the hits judged evidence for
    QUERY, and how many others were left out (--all shows them)."""
    params: dict[str, str | int | None] = {
        "q": query,
        "kind": kind,
        "path": path_prefix,
        "limit": limit,
        "all": "true" if everything else None,
    }
    data = served_or_local(
        state,
        "search",
        params,
        ("ranking", "vectors", "left_out", "nearest", "hits"),
        lambda: (
            state.app().search(query, kind, path_prefix, limit, everything=everything).as_dict()
        ),
        verbose,
    )
    _emit(as_json, data, lambda: search_text(data))


@cli.command(cls=LightCommand)
@click.option("--full", is_flag=True, help="Rebuild the index from every file, aside, then swap.")
@json_option
@click.pass_obj
def reindex(state: _State, full: bool, as_json: bool) -> None:
    """Bring the index up to date with the files (a reconcile pass).

    Beside a running server, its pass: the server embeds what it indexed for
    semantic search in the background."""
    done = _rebuilt_as_the_server(state, as_json) if full else None
    later = done is not None and bool(done["to_embed"])  # the server it started embeds them
    if done is None:
        asked = "/v1/reconcile?full=true" if full else "/v1/reconcile"
        done = served_write(state, "POST", asked, fields=None)
        later = done is not None
    if done is None:
        shown = shows_progress(as_json)
        done = (
            state.app()
            .reindex(
                full,
                progress_line("embedding sections for semantic search") if shown else None,
                reading=progress_line("reading files") if shown else None,
            )
            .as_dict()
        )
    note = f"; {counted(done['embedded'], 'section')} embedded" if done["embedded"] else ""
    if done.get("to_embed"):
        left = counted(done["to_embed"], "section")
        note += (
            f"; {left} to embed, which the home's server embeds in the background"
            if later
            else f"; {left} still without a vector (the next reindex embeds them)"
        )
    _emit(as_json, done, lambda: _report_line(done) + note)


def _rebuilt_as_the_server(state: _State, as_json: bool) -> dict[str, Any] | None:
    """``reindex --full`` when no server runs (and one may be started): the
    rebuild made here, holding the home's server lock, as the server would make
    it, then the server started in the background when sections wait for their
    vectors (its filler embeds them). Starting a server first would put its
    start-up (a second of imports and threads) before the build. None when a
    server serves or is starting: it is asked, as beside any server."""
    from hearth.client import delegate  # noqa: PLC0415  (start-up: a full reindex only)

    held = delegate.claim_home(state.root)
    if held is None:
        return None
    from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)
    from hearth.app.results import Reindexed  # noqa: PLC0415  (a server's answer needs none)

    # Reader processes started before the home is opened: they start up beside it.
    early = wiring.early_workers()
    try:
        app = state.app()
        shown = shows_progress(as_json)
        report = app.reconcile(True, progress_line("reading files") if shown else None, early)
        to_embed = app.vectors_to_embed()
    finally:
        early.close()
        delegate.let_go(held)  # a server started meanwhile on demand may start now
    if to_embed:
        delegate.start_server(state.root)
    return Reindexed(report, 0, to_embed).as_dict()


@cli.command(cls=LightCommand)
@json_option
@verbose_option
@click.pass_obj
def active(state: _State, as_json: bool, verbose: bool) -> None:
    """Print continuity/ACTIVE.md, refreshed first, after a line on how fresh it is."""
    view = served_or_local(
        state,
        "active",
        {},
        ("path", "head", "refreshed", "fresh", "state", "error", "content"),
        lambda: state.app().active().as_dict(),
        verbose,
    )
    head = (view["head"] or "no commit")[:12]
    freshness = (
        f"ACTIVE.md: refreshed {view['refreshed']} from commit {head}; "
        + ("index fresh" if view["fresh"] else "index STALE")
        + (f"; {view['error']}" if view["error"] else "")
    )
    _emit(as_json, view, lambda: f"{freshness}\n\n{view['content']}".rstrip("\n"))


@cli.command(cls=LightCommand)
@click.option("--week", default=None, metavar="YYYY-Www", help="ISO week (default: last week).")
@json_option
@click.pass_obj
def rollup(state: _State, week: str | None, as_json: bool) -> None:
    """Commit the weekly digest of daily notes to continuity/rollups/."""
    served = served_write(state, "POST", "/v1/rollups", {"week": week})
    result = served or state.app().rollup(week, state.actor).as_dict()
    _written(as_json, result, f"wrote {result['path']}")


@cli.command()
@click.option(
    "--fix-keys",
    is_flag=True,
    help="Rename records still named with hearth's old keys to LionClaw's keys, in one commit.",
)
@json_option
@click.pass_obj
def check(state: _State, fix_keys: bool, as_json: bool) -> None:
    """Run the validation rules over the whole home (exit 1 on any failure).

    Records named with the keys of older hearth releases pass, and are listed;
    with --fix-keys they are renamed to LionClaw's keys first, in one commit
    (history kept: 'git log --follow' finds it).
    """
    result = state.app().check(state.actor, fix_keys=fix_keys)
    fixed, failures, legacy = result.fixed, result.failures, result.legacy

    def human() -> str:
        lines = []
        if fixed is not None:
            lines += [f"renamed {old} -> {new}" for old, new in fixed.renamed]
            lines += [f"not renamed: {path}: {why}" for path, why in fixed.blocked]
            if fixed.commit:
                lines.append(
                    f"renamed {counted(len(fixed.renamed), 'record')} (commit {fixed.commit[:12]})"
                )
            elif not fixed.blocked:
                lines.append("no committed record uses an old key")
        lines += [f.describe() for f in failures] or ["all rules pass"]
        if legacy:
            lines.append(
                f"{counted(len(legacy), 'record')} use hearth's old keys (they keep working); "
                "'hearth check --fix-keys' renames them to LionClaw's keys:"
            )
            lines += [f"  {old} -> {new}" for old, new in legacy]
        lines += [f"warning: {w.message}; fix: {w.fix}" for w in result.warnings]
        return "\n".join(lines)

    _emit(as_json, result.as_dict(), human)
    if failures:
        sys.exit(1)
