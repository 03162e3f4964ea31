"""Entry files in a sync merge: which files merge entry by entry, and one
entry conflict settled on two machines, each its own way, before they met.

Settling keeps one version of the entry and removes the other. Two machines
that settle the same conflict differently each remove the version the other
kept: merged as two plain removals, the entry would be gone from the file with
no conflict left to say so. ``settled_apart`` finds such a conflict (its record
deleted on both sides, each side holding a different one of its versions) and
merges the file again with both versions counted as additions, so both stay,
and names them as a new entry conflict. A version against a removal settled
both ways (one side keeps the version, the other removes it) keeps the version
the same way, and names the conflict again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hearth.domain import layout
from hearth.domain.entries import entry_blocks, has_entries_section
from hearth.domain.entry_merge import (
    ConflictRecord,
    EntryConflict,
    EntryMerge,
    merge_entry_files,
    parse_record,
)

#: (revision, path) -> the file's text at that revision, or None when absent.
Version = Callable[[str, str], str | None]


def _shown(text: str) -> set[str]:
    """What the file's entries say, as a record shows them (sub-bullets after ' / ')."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return {block.key.replace("\n", " / ") for block in entry_blocks(lines)}


def _without(text: str, versions: set[str]) -> str:
    """``text`` without the entries that read as one of ``versions``."""
    lines = text.split("\n")
    for block in reversed(entry_blocks([line.removesuffix("\r") for line in lines])):
        if block.key.replace("\n", " / ") in versions:
            del lines[block.start : block.end]
    return "\n".join(lines)


def settled_apart(
    version: Version, base: str, changed: Sequence[set[str]]
) -> list[tuple[str, str, EntryConflict]]:
    """(entry file, its text merged again, the conflict to record) for every
    record both sides changed (``changed``: the paths each side changed since
    ``base``) by deleting it, while keeping different versions of its entry."""
    found: list[tuple[str, str, EntryConflict]] = []
    for path in sorted(changed[0] & changed[1]):
        if not path.startswith(layout.ENTRY_CONFLICTS_DIR + "/"):
            continue
        old = version(base, path)
        if old is None or version("HEAD", path) is not None:
            continue
        if version("MERGE_HEAD", path) is not None:
            continue
        record = parse_record(path, old)
        if record is None:
            continue
        texts = [version(rev, record.path) for rev in (base, "HEAD", "MERGE_HEAD")]
        if any(text is None for text in texts):
            continue
        base_text, ours, theirs = (t or "" for t in texts)
        conflict = _disagreement(record, _shown(ours), _shown(theirs))
        if conflict is None:
            continue
        versions = {record.kept} | ({record.other} if record.other is not None else set())
        merged = merge_entry_files(_without(base_text, versions), ours, theirs, markers=False)
        if merged.frame_conflict:
            continue
        found.append((record.path, merged.text, conflict))
    return found


def _disagreement(record: ConflictRecord, ours: set[str], theirs: set[str]) -> EntryConflict | None:
    """The conflict again when the two sides settled ``record`` differently:
    each keeping a different version, or (a version against a removal) one
    side keeping it and the other removing it."""
    if record.other is None:
        mine, yours = record.kept in ours, record.kept in theirs
        if mine == yours:
            return None
        return EntryConflict(record.base, record.kept, None, "ours" if mine else "theirs")
    versions = {record.kept, record.other}
    held, other = versions & ours, versions & theirs
    if len(held) != 1 or len(other) != 1 or held == other:
        return None
    return EntryConflict(record.base, held.pop(), other.pop(), "ours")


def merged_by_entries(path: str, texts: list[str]) -> bool:
    """Whether ``path`` merges entry by entry: a file the entry driver is named
    for, or one with an ``## Entries`` section on every side."""
    if not layout.takes_entries(path):
        return False
    named = path in ("USER.md", "MEMORY.md") or (path.startswith("users/") and path.count("/") == 1)
    return named or all(has_entries_section(t) for t in texts if t)


def entry_merge(path: str, base: bytes, ours: bytes, theirs: bytes) -> EntryMerge | None:
    """An entry file git could not merge (its frame changed two ways, added on
    both sides, or one the driver is not named for), merged entry by entry with
    ours' frame; None when it is not an entry file on every side."""
    try:
        texts = [data.decode("utf-8") for data in (base, ours, theirs)]
    except UnicodeDecodeError:
        return None
    if not merged_by_entries(path, texts):
        return None
    return merge_entry_files(*texts, markers=False)
