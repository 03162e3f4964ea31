"""Merging two machines' versions of an entry file (USER.md, MEMORY.md, ...), entry by entry.

An entry file is entries (``entries.entry_blocks``: a bullet with its wrapped
lines and sub-bullets) set in a frame: every other line (the title, a
preamble, headings, blank lines). The merge is three-way against the base:

- an entry is known by what it says, not where it stands: a move, a
  re-indent, a wrapped line, CRLF or trailing spaces change no entry;
- each side's fate of each base entry (kept, removed, replaced) comes from
  ``entry_fates.py``; kept on one side and removed or replaced on the other,
  the change applies, wherever the other side moved it;
- changed two different ways (replaced against replaced, or replaced against
  removed): every changed version stays in the file, side by side, and the
  merge names it as an ``EntryConflict`` for a person to settle;
- an entry added on either side is kept, once when both added it;
- where everything stands comes from a three-way line merge (``diff3.py``,
  git's rule) of the files with each entry folded into one item, so the frame
  merges as git merges it, and a move on one side carries the other side's
  edit with it. Entries that land in a region both sides changed are all
  kept; frame lines changed two ways are a frame conflict: git's markers,
  or (for ``hearth sync``, which must commit) ours.

The merged file keeps one line-ending style: the one a side changed to, else
the base's. Unchanged lines keep the indentation and wrapping a side gave
them. A merge never drops an entry to stay within a bound: bounds are checked
and reported elsewhere. Nothing here reads files or knows about git.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hearth.domain.diff3 import diff3
from hearth.domain.entries import entry_blocks, has_entries_section, is_crlf
from hearth.domain.entry_fates import Fates, Item, fates
from hearth.domain.layout import ENTRY_CONFLICTS_DIR

MARKERS = ("<<<<<<< ours", "=======", ">>>>>>> theirs")


@dataclass(frozen=True)
class EntryConflict:
    """One entry changed two different ways; ``kept`` and ``other`` are both in the file."""

    base: str
    kept: str
    #: The other side's text, or None when the other side removed the entry.
    other: str | None
    #: Which side's change is ``kept``: "ours" or "theirs".
    kept_side: str


@dataclass(frozen=True)
class EntryMerge:
    text: str
    conflicts: tuple[EntryConflict, ...] = ()
    #: Frame lines changed two ways: marked in ``text``, or resolved as ours.
    frame_conflict: bool = False


def _parse(text: str, adopted: bool) -> list[Item]:
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    items: list[Item] = []
    seen: Counter[str] = Counter()
    at = 0
    for block in entry_blocks(lines, adopted=adopted):
        items += [Item(line.rstrip(), (line,)) for line in lines[at : block.start]]
        seen[block.key] += 1
        norm = f"\0{seen[block.key]}\0{block.key}"
        items.append(Item(norm, tuple(lines[block.start : block.end]), block.key))
        at = block.end
    items += [Item(line.rstrip(), (line,)) for line in lines[at:]]
    return items


def _shown(item: Item) -> str:
    """An entry's text as a record shows it: its key, sub-bullets after ' / '."""
    return (item.key or "").replace("\n", " / ")


class _Outcome:
    """Which entries survive, what each side's base entries are called now, and
    which conflict version stands right after which."""

    def __init__(self, base: list[Item], ours: list[Item], theirs: list[Item]) -> None:
        self.survivors: dict[str, Item] = {}
        self.renamed: dict[str, str] = {}  # base and kept-side norm -> replacement
        self.renamed_theirs: dict[str, str] = {}  # theirs' conflict version -> ours'
        self.follow: dict[str, Item] = {}
        self.conflicts: list[EntryConflict] = []
        fa, fb = fates(base, ours), fates(base, theirs)
        by_ours = {it.norm: it for it in ours if it.entry}
        by_theirs = {it.norm: it for it in theirs if it.entry}
        for item in base:
            if item.entry:
                self._decide(item, fa, fb, by_ours, by_theirs)
        for added in (*fa.added, *fb.added):
            self.survivors.setdefault(added.norm, added)

    def _decide(
        self, item: Item, fa: Fates, fb: Fates, by_ours: dict[str, Item], by_theirs: dict[str, Item]
    ) -> None:
        norm = item.norm
        a, b = fa.changed.get(norm, item), fb.changed.get(norm, item)
        if a is item and b is item:
            mine, yours = by_ours[norm], by_theirs[norm]
            self.survivors[norm] = yours if mine.raw == item.raw else mine
        elif a is item or b is item:
            change = b if a is item else a
            if change is not None:
                self._replace(norm, change)
        elif a is not None and b is not None and a.norm == b.norm:
            self._replace(norm, a)
        elif a is not None or b is not None:
            kept = a if a is not None else b
            assert kept is not None
            self._replace(norm, kept)
            other: Item | None = b if a is not None else None
            if other is not None:
                self.survivors.setdefault(other.norm, other)
                self.renamed_theirs[other.norm] = kept.norm
                self.follow[kept.norm] = other
            side = "ours" if a is not None else "theirs"
            shown = None if other is None else _shown(other)
            self.conflicts.append(EntryConflict(_shown(item), _shown(kept), shown, side))

    def _replace(self, norm: str, change: Item) -> None:
        self.survivors.setdefault(change.norm, change)
        self.renamed[norm] = change.norm

    def tokens(self, items: list[Item], theirs: bool = False) -> list[tuple[str, Item]]:
        """``items`` as the placing merge sees them: renamed, and without entries
        that do not survive."""
        found = []
        for item in items:
            if not item.entry:
                found.append((item.norm, item))
                continue
            norm = self.renamed_theirs.get(item.norm, item.norm) if theirs else item.norm
            norm = self.renamed.get(norm, norm)
            if norm in self.survivors:
                found.append((norm, item))
        return found


_Token = tuple[str, Item]


def _frames(part: Sequence[_Token]) -> list[str]:
    return [norm for norm, item in part if not item.entry]


def _union(primary: Sequence[_Token], other: Sequence[_Token]) -> list[_Token]:
    """``primary``'s region, with the entries only ``other`` holds set after the
    entry they followed there (at the region's start when they led it)."""
    result = list(primary)
    front = 0
    for i, (norm, item) in enumerate(other):
        if not item.entry or any(n == norm for n, _ in result):
            continue
        before = [n for n, it in other[:i] if it.entry and any(n == m for m, _ in result)]
        if before:
            at = next(k for k, (m, _) in enumerate(result) if m == before[-1]) + 1
        elif all(it.entry for _, it in other[:i]):
            at, front = front, front + 1
        else:
            at = len(result)
        result.insert(at, (norm, item))
    return result


def _marked(ours: Sequence[_Token], theirs: Sequence[_Token], markers: bool) -> list[_Token]:
    """A region whose frame lines both sides changed: ours' leading entries, the
    two frames between git's markers (or ours alone), then every entry left."""
    lead = 0
    while lead < len(ours) and ours[lead][1].entry:
        lead += 1
    found = list(ours[:lead])
    mine = [t for t in ours if not t[1].entry]
    if markers:
        fence = [Item("\0marker", (line,)) for line in MARKERS]
        found += [(f.norm, f) for f in fence[:1]] + mine + [(fence[1].norm, fence[1])]
        found += [t for t in theirs if not t[1].entry] + [(fence[2].norm, fence[2])]
    else:
        found += mine
    entries = [t for t in ours[lead:] if t[1].entry] + [t for t in theirs if t[1].entry]
    return found + entries


def _placed(toks: Sequence[Sequence[_Token]], markers: bool) -> tuple[list[_Token], bool]:
    """Every item in its merged place (entries possibly twice or missing: see ``_settled``)."""
    o, a, b = toks
    out: list[_Token] = []
    conflict = False
    for chunk in diff3([t[0] for t in o], [t[0] for t in a], [t[0] for t in b]):
        ours = a[chunk.ours_at : chunk.ours_at + len(chunk.ours)]
        theirs = b[chunk.theirs_at : chunk.theirs_at + len(chunk.theirs)]
        base = o[chunk.base_at : chunk.base_at + len(chunk.base)]
        if chunk.stable:
            for (norm, mine), (_, other), (_, old) in zip(ours, theirs, base, strict=True):
                out.append((norm, other if mine.raw == old.raw else mine))
        elif chunk.clean is not None:
            out += ours if chunk.clean is chunk.ours else theirs
        elif _frames(ours) == _frames(base):
            out += _union(theirs, ours)
        elif _frames(theirs) in (_frames(base), _frames(ours)):
            out += _union(ours, theirs)
        else:
            conflict = True
            out += _marked(ours, theirs, markers)
    return out, conflict


def _settled(
    placed: list[_Token], toks: Sequence[Sequence[_Token]], outcome: _Outcome
) -> list[_Token]:
    """Each surviving entry exactly once: a duplicate dropped, one the placing
    left out set after what it followed on its side, a conflict's other version
    right after the version it stands beside."""
    final: list[_Token] = []
    seen: set[str] = set()
    for norm, item in placed:
        if item.entry:
            if norm in seen or norm not in outcome.survivors:
                continue
            seen.add(norm)
        final.append((norm, item))
    followers = {it.norm for it in outcome.follow.values()}

    def index_of(norm: str) -> int | None:
        return next((k for k, (n, _) in enumerate(final) if n == norm), None)

    for side in toks[1:]:
        for i, (norm, item) in enumerate(side):
            if not item.entry or norm in seen or norm in followers:
                continue
            final.insert(_after_prior(final, side[:i], index_of), (norm, item))
            seen.add(norm)
    for kept, other in outcome.follow.items():
        if other.norm not in seen:
            found = index_of(kept)
            final.insert(len(final) if found is None else found + 1, (other.norm, other))
            seen.add(other.norm)
    for norm, item in outcome.survivors.items():
        if norm not in seen:  # never expected: nothing written is lost, whatever the placing did
            last = max((k for k, (_, it) in enumerate(final) if it.entry), default=len(final) - 1)
            final.insert(last + 1, (norm, item))
            seen.add(norm)
    return final


def _after_prior(
    final: Sequence[_Token], before: Sequence[_Token], index_of: Callable[[str], int | None]
) -> int:
    """Where an entry the placing left out goes: after the nearest line that
    stood above it on its side and stands in ``final`` (a blank line is found
    by what it follows), then past the blank lines that stood between them."""
    blanks = 0
    for prior, _item in reversed(before):
        if not prior.strip():
            blanks += 1
            continue
        found = index_of(prior)
        if found is None:
            blanks = 0
            continue
        at = found + 1
        while blanks and at < len(final) and not final[at][0].strip():
            at, blanks = at + 1, blanks - 1
        return at
    return 0


def _rendered(items: Sequence[Item]) -> list[str]:
    """The items' lines. An entry set right below an entry that stands less
    deep (one side re-indented, the other added) would read as its sub-bullet:
    it is brought level with the entry above, so it stays an entry of its own."""
    lines: list[str] = []
    above: int | None = None  # the head's indent of the entry just above
    for item in items:
        raw = list(item.raw)
        if item.entry:
            depth = len(raw[0]) - len(raw[0].lstrip())
            if above is not None and depth > above:
                cut = depth - above
                raw = [line[cut:] if line[:cut].isspace() else line for line in raw]
                depth = above
            above = depth
        else:
            above = None
        lines += raw
    return lines


def merge_entry_files(base: str, ours: str, theirs: str, *, markers: bool = True) -> EntryMerge:
    """The three-way, entry-by-entry merge. Frame lines changed two ways are a
    ``frame_conflict``: between git's markers in the text, or, with ``markers``
    off, resolved as ours (the caller keeps theirs elsewhere)."""
    if theirs in (ours, base):
        return EntryMerge(ours)
    if ours == base:
        return EntryMerge(theirs)
    # Which lines are entries is decided alike for the three versions: when
    # they disagree on having an ``## Entries`` section (one side renamed or
    # removed its heading), every margin bullet is an entry in all three, so a
    # bullet is never an entry on one side and a frame line on another.
    adopted = len({has_entries_section(text) for text in (base, ours, theirs)}) > 1
    parsed = [_parse(text, adopted) for text in (base, ours, theirs)]
    outcome = _Outcome(*parsed)
    toks = (outcome.tokens(parsed[0]), outcome.tokens(parsed[1]), outcome.tokens(parsed[2], True))
    placed, conflict = _placed(toks, markers)
    final = _settled(placed, toks, outcome)
    lines = _rendered([outcome.survivors[n] if item.entry else item for n, item in final])
    styles = [is_crlf(text) for text in (base, ours, theirs)]
    crlf = styles[1] if styles[1] != styles[0] else styles[2]
    text = ("\r\n" if crlf else "\n").join(lines)
    return EntryMerge(text, tuple(outcome.conflicts), conflict)


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
        f"Two machines changed one entry of {path} in different ways. Both versions\n"
        "are in the file, side by side, so nothing is lost. Settle it with\n"
        f"`hearth memory settle {record_id} --keep file` (the first below) or\n"
        f"`--keep other`, or edit {path} yourself and delete this file in the same commit.\n\n"
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


# A plain ``git pull`` (or merge) runs the merge driver, which writes nothing
# into the work tree but the merged file: the conflicts it finds are noted in
# the repository's own folder instead (``.git/hearth/pulled-conflicts/``,
# local, never committed), in the record's words, for ``hearth memory
# conflicts``, ``hearth status`` and ``hearth memory settle`` to name until the
# file no longer holds both versions.

#: The folder of those notes, in the repository's git directory.
PULLED_DIR = "hearth/pulled-conflicts"


def pulled_name(path: str, conflict: EntryConflict) -> str:
    """The note's file name for a conflict of ``path``'s merge (``/`` kept out)."""
    return f"{path.replace('/', '%')}--{conflict_id(path, conflict)}.md"


def parse_pulled(name: str, text: str) -> ConflictRecord | None:
    """The conflict a note holds (``render_record``'s text); None when it is not one."""
    return parse_record(f"{ENTRY_CONFLICTS_DIR}/{name}", text)


def still_open(record: ConflictRecord, text: str) -> bool:
    """Whether ``text`` (the entry file) still holds both versions (the kept one
    alone, when the other side removed the entry): not yet settled."""
    lines = text.replace("\r\n", "\n").split("\n")
    held = {block.key.replace("\n", " / ") for block in entry_blocks(lines)}
    return record.kept in held and (record.other is None or record.other in held)


def record_note(record: ConflictRecord) -> str:
    """What status and ACTIVE.md say of an entry conflict to settle."""
    versions = (
        f"both in the file: «{record.kept}» and «{record.other}»"
        if record.other is not None
        else f"«{record.kept}» in the file, removed on one side"
    )
    return (
        f"entry conflict {record.id} in {record.path}: settle with "
        f"'hearth memory settle {record.id}'; {versions}"
    )


def conflict_note(path: str, text: str | None) -> str:
    """What status and ACTIVE.md say of a file under ``continuity/conflicts/``: an
    entry conflict to settle, or a whole-file copy to resolve. Worded the same on
    every machine (which machine merged is nobody's "other"); what matters comes
    first, since ACTIVE.md cuts a line at 200 characters."""
    record = parse_record(path, text) if text is not None else None
    if record is not None:
        return record_note(record)
    commit = path.removesuffix(".md").rpartition("--")[2]
    return (
        f"sync conflict: the version of commit {commit} is kept at {path}; merge what "
        "you want into the file, then delete the copy and commit"
    )
