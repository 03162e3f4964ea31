"""The ``hearth`` command line: a thin shell over the operations.

Exit statuses: 0 done, 1 refused (validation, conflict, not found, bad path)
with the reason on stderr, 2 usage. Every command that prints data takes
``--json``. This module and ``api/errors.py`` are the only places that turn
errors into statuses. The commands that run services live in
``cli_runtime``; what all commands share lives in ``cli_support``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

import click
import pygit2

from hearth import (
    cli_mcp,  # noqa: F401  (registers mcp)
    cli_memory,  # noqa: F401  (registers memory, topic and reflect)
    cli_runtime,  # noqa: F401  (registers serve, watch, tokens, hooks, sync)
    queries,
    wiring,
)
from hearth.catalog import RecordView
from hearth.cli_support import _emit, _report_line, _State, _written, cli, json_option
from hearth.domain.layout import KINDS
from hearth.errors import HearthError
from hearth.index.query import MAX_LIMIT

__all__ = ["cli", "git_main", "main"]


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
            lines.append(f"committed {result.commit[:12]}")
        else:
            lines.append("already initialized: nothing to add")
        for label, paths in (("added", result.added), ("adopted", result.adopted)):
            if paths:
                lines.append(f"{label} {len(paths)} files: {', '.join(paths)}")
        if result.daily_layout == "lionclaw":
            lines.append("daily notes: LionClaw's layout (continuity/daily/YYYY/MM/), kept")
        if result.bootstrap_skipped:
            lines.append(f"BOOTSTRAP.md not added: {result.bootstrap_skipped}")
        for failure in result.skipped:
            lines.append(f"not committed: {failure.describe()}")
        if result.untracked:
            lines.append(
                f"left untracked ({len(result.untracked)} files; commit them with git "
                "if they belong in the home):"
            )
            lines += [f"  {path}" for path in result.untracked]
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
    data = queries.status(
        home, reconciler.status(), wiring.syncer_of(home), wiring.reflector_of(home)
    )

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
        elif index["active"] != "fresh":
            lines.append(f"  ACTIVE.md: {index['active']} (the next pass writes it again)")
        sync_state = data["sync"]
        if sync_state["upstream"]:
            lines.append(
                f"sync: {sync_state['upstream']}, {sync_state['ahead']} ahead, "
                f"{sync_state['behind']} behind; last {sync_state['last_result'] or 'never'}"
                + (f" at {sync_state['last_time']}" if sync_state["last_time"] else "")
            )
        lines += [f"  conflict copy to resolve: {c}" for c in data["conflicts"]]
        last = data["reflection"]["last"]
        if data["reflection"]["enabled"] or last:
            outcome = (
                "never"
                if not last
                else (
                    f"failed at {last['time']}: {last['error']}"
                    if last["error"]
                    else f"{len(last['proposed'])} proposals at {last['time']}"
                )
            )
            lines.append(f"reflection: last run {outcome}")
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
    result = reconciler.search_ranked(query, kind, path_prefix, limit)
    hits = result.hits

    def human() -> str:
        if not hits:
            return "no matches"
        return "\n".join(
            f"{h.path}:{h.start_line}-{h.end_line}  [{h.kind}] {h.title}"
            + (f" > {h.heading}" if h.heading and h.heading != h.title else "")
            + f"\n    {h.snippet}"
            for h in hits
        )

    _emit(as_json, result.as_dict(), human)


@cli.command()
@click.option("--full", is_flag=True, help="Rebuild the index from every file, aside, then swap.")
@json_option
@click.pass_obj
def reindex(state: _State, full: bool, as_json: bool) -> None:
    """Bring the index up to date with the files (a reconcile pass)."""
    reconciler = wiring.reconciler_of(state.home())
    # Progress lines on a terminal (stderr), never with --json or into a pipe.
    shown = not as_json and sys.stdout.isatty() and sys.stderr.isatty()
    reading = _progress_line("reading files") if shown else None
    report = reconciler.rebuild(reading) if full else reconciler.reconcile(progress=reading)
    # Vectors for semantic ranking: the slow part.
    embedding = _progress_line("embedding sections for semantic search") if shown else None
    embedded = reconciler.fill_vectors(embedding)
    data = {**report.as_dict(), "embedded": embedded}
    note = f"; {embedded} sections embedded" if embedded else ""
    _emit(as_json, data, lambda: _report_line(report) + note)


def _progress_line(label: str) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` that rewrites one stderr line, at most 10 times a second."""
    last = 0.0

    def show(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if done < total and now - last < 0.1:
            return
        last = now
        click.echo(f"\r{label}: {done}/{total}", err=True, nl=done >= total)

    return show


@cli.command()
@json_option
@click.pass_obj
def active(state: _State, as_json: bool) -> None:
    """Print continuity/ACTIVE.md, refreshed first, after a line on how fresh it is."""
    home = state.home()
    reconciler = wiring.reconciler_of(home)
    reconciler.reconcile()
    data = queries.active_view(home, reconciler.status())
    head = (data["head"] or "no commit")[:12]
    freshness = (
        f"ACTIVE.md: refreshed {data['refreshed']} from commit {head}; "
        + ("index fresh" if data["fresh"] else "index STALE")
        + (f"; {data['error']}" if data["error"] else "")
    )
    _emit(as_json, data, lambda: f"{freshness}\n\n{data['content']}".rstrip("\n"))


@cli.command()
@click.option("--week", default=None, metavar="YYYY-Www", help="ISO week (default: last week).")
@json_option
@click.pass_obj
def rollup(state: _State, week: str | None, as_json: bool) -> None:
    """Commit the weekly digest of daily notes to continuity/rollups/."""
    result = state.home().rollup(week, state.actor)
    _written(as_json, result, f"wrote {result.path}")


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
    home = state.home()
    fixed = home.fix_keys(state.actor) if fix_keys else None
    failures = queries.check(home)
    legacy = queries.legacy_key_records(home)
    data: dict[str, Any] = {
        "ok": not failures,
        "failures": [f.as_dict() for f in failures],
        "legacy_keys": [{"path": old, "lionclaw_path": new} for old, new in legacy],
    }
    if fixed is not None:
        data["fixed"] = fixed.as_dict()

    def human() -> str:
        lines = []
        if fixed is not None:
            lines += [f"renamed {old} -> {new}" for old, new in fixed.renamed]
            lines += [f"not renamed: {path}: {why}" for path, why in fixed.blocked]
            if fixed.commit:
                lines.append(f"renamed {len(fixed.renamed)} records (commit {fixed.commit[:12]})")
            elif not fixed.blocked:
                lines.append("no committed record uses an old key")
        lines += [f.describe() for f in failures] or ["all rules pass"]
        if legacy:
            lines.append(
                f"{len(legacy)} records use hearth's old keys (they keep working); "
                "'hearth check --fix-keys' renames them to LionClaw's keys:"
            )
            lines += [f"  {old} -> {new}" for old, new in legacy]
        return "\n".join(lines)

    _emit(as_json, data, human)
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
    """``git hearth ...``: the same command line, finding the home the same way
    (``--home``, ``HEARTH_HOME``, the home holding the current folder, the default)."""
    sys.exit(_run(argv))
