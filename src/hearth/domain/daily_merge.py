"""Merging two machines' versions of one daily note, entry by entry.

A daily note is a preamble (``# YYYY-MM-DD`` and whatever precedes the first
entry) and entries, each a ``## HH:MM ...`` heading with the lines under it
(a ``## `` line that is not a time, or any line inside a code fence, stays
part of the entry it is in). Git's line merge gets this wrong both ways: a
conflict when both sides appended at the end, and, with ``merge=union``, two
same-minute entries glued under one heading. This merges whole entries:

- an entry is compared by its text; the merge is three-way on how many times
  each text occurs (base, ours, theirs), so an entry added on one side is
  added, one removed or edited on one side is removed or edited, and the same
  entry added on both sides appears once;
- the result keeps ours' entries in their order, adds theirs' new ones, and
  orders all by the time in their heading (stable: same-minute entries keep
  ours first);
- the preamble is taken from the side that changed it; when both changed it
  differently there is no safe answer and the merge reports a conflict.

Nothing here reads files or knows about git: str in, str (or None) out.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

_ENTRY_HEADING = re.compile(r"^## (\d{2}):(\d{2})\b")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class DailyNote:
    preamble: str
    entries: tuple[str, ...]


def parse_daily(text: str) -> DailyNote:
    """Split a daily note into its preamble and its entries (each without trailing blanks)."""
    blocks: list[list[str]] = [[]]
    fence: str | None = None
    for line in text.split("\n"):
        marker = _FENCE.match(line)
        if fence is None and marker:
            fence = marker.group(1)[0] * 3
        elif fence is not None and marker and marker.group(1).startswith(fence):
            fence = None
        elif fence is None and _ENTRY_HEADING.match(line):
            blocks.append([])
        blocks[-1].append(line)
    preamble, *entries = ("\n".join(block).rstrip() for block in blocks)
    return DailyNote(preamble, tuple(entries))


def render_daily(note: DailyNote) -> str:
    parts = [note.preamble] if note.preamble else []
    return "\n\n".join([*parts, *note.entries]) + "\n"


def _key(entry: str) -> str:
    """What makes two entries the same: their lines, ignoring trailing spaces."""
    return "\n".join(line.rstrip() for line in entry.split("\n"))


def _minute(entry: str) -> int:
    match = _ENTRY_HEADING.match(entry)
    assert match is not None  # every entry starts with its heading (parse_daily)
    return int(match.group(1)) * 60 + int(match.group(2))


def merge_daily(base: str, ours: str, theirs: str) -> str | None:
    """The three-way, entry-by-entry merge of a daily note; None on a conflict."""
    if theirs in (ours, base):
        return ours
    if ours == base:
        return theirs
    o, a, b = parse_daily(base), parse_daily(ours), parse_daily(theirs)
    if b.preamble in (a.preamble, o.preamble):
        preamble = a.preamble
    elif a.preamble == o.preamble:
        preamble = b.preamble
    else:
        return None
    counts_o = Counter(_key(e) for e in o.entries)
    counts_a = Counter(_key(e) for e in a.entries)
    counts_b = Counter(_key(e) for e in b.entries)
    wanted: dict[str, int] = {}
    for key in counts_a.keys() | counts_b.keys():
        base_n, ours_n, theirs_n = counts_o[key], counts_a[key], counts_b[key]
        if ours_n == base_n:
            wanted[key] = theirs_n
        elif theirs_n == base_n:
            wanted[key] = ours_n
        else:
            wanted[key] = max(ours_n, theirs_n)  # added (or kept) on both sides
    merged: list[str] = []
    for entry in (*a.entries, *b.entries):
        key = _key(entry)
        if wanted.get(key, 0) > 0:
            wanted[key] -= 1
            merged.append(entry)
    merged.sort(key=_minute)  # stable: ours first within a minute
    return render_daily(DailyNote(preamble, tuple(merged)))
