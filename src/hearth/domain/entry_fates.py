"""What one side of a merge did to each entry of the base: kept, removed, or
replaced, and which of its entries are new.

An entry is known by what it says (``entries.Block.key``): a move, a
re-indent, a wrapped line or CRLF changes no entry. So a base entry whose key
the side still holds is kept, wherever it now stands; one whose key is gone
was removed, or replaced when exactly one new entry took its place and is
unmistakably an edit of it (``_alike``). When in doubt it counts as a removal
beside an addition: the merge then keeps the addition, so nothing written is
lost, where a wrong pairing would make a false conflict.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

#: How much of the longer entry's words an edit keeps (an edit of "Sam lives
#: in Porto" to "Sam lives in Braga" keeps three of four).
KEPT_WORDS = 0.6
_WORD = re.compile(r"\w+")
#: Most removed-and-added pairs of one slot compared as possible edits: past it
#: (a side that rewrote thousands of entries at once) every one of them counts as
#: a removal beside an addition, as in any doubt, and a merge stays linear.
MOST_PAIRS = 40_000


@dataclass(frozen=True)
class Item:
    """A line of the frame, or an entry folded into one item."""

    #: What the merge compares: a frame line without its trailing spaces, or an
    #: entry's key with its occurrence (``\0<n>\0<key>``).
    norm: str
    raw: tuple[str, ...]  # the lines as written, without line endings
    key: str | None = None  # the entry's key; None for a frame line

    @property
    def entry(self) -> bool:
        return self.key is not None


@dataclass(frozen=True)
class Fates:
    #: Base entries (by norm) this side no longer holds: what replaced each, or None.
    changed: dict[str, Item | None]
    #: This side's new entries that replace nothing.
    added: tuple[Item, ...]


def _words(text: str) -> Counter[str]:
    return Counter(w.lower() for w in _WORD.findall(text))


def _alike(before: str, after: str) -> bool:
    """Whether ``after`` is unmistakably an edit of ``before``: the same bullet
    with other sub-bullets, a fact extended or trimmed, or most words kept."""
    if before.split("\n", 1)[0] == after.split("\n", 1)[0]:
        return True
    old, new = _words(before), _words(after)
    sizes = sorted((sum(old.values()), sum(new.values())))
    common = sum((old & new).values())
    # Every word of the shorter kept (a fact extended or trimmed), or most words
    # of the longer.
    return (common == sizes[0] >= 2) or (sizes[1] > 0 and common / sizes[1] >= KEPT_WORDS)


def _slots(seq: Sequence[Item], anchors: set[str]) -> list[tuple[str | None, str | None]]:
    """For each item of ``seq``, the entries around it that both base and side
    hold (the nearest before and after): one pass each way, so a side of
    thousands of new entries costs no more than reading it."""
    before: list[str | None] = []
    last: str | None = None
    for it in seq:
        before.append(last)
        if it.norm in anchors:
            last = it.norm
    after: list[str | None] = [None] * len(seq)
    last = None
    for k in range(len(seq) - 1, -1, -1):
        after[k] = last
        if seq[k].norm in anchors:
            last = seq[k].norm
    return list(zip(before, after, strict=True))


def fates(base: Sequence[Item], side: Sequence[Item]) -> Fates:
    """What ``side`` did to ``base``'s entries (both given as items, frame included)."""
    old = [it for it in base if it.entry]
    new = [it for it in side if it.entry]
    old_norms, new_norms = {it.norm for it in old}, {it.norm for it in new}
    anchors = old_norms & new_norms
    old_slots, new_slots = _slots(old, anchors), _slots(new, anchors)
    removed = {it.norm: (it, old_slots[i]) for i, it in enumerate(old) if it.norm not in anchors}
    added = [(it, new_slots[j]) for j, it in enumerate(new) if it.norm not in anchors]
    # Only an entry removed and one added between the same anchors can be an
    # edit of each other: compare within each slot, never across the file.
    gone_at: dict[tuple[str | None, str | None], list[str]] = {}
    for norm, (_gone, where) in removed.items():
        gone_at.setdefault(where, []).append(norm)
    added_at = Counter(where for _it, where in added)
    candidates: dict[str, list[Item]] = {norm: [] for norm in removed}
    taken: dict[str, list[str]] = {it.norm: [] for it, _slot_ in added}
    for it, where in added:
        gone_here = gone_at.get(where, ())
        if len(gone_here) * added_at[where] > MOST_PAIRS:
            continue  # too many to tell which is an edit of which: none is (in doubt)
        for norm in gone_here:
            if _alike(removed[norm][0].key or "", it.key or ""):
                candidates[norm].append(it)
                taken[it.norm].append(norm)
    changed: dict[str, Item | None] = {}
    paired: set[str] = set()
    for norm in removed:
        found = candidates[norm]
        if len(found) == 1 and taken[found[0].norm] == [norm]:
            changed[norm] = found[0]
            paired.add(found[0].norm)
        else:
            changed[norm] = None
    return Fates(changed, tuple(it for it, _where in added if it.norm not in paired))
