"""Commands that write or read one record: daily notes, proposals, loops and
decisions. Each write is one commit. A file's own commands (put, get, restore,
history) are in ``files.py``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from hearth.cli.support import (
    _SAID_HERE,
    BATCH_WRITTEN,
    LightCommand,
    _emit,
    _State,
    _written,
    cli,
    json_option,
    key_route,
    keyed,
    quoted,
    served_write,
)
from hearth.domain.text import counted, shown
from hearth.errors import HearthError

if TYPE_CHECKING:
    from hearth.app.reads.review_board import ReviewBoard
    from hearth.app.results import BatchResult, WriteResult
    from hearth.store.active_records import RecordView


@cli.command(cls=LightCommand)
@click.argument("text")
@click.option("--title", default=None, help="Heading for the entry.")
@json_option
@click.pass_obj
def note(state: _State, text: str, title: str | None, as_json: bool) -> None:
    """Append TEXT to today's daily note."""
    from hearth.client import delegate  # noqa: PLC0415  (start-up: only commands that write)

    body = {"text": text, **({"title": title} if title is not None else {})}
    served = delegate.send(state.root, "POST", "/v1/daily", body, state.actor)
    if served is not None and served[0] not in _SAID_HERE:
        status, data = served
        if status != 200:
            raise HearthError(delegate.refusal(data, status))
        short = str(data.get("commit") or "")[:12]
        _emit(as_json, data, f"appended to {data.get('path')} (commit {short})")
        return
    result = state.app().note(text, title, state.actor)
    _written(as_json, result, f"appended to {result.path}")


@cli.command(cls=LightCommand)
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
    body = {"title": title, "entries": list(entries), "rationale": rationale, "source": source}
    served = served_write(state, "POST", "/v1/proposals", {**body, "target": target})
    keyed(
        as_json,
        served or state.app().propose(title, entries, state.actor, target, rationale, source),
    )


def _record_lines(views: list[RecordView], describe: Callable[[Any], str]) -> str:
    if not views:
        return "none"
    # One line per record: a field or a file name a commit gave a newline (a YAML
    # escape) shows it as ␊, never as lines of its own.
    return "\n".join(
        shown(f"{v.key}  {describe(v.record)}{_whose(v.record)}", keep="")
        if v.record
        else shown(f"{v.key}  (broken: {v.error})", keep="")
        for v in views
    )


def _whose(record: Any) -> str:
    """``  (an agent's: SOURCE)`` for a record an agent wrote (``by: agent``): a
    title an agent spells like the person's reads as theirs else."""
    if getattr(record, "by", "") != "agent":
        return ""
    source = getattr(record, "source", "")
    return f"  (an agent's: {source})" if source else "  (an agent's)"


@cli.command()
@json_option
@click.pass_obj
def proposals(state: _State, as_json: bool) -> None:
    """List pending memory proposals, each entry with what already says the same
    or nearly the same (file:line, closeness), and groups of near-duplicates."""
    app = state.app()
    views = app.records("proposal")
    board = app.review_board(views)
    _emit(as_json, board.answer(views), lambda: _review_lines(views, board))


def proposal_lines(view: RecordView) -> list[str]:
    """A proposal as a person must see it before merging: its title, its target,
    every entry, and the version (what ``hearth merge KEY --version`` carries)."""
    from hearth.domain import records  # noqa: PLC0415  (start-up: YAML only when listing)

    p = view.record
    if not isinstance(p, records.Proposal):
        return [f"{view.key}  (broken: {view.error})"]
    head = f"{view.key}  {p.title} ({counted(len(p.entries), 'entry', 'entries')} -> {p.target})"
    by = f"; by {p.source}{' (an agent)' if records.is_agents(p) else ''}" if p.source else ""
    lines = [f"{head}  [version {(view.oid or '')[:12]}{by}]"]
    if p.consolidate == "move":
        lines.append(
            f"    hearth's consolidation: these move to {p.destination}, leaving {p.leaves!r}"
        )
    elif p.consolidate:
        lines.append(f"    hearth's consolidation: these fold into {p.leaves!r}")
    return lines + [f"    - {entry}" for entry in p.entries]


def _review_lines(views: list[RecordView], board: ReviewBoard) -> str:
    lines = []
    for view in views:
        lines += proposal_lines(view)
        found = board.proposals.get(view.key)
        if found is None:
            continue
        for entry in found.matches:
            for m in entry.matches:
                where = f"known in {m.path}" if m.key is None else f"also proposed in {m.key}"
                closeness = "same text" if m.exact else f"{min(m.score, 0.99):.2f}"
                lines.append(f"    {entry.entry!r} ~ {where}:{m.line} {m.text!r} ({closeness})")
        for r in found.replaces:
            where = f"{r.path} line" if r.path else "line"
            lines.append(f"    {r.new!r} replaces {where} {r.line} {r.old!r} ({r.was} -> {r.now})")
        over = found.over_bound
        if over is not None:
            lines.append(
                f"    merging would make {over.target} {over.chars} characters "
                f"({over.now} now), over its bound of {over.bound}; make room first, "
                "moving to a topic note and leaving the pointer: "
                + "; ".join(
                    f"line {m.line} -> {m.topic_path}, leave {m.pointer!r}" for m in over.moves
                )
            )
    for group in board.groups:
        lines.append(f"near-duplicates (merge or reject together): {' '.join(group)}")
        over = board.group_over_bound.get(group[0])
        if over is not None:
            lines.append(
                f"    merging all of them would make {over.target} {over.chars} characters, "
                f"over its bound of {over.bound}"
            )
    return "\n".join(lines) if lines else "none"


@cli.command(cls=LightCommand)
@click.argument("keys", nargs=-1, required=True)
@click.option(
    "--version",
    default=None,
    help="The version 'hearth proposals' printed: refuse the merge if the proposal changed since.",
)
@json_option
@click.pass_obj
def merge(state: _State, keys: tuple[str, ...], version: str | None, as_json: bool) -> None:
    """Merge proposal KEY into its target and archive it, in one commit; several
    KEYs are merged together in one commit (all or none). One KEY is read and
    shown first (its target and every entry), and exactly the version shown (or
    the one --version names, as 'hearth proposals' printed it) is merged: a
    proposal changed since is refused."""
    if len(keys) == 1:
        key = keys[0]
        reached, view = _served_proposal(state, key)
        if not reached:
            view = next((v for v in state.app().records("proposal") if v.key == key), None)
        if view is not None and version is None:
            version = view.oid
            if not as_json:
                click.echo("merging:\n" + "\n".join(proposal_lines(view)))
        # The version shown travels with the merge: a proposal an agent changed
        # since is refused (409) by whichever process merges it.
        path = key_route("/v1/proposals", key, "merge")
        asked: dict[str, Any] = {"version": version}
        served = served_write(state, "POST", path, asked, fields=None) if reached and path else None
        _merged(as_json, served or state.app().merge(key, state.actor, version=version), key)
        return
    if version is not None:
        raise click.UsageError("--version names the version of one proposal; give one KEY")
    body = {"keys": list(keys)}
    served = served_write(state, "POST", "/v1/proposals/merge", body, BATCH_WRITTEN)
    _batch(as_json, served or state.app().merge_many(keys, state.actor))


def _merged(as_json: bool, result: WriteResult | dict[str, Any], key: str) -> None:
    """A merge's answer: the write's, and what each replacement replaced (the
    old entry leaves the file; its record keeps it)."""
    data: dict[str, Any] = result if isinstance(result, dict) else result.as_dict()
    short = str(data.get("commit") or "")[:12]
    done = (
        f"merged {key} (commit {short})"
        if data.get("changed")
        else f"merged {key}: nothing changed"
    )
    lines = [done] + [
        f"  replaced {_where(r)}line {r['line']} {r['replaces']!r} with {r['entry']!r} "
        f"({r['was']} -> {r['now']}); the old entry is kept in {r['kept_at']}"
        for r in data.get("replaced") or ()
    ]
    _emit(as_json, data, "\n".join(lines))


def _where(replaced: dict[str, Any]) -> str:
    """The other hot file a replaced entry stood in, as a merge's line says it."""
    return f"{replaced['path']} " if replaced.get("path") else ""


def _served_proposal(state: _State, key: str) -> tuple[bool, RecordView | None]:
    """Pending proposal ``key`` as the home's running server reads it (started
    on demand): whether the server is to be asked (False: none could be
    reached), and the proposal's view as ``records("proposal")`` lists it (None
    when no pending proposal has that key)."""
    from hearth.client import delegate  # noqa: PLC0415  (start-up: only this command)
    from hearth.domain import layout  # noqa: PLC0415
    from hearth.store.active_records import record_view  # noqa: PLC0415  (lean: no libgit2)

    path = f"{layout.record_dir('proposal')}/{key}.md"
    if "/" in key:  # no file of the listing has that name; the merge says why
        return True, None
    served = delegate.send(state.root, "GET", f"/v1/files/{quoted(path)}", None, state.actor)
    if served is None:
        return False, None
    status, data = served
    content, oid = data.get("content"), data.get("oid")
    if status != 200 or not isinstance(content, str) or not isinstance(oid, str):
        return True, None
    return True, record_view("proposal", key, path, content, oid)


@cli.command(cls=LightCommand)
@click.argument("keys", nargs=-1, required=True)
@click.option("--reason", required=True, help="Why it is rejected (kept in the archive).")
@json_option
@click.pass_obj
def reject(state: _State, keys: tuple[str, ...], reason: str, as_json: bool) -> None:
    """Reject proposal KEY and archive it with the reason; several KEYs are
    rejected together in one commit (all or none)."""
    if len(keys) == 1:
        path = key_route("/v1/proposals", keys[0], "reject")
        served = served_write(state, "POST", path, {"reason": reason}) if path else None
        result = served or state.app().reject(keys[0], reason, state.actor)
        _written(as_json, result, f"rejected {keys[0]}")
        return
    body = {"keys": list(keys), "reason": reason}
    served = served_write(state, "POST", "/v1/proposals/reject", body, BATCH_WRITTEN)
    _batch(as_json, served or state.app().reject_many(keys, reason, state.actor))


def _batch(as_json: bool, result: BatchResult | dict[str, Any]) -> None:
    data: dict[str, Any] = result if isinstance(result, dict) else result.as_dict()
    short = str(data["commit"] or "")[:12]
    done = f"{data['outcome']} {counted(len(data['keys']), 'proposal')}"
    if data["outcome"] == "merged":
        added, skipped = data["added"], data["skipped"]
        done += f" ({counted(added, 'entry', 'entries')} added, {skipped} already there)"
    _emit(as_json, data, f"{done} in one commit {short}")


@cli.group()
def loop() -> None:
    """Open loops: add one, or resolve one."""


@loop.command("add", cls=LightCommand)
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
    body = {"title": title, "summary": summary, "next_step": next_step, "source": source}
    data = served_write(state, "POST", "/v1/loops", body, fields=None)
    if data is None:
        data = state.app().add_loop(title, state.actor, summary, next_step, source).as_dict()
    key, updated = data.get("key"), bool(data.get("updated"))
    if updated and not as_json:
        # The key alone goes to stdout (scripts read it); what happened, to stderr.
        done = "updated" if data.get("changed") else "found, unchanged,"
        click.echo(
            f"hearth: {done} the open loop {key} of that title (the same title "
            "updates the same loop; resolve it first to open a new one)",
            err=True,
        )
    answer = {"key": key, "path": data.get("path"), "commit": data.get("commit")}
    _emit(as_json, {**answer, "updated": updated}, str(key or ""))


@loop.command("resolve", cls=LightCommand)
@click.argument("key")
@click.option("--note", default="", help="How it was resolved.")
@json_option
@click.pass_obj
def loop_resolve(state: _State, key: str, note: str, as_json: bool) -> None:
    """Resolve loop KEY and archive it."""
    path = key_route("/v1/loops", key, "resolve")
    served = served_write(state, "POST", path, {"note": note}) if path else None
    _written(as_json, served or state.app().resolve_loop(key, state.actor, note), f"resolved {key}")


@cli.command()
@json_option
@click.pass_obj
def loops(state: _State, as_json: bool) -> None:
    """List open loops."""
    views = state.app().records("loop")
    _emit(
        as_json,
        {"loops": [v.as_dict() for v in views]},
        lambda: _record_lines(
            views, lambda lp: lp.title + (f" (next: {lp.next_step})" if lp.next_step else "")
        ),
    )


@cli.command(cls=LightCommand)
@click.option("--title", required=True, help="Short title; the same title supersedes it.")
@click.option("--decision", required=True, help="What was settled.")
@click.option("--why", default="", help="The reason, in a line.")
@click.option("--source", default="", help="Where it was settled (session, channel).")
@json_option
@click.pass_obj
def decide(state: _State, title: str, decision: str, why: str, source: str, as_json: bool) -> None:
    """Record a decision (or supersede the one with the same title); prints the key."""
    body = {"title": title, "decision": decision, "why": why, "source": source}
    served = served_write(state, "POST", "/v1/decisions", body)
    keyed(as_json, served or state.app().decide(title, decision, state.actor, why, source))


@cli.command()
@json_option
@click.pass_obj
def decisions(state: _State, as_json: bool) -> None:
    """List the decisions in force, oldest first."""
    views = state.app().records("decision")
    _emit(
        as_json,
        {"decisions": [v.as_dict() for v in views]},
        lambda: _record_lines(views, lambda d: f"{d.title}: {' '.join(d.decision.split())}"),
    )


@cli.group()
def decision() -> None:
    """Decisions: withdraw one."""


@decision.command("withdraw", cls=LightCommand)
@click.argument("key")
@click.option("--reason", required=True, help="Why it no longer holds (kept in the archive).")
@json_option
@click.pass_obj
def decision_withdraw(state: _State, key: str, reason: str, as_json: bool) -> None:
    """Withdraw decision KEY and archive it with the reason."""
    path = key_route("/v1/decisions", key, "withdraw")
    served = served_write(state, "POST", path, {"reason": reason}) if path else None
    result = served or state.app().withdraw_decision(key, reason, state.actor)
    _written(as_json, result, f"withdrew {key}")
