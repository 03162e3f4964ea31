"""Merging two machines' versions of an entry file (USER.md, MEMORY.md, ...), entry by entry.

An entry file is entries (its ``- `` lines, as ``entries.entry_lines`` finds
them) set in a frame: every other line (the title, a preamble a person wrote,
section headings, blank lines). Git's line merge of such a file drops an entry
when both machines appended one at the end (a conflict, and one side ends up a
whole-file copy) and can bring back an entry one machine removed. This merges
three-way against the merge base:

- the frame follows the whole-file rule: taken from the side that changed it;
  when both changed it differently there is no safe answer, and the merge
  reports a conflict (``None``), which sync turns into a whole-file copy;
- each side's entries are aligned with the base's (a line diff of the entry
  lists; an entry in a changed run counts as edited when its text is still
  alike the old one, else as removed beside an addition), so every base entry
  is kept, removed or replaced on each side;
- kept on one side and removed or replaced on the other: the change applies;
  the same change on both sides applies once;
- changed two different ways (replaced against replaced, or replaced against
  removed): the changed text stays in the file (ours when both replaced) and
  the other version is returned as an ``EntryConflict`` for a person to settle;
- an entry added on either side is kept, once when both added the same text,
  right after the base entry it followed on its side (ours before theirs);
- entries stay in the part of the frame they were in: an entry is placed after
  the frame line it followed on its side.

A merge never drops an entry to stay within a bound: bounds are checked and
reported elsewhere. Nothing here reads files or knows about git.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from hearth.domain.entries import entry_lines
from hearth.domain.layout import ENTRY_CONFLICTS_DIR


@dataclass(frozen=True)
class EntryConflict:
    """One entry changed two different ways; ``kept`` is in the file."""

    base: str
    kept: str
    #: The other side's text, or None when the other side removed the entry.
    other: str | None
    #: Which side's change is in the file: "ours" or "theirs".
    kept_side: str


@dataclass(frozen=True)
class EntryMerge:
    text: str
    conflicts: tuple[EntryConflict, ...] = ()


@dataclass(frozen=True)
class _Entry:
    gap: int  # how many frame lines precede it
    text: str
    line: str  # the line as written


@dataclass(frozen=True)
class _Parsed:
    frame: tuple[str, ...]
    entries: tuple[_Entry, ...]


def _parse(text: str) -> _Parsed:
    lines = text.split("\n")
    found = dict(entry_lines(lines))
    frame: list[str] = []
    held: list[_Entry] = []
    for i, line in enumerate(lines):
        if i in found:
            held.append(_Entry(len(frame), found[i], line))
        else:
            frame.append(line)
    return _Parsed(tuple(frame), tuple(held))


def _gap_map(side: Sequence[str], frame: Sequence[str]) -> list[int]:
    """For each gap of ``side``'s frame (0..len), the gap of ``frame`` it maps to:
    right after the frame line that the side line before the gap matches."""
    if tuple(side) == tuple(frame):
        return list(range(len(side) + 1))
    matched: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, list(side), list(frame), autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            matched[block.a + k] = block.b + k
    gaps = [0]
    for i in range(len(side)):
        gaps.append(matched[i] + 1 if i in matched else gaps[-1])
    return gaps


_KEEP = "keep"
_REMOVE = "remove"


@dataclass(frozen=True)
class _Side:
    #: For each base entry: _KEEP, _REMOVE, or the entry that replaced it.
    fates: tuple[str | _Entry, ...]
    #: Entries added after base entry i (key i + 1; key 0: before the first).
    added: dict[int, list[_Entry]]


def _align(base: Sequence[_Entry], side: Sequence[_Entry]) -> _Side:
    fates: list[str | _Entry] = [_REMOVE] * len(base)
    added: dict[int, list[_Entry]] = {}
    keys_base = [(e.gap, e.text) for e in base]
    keys_side = [(e.gap, e.text) for e in side]
    matcher = difflib.SequenceMatcher(None, keys_base, keys_side, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            fates[i1:i2] = [_KEEP] * (i2 - i1)
            continue
        # In a changed run, a side entry is the edit of the most alike base entry
        # still unpaired (in order), when it is alike enough (``memory replace``,
        # a person's edit); else it is an addition beside removals.
        next_base = i1
        for j in range(j1, j2):
            ratios = [(_likeness(base[i].text, side[j].text), i) for i in range(next_base, i2)]
            best = max(ratios, key=lambda r: (r[0], -r[1]), default=None)
            if tag == "replace" and best is not None and best[0] >= ALIKE:
                fates[best[1]] = side[j]
                next_base = best[1] + 1
            else:
                added.setdefault(next_base if next_base < i2 else i2, []).append(side[j])
    return _Side(tuple(fates), added)


#: How alike (difflib's ratio) an edited entry is to what it was.
ALIKE = 0.5


def _likeness(before: str, after: str) -> float:
    return difflib.SequenceMatcher(None, before, after, autojunk=False).ratio()


def _placed(
    base: _Entry, ours: str | _Entry, theirs: str | _Entry
) -> tuple[_Entry | None, EntryConflict | None]:
    """What a base entry becomes, and the conflict when both sides changed it differently."""
    if _KEEP in (ours, theirs):
        fate = theirs if ours == _KEEP else ours
        return (fate if isinstance(fate, _Entry) else base if fate == _KEEP else None), None
    if isinstance(ours, _Entry):
        if isinstance(theirs, _Entry) and theirs.text == ours.text:
            return ours, None
        other = theirs.text if isinstance(theirs, _Entry) else None
        return ours, EntryConflict(base.text, ours.text, other, "ours")
    if isinstance(theirs, _Entry):
        return theirs, EntryConflict(base.text, theirs.text, None, "theirs")
    return None, None  # removed on both sides


def merge_entry_files(base: str, ours: str, theirs: str) -> EntryMerge | None:
    """The three-way, entry-by-entry merge; None when the text around the entries
    was changed two different ways (the whole-file rule applies)."""
    if theirs in (ours, base):
        return EntryMerge(ours)
    if ours == base:
        return EntryMerge(theirs)
    o, a, b = _parse(base), _parse(ours), _parse(theirs)
    if a.frame in (o.frame, b.frame):
        frame = b.frame
    elif b.frame == o.frame:
        frame = a.frame
    else:
        return None

    def framed(parsed: _Parsed) -> list[_Entry]:
        gaps = _gap_map(parsed.frame, frame)
        return [_Entry(gaps[e.gap], e.text, e.line) for e in parsed.entries]

    base_entries, ours_entries, theirs_entries = framed(o), framed(a), framed(b)
    side_a = _align(base_entries, ours_entries)
    side_b = _align(base_entries, theirs_entries)
    merged: list[tuple[_Entry, bool]] = []  # (entry, a base entry both sides kept)
    conflicts: list[EntryConflict] = []
    for i in range(len(base_entries) + 1):
        if i > 0:
            base_entry = base_entries[i - 1]
            entry, conflict = _placed(base_entry, side_a.fates[i - 1], side_b.fates[i - 1])
            if entry is not None:
                merged.append((entry, entry is base_entry))
            if conflict is not None:
                conflicts.append(conflict)
        merged += [(e, False) for e in side_a.added.get(i, [])]
        merged += [(e, False) for e in side_b.added.get(i, [])]
    # The same text reached on both sides (added twice, or a replacement on one
    # side that the other added or reached from another entry) appears once.
    seen = {e.text for e, unchanged in merged if unchanged}
    kept: list[_Entry] = []
    for entry, unchanged in merged:
        if not unchanged:
            if entry.text in seen:
                continue
            seen.add(entry.text)
        kept.append(entry)
    kept.sort(key=lambda e: e.gap)  # stable: the order above within a gap
    lines: list[str] = []
    at = 0
    for g, frame_line in enumerate((*frame, None)):
        while at < len(kept) and kept[at].gap == g:
            lines.append(kept[at].line)
            at += 1
        if frame_line is not None:
            lines.append(frame_line)
    return EntryMerge("\n".join(lines), tuple(conflicts))


# -- entry conflicts as files --------------------------------------------------
#
# A conflict the merge reports is kept as a small markdown file under
# ``continuity/conflicts/entries/`` (``<file>--<id>.md``), committed with the
# merge by ``hearth sync``: it travels to every machine, status and ACTIVE.md
# list it, and settling it (``hearth memory settle``) is one commit that
# removes it.

_FIELDS = {"File": "path", "Before": "base", "In the file": "kept", "Other version": "other"}
_REMOVED = "(removed on the other side)"


@dataclass(frozen=True)
class ConflictRecord:
    id: str
    path: str  # the entry file
    base: str
    kept: str
    other: str | None

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def conflict_id(path: str, conflict: EntryConflict) -> str:
    raw = "\0".join((path, conflict.base, conflict.kept, conflict.other or ""))
    return hashlib.sha256(raw.encode()).hexdigest()[:10]


def record_path(path: str, record_id: str) -> str:
    return f"{ENTRY_CONFLICTS_DIR}/{path}--{record_id}.md"


def render_record(path: str, conflict: EntryConflict) -> tuple[str, str]:
    """(record path, record text) for one conflict of ``path``'s merge."""
    record_id = conflict_id(path, conflict)
    other = conflict.other if conflict.other is not None else _REMOVED
    text = (
        f"# Entry conflict in {path}\n\n"
        f"Two machines changed one entry of {path} in different ways. The file keeps\n"
        "one version; the other is below, so nothing is lost. Settle it with\n"
        f"`hearth memory settle {record_id} --keep file` (or `--keep other`), or edit\n"
        f"{path} yourself and delete this file in the same commit.\n\n"
        f"- File: {path}\n"
        f"- Before: {conflict.base}\n"
        f"- In the file: {conflict.kept}\n"
        f"- Other version: {other}\n"
    )
    return record_path(path, record_id), text


def parse_record(record: str, text: str) -> ConflictRecord | None:
    """The conflict a record file holds; None when it is not one (edited by hand)."""
    if not record.startswith(ENTRY_CONFLICTS_DIR + "/") or "--" not in record:
        return None
    record_id = record.rsplit("--", 1)[1].removesuffix(".md")
    values: dict[str, str] = {}
    for line in text.split("\n"):
        for label, name in _FIELDS.items():
            prefix = f"- {label}: "
            if line.startswith(prefix) and name not in values:
                values[name] = line[len(prefix) :].strip()
    if set(values) != set(_FIELDS.values()):
        return None
    other = None if values["other"] == _REMOVED else values["other"]
    return ConflictRecord(record_id, values["path"], values["base"], values["kept"], other)


def conflict_note(path: str, text: str | None) -> str:
    """What status and ACTIVE.md say of a file under ``continuity/conflicts/``: an
    entry conflict to settle, or a whole-file copy to resolve. Worded the same on
    every machine (which machine merged is nobody's "other"); what matters comes
    first, since ACTIVE.md cuts a line at 200 characters."""
    record = parse_record(path, text) if text is not None else None
    if record is not None:
        other = f"other: «{record.other}»" if record.other is not None else "other: removed"
        return (
            f"entry conflict {record.id} in {record.path}: settle with "
            f"'hearth memory settle {record.id}'; kept «{record.kept}», {other}"
        )
    commit = path.removesuffix(".md").rpartition("--")[2]
    return (
        f"sync conflict: the version of commit {commit} is kept at {path}; merge what "
        "you want into the file, then delete the copy and commit"
    )
