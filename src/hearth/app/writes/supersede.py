"""A proposal's merge that replaces the facts it restates.

An entry of a proposal that restates an entry of its target with another value
(``domain/facts.py``: a labelled field, or the same sentence with one value
changed) replaces that entry in place rather than standing beside it; the
replaced entry leaves the file and is kept as a record under
``continuity/superseded/`` with the dates between which it held (from the
commit that last wrote its line, as ``git blame`` finds it, to the merge), in
the merge's one commit. Search sets those records aside as it does archives
(``kind=archive`` finds them, status ``superseded``), so recall hands only the
current version.

A person's own edit is never overwritten behind their back: an entry any
line of which (its bullet or a wrapped line) a commit other than a merge
changed after the proposal was made (the person edited it in their editor, or
with ``hearth memory``) is not replaced, nor has a known entry folded into it
(``domain/known_folds.py``); the merge is refused and says so, for the person
to reject or edit the proposal. An entry with sub-bullets is never
replaced (they tell about the value they stand under): the new value is added
beside it.

The held fact may stand in another hot file than the proposal's target (an
agent proposes to MEMORY.md what USER.md or ``users/<id>.md`` holds): a
sentence that restates it with one value changed (``Sam lives in Lisbon``
beside ``Sam lives in Braga``) takes its place there, in the same commit, and
is not added to the target, so two versions never stand in two files loaded
together. Only the value rule reaches across files: a labelled field speaks of
its file's subject (``Location:`` in ``users/ana.md`` is Ana's, in USER.md the
person's), so two files' fields are two facts.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from hearth.app.writes.record_files import merged_text
from hearth.app.writes.writer import target_text
from hearth.domain import consolidation, entries, facts, layout, records
from hearth.domain.text import counted, decode_text
from hearth.errors import Conflict, EntryMissing
from hearth.store.history import parse_trailers
from hearth.store.plans import FileChange, Snapshot

#: Hearth-Op of the commits whose lines a merge may replace whenever they were made.
_MERGES = ("proposal.merge",)


@dataclass(frozen=True)
class MergedEntries:
    """A target's text after a merge, and what the merge replaced."""

    text: str
    added: list[str]
    note: str
    replaced: tuple[facts.Restatement, ...] = ()
    #: The records of the replaced entries (``continuity/superseded/``), in
    #: the order of ``replaced``.
    records: tuple[FileChange, ...] = ()
    #: Other hot files' texts after a new value took the place of their entry.
    others: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def body(self, target: str) -> str:
        """The merge commit's body: what was added, skipped, replaced."""
        added = counted(len(self.added), "entry", "entries")
        return f"Added {added} to {target}; {self.note}." + "".join(
            f"\nReplaced {r.old!r}{f' in {r.path}' if r.path else ''} with {r.new!r} "
            f"({r.rule}: {r.was} -> {r.now})"
            for r in self.replaced
        )


def restatements(
    text: str,
    proposal: records.Proposal,
    leave_out: Sequence[str],
    replace: Mapping[str, str],
    committed: str | None = None,
) -> list[facts.Restatement]:
    """The entries of ``text`` that ``proposal``'s entries (less ``leave_out`` and
    those the person chose to ``replace``) restate with another value; each held
    entry replaced once. ``committed``: the target as HEAD holds it, when ``text``
    already holds other proposals of the same merge: only what HEAD held is
    replaced (two proposals merged at once are of one moment, neither newer)."""
    kept = None if committed is None else {e.text for e in entries.list_entries(committed)}
    held = [
        (t, n)
        for t, n in replaceable(text)
        if t not in replace.values() and (kept is None or t in kept)
    ]
    found = []
    for entry in proposal.entries:
        if entry in leave_out or entry in replace:
            continue
        restated = facts.restated_in(entry, held)
        if restated is None:
            continue
        found.append(restated)
        # The new value stands where the old one stood: a later entry of the same
        # proposal (an agent's second new value before the person looked) replaces it.
        held = [(t, n) for t, n in held if t != restated.old] + [(entry, restated.line)]
    return found


def replaceable(text: str) -> list[tuple[str, int]]:
    """The entries of ``text`` a new value may replace, with their lines."""
    nested = {b.text for b in _blocks(text) if b.end > b.head_end}
    return [
        (e.text, e.line)
        for e in entries.list_entries(text)
        # Sub-bullets tell about the value they stand under: moved under a new
        # value they would say what is no longer true.
        if e.text not in nested
        # A consolidation's pointer says where moved entries went, not a value.
        and not consolidation.is_pointer(e.text)
    ]


def hot_files(snap: Snapshot) -> list[str]:
    """The entry files loaded at every session beside one another: USER.md,
    MEMORY.md and the person notes."""
    people = [f"{layout.USERS_DIR}/{n}" for n in snap.names(layout.USERS_DIR) if n.endswith(".md")]
    return ["USER.md", "MEMORY.md", *sorted(people)]


def elsewhere(
    paths: Sequence[str],
    read: Callable[[str], str | None],
    target: str,
    proposal: records.Proposal,
    skip: Collection[str],
) -> list[facts.Restatement]:
    """The entries of ``proposal`` (but ``skip``) that restate an entry of one of
    the hot files ``paths`` (``read`` gives their text) other than ``target``
    with one value changed (the value rule, see the module's text), each with
    that file as ``path``; each held entry replaced once, by the first of the
    proposal's entries that restates it."""
    found: list[facts.Restatement] = []
    for path in paths:
        text = read(path)
        if path == target or text is None:
            continue
        taken = {r.old for r in found if r.path == path}
        held = [(t, n) for t, n in replaceable(text) if t not in taken]
        for entry in proposal.entries:
            if entry in skip or any(r.new == entry for r in found):
                continue
            restated = facts.restated_in(entry, held)
            if restated is not None and restated.rule == "value":
                found.append(dataclasses.replace(restated, path=path))
                held = [(t, n) for t, n in held if t != restated.old]
    return found


def preview_entries(
    start: str,
    proposal: records.Proposal,
    leave_out: Sequence[str],
    fold: Mapping[str, str] | None = None,
) -> tuple[str, list[str], tuple[str, ...]]:
    """The target's text after the merge, the entries added and those skipped as
    already there. A restated fact replaces its entry in place, as the merge
    will, and an entry of ``fold`` is folded into the held entry it names:
    neither is added nor skipped, and the diff shows the line they change."""
    fold = fold or {}
    restated = {r.new: r.old for r in restatements(start, proposal, leave_out, fold)}
    after, added, _note = merged_text(start, proposal, leave_out, restated, fold)
    wanted = [e for e in proposal.entries if e not in leave_out and e not in fold]
    return after, added, tuple(e for e in wanted if e not in added and e not in restated)


def merge_entries(
    snap: Snapshot,
    target: str,
    before: str,
    proposal: records.Proposal,
    now: dt.datetime,
    leave_out: Sequence[str] = (),
    replace: Mapping[str, str] | None = None,
    key: str = "",
    committed: str | None = None,
    fold: Mapping[str, str] | None = None,
    others: Mapping[str, str] | None = None,
) -> MergedEntries:
    """``merged_text`` with every restated fact replaced and recorded (see the
    module's text), in the target or another hot file, and each entry of
    ``fold`` folded into the held entry it names (``domain/known_folds.py``);
    refused (``Conflict``) when either would rewrite a person's edit made after
    the proposal. ``committed``: the target at HEAD, when ``before`` holds what
    other proposals of one batch added (``restatements``); ``others``: the
    other hot files as that batch has them so far (else HEAD's)."""
    chosen = dict(replace or {})
    # A folded entry is no new value, and the entry it folds into is not replaced.
    found = restatements(before, proposal, leave_out, {**chosen, **(fold or {})}, committed)
    head_lines = {b.text: b for b in _blocks(committed or before)}
    for entry, held in (fold or {}).items():
        block = head_lines.get(held)
        if block is not None:
            doing = f"fold {entry!r} into it"
            for at in range(block.start + 1, block.head_end + 1):
                _check_not_newer(snap.line_since(target, at), proposal, target, held, doing)
    present = {e.text for e in entries.list_entries(before)}
    skip = {*leave_out, *chosen, *(fold or {}), *(r.new for r in found), *present}
    changed: dict[str, str] = {}
    moved: list[facts.Restatement] = []

    def read(path: str) -> str | None:
        data = snap.read(path)
        return decode_text(data, path) if data is not None else None

    for restated in elsewhere(hot_files(snap), read, target, proposal, skip):
        current = changed.get(restated.path) or (others or {}).get(restated.path)
        if current is None:
            current = target_text(snap, restated.path)
        try:
            changed[restated.path] = entries.replace_entry(current, restated.old, restated.new)
        except (EntryMissing, Conflict):  # changed by this very batch: added as before
            continue
        moved.append(restated)
    kept = [
        _kept(snap, r.path or target, committed or before, r, proposal, now, key)
        for r in (*found, *moved)
    ]
    auto = {r.new: r.old for r in found}
    text, added, note = merged_text(
        before, proposal, leave_out, {**chosen, **auto}, fold, [r.new for r in moved]
    )
    return MergedEntries(text, added, note, (*found, *moved), tuple(kept), changed)


def _kept(
    snap: Snapshot,
    target: str,
    before: str,
    restated: facts.Restatement,
    proposal: records.Proposal,
    now: dt.datetime,
    key: str,
) -> FileChange:
    """The record of ``restated``'s old entry, held in ``target`` (``before``,
    its text at HEAD, unless it is another hot file), with the dates it held;
    refused when a person edited any line of it after the proposal was made."""
    if restated.path:
        before = target_text(snap, restated.path)
    block = {b.text: b for b in _blocks(before)}.get(restated.old)
    line = block.start + 1 if block is not None else None
    # An entry of this very merge that a later one replaces held for no commit.
    since = snap.line_since(target, line) if line is not None else None
    doing = f"replace that entry with {restated.new!r}"
    if block is not None:
        # A person's edit of any line of the entry (a wrapped one too) is theirs.
        for later in range(block.start + 2, block.head_end + 1):
            _check_not_newer(snap.line_since(target, later), proposal, target, restated.old, doing)
    _check_not_newer(since, proposal, target, restated.old, doing)
    day = now.astimezone(dt.UTC).date().isoformat()
    held_from = dt.datetime.fromtimestamp(since[0], dt.UTC).date().isoformat() if since else ""
    if line is None:
        held_from = day
    path = facts.superseded_path(day, restated.old, str(uuid.uuid4()))
    text = facts.superseded_record(target, restated, held_from, day, key)
    return FileChange(path, text.encode())


def _blocks(text: str) -> list[entries.Block]:
    return entries.entry_blocks(text.replace("\r\n", "\n").split("\n"))


def _check_not_newer(
    since: tuple[int, str] | None,
    proposal: records.Proposal,
    target: str,
    old: str,
    doing: str,
) -> None:
    if since is None or parse_trailers(since[1]).get("Hearth-Op") in _MERGES:
        return
    # hearth's ``2026-11-22T09:30:00Z`` or LionClaw's ``...09:30:00.123456789+00:00 UTC``.
    # When it was first made: an update by title (another entry) comes later,
    # and would hide the person's edit made in between.
    made_at = proposal.created or proposal.updated
    stamp = made_at.removesuffix(" UTC").replace("Z", "+00:00")
    try:
        made = dt.datetime.fromisoformat(re.sub(r"(\.\d{6})\d+", r"\1", stamp))
    except ValueError:
        return
    if made.tzinfo is None:
        made = made.replace(tzinfo=dt.UTC)
    if since[0] > made.timestamp():
        raise Conflict(
            f"{target}'s entry {old!r} was changed after this proposal was made, "
            f"and merging it would {doing}; "
            "reject the proposal, or edit its entries, then merge"
        )
