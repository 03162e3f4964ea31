"""A three-way line merge (diff3), as git's ``merge-file`` does it, over any
hashable items: the regions where base, ours and theirs agree are kept, and
between them each changed region takes the side that changed it, either when
both made the same change, or a conflict when they changed it differently.

Pure: it knows nothing of files; ``entry_merge.py`` runs it over a file's lines
with each entry folded into one item.
"""

from __future__ import annotations

import difflib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)


@dataclass(frozen=True)
class Chunk(Generic[T]):
    """One region: ``stable`` when all three agree (then ``ours`` is it), else
    each side's items; ``*_at`` say where each side's items start."""

    stable: bool
    base: tuple[T, ...]
    ours: tuple[T, ...]
    theirs: tuple[T, ...]
    base_at: int
    ours_at: int
    theirs_at: int

    @property
    def clean(self) -> tuple[T, ...] | None:
        """The region merged, or None when both sides changed it differently."""
        if self.stable or self.theirs in (self.ours, self.base):
            return self.ours
        if self.ours == self.base:
            return self.theirs
        return None


def _matches(base: Sequence[T], side: Sequence[T]) -> dict[int, int]:
    matcher = difflib.SequenceMatcher(None, base, side, autojunk=False)
    found: dict[int, int] = {}
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            found[block.a + k] = block.b + k
    return found


def diff3(base: Sequence[T], ours: Sequence[T], theirs: Sequence[T]) -> list[Chunk[T]]:
    """The regions of the three-way merge, in order."""
    to_ours, to_theirs = _matches(base, ours), _matches(base, theirs)
    chunks: list[Chunk[T]] = []
    o = a = b = 0

    def emit(stable: bool, o2: int, a2: int, b2: int) -> None:
        if o2 > o or a2 > a or b2 > b:
            chunks.append(
                Chunk(stable, tuple(base[o:o2]), tuple(ours[a:a2]), tuple(theirs[b:b2]), o, a, b)
            )

    while True:
        run = 0
        while (
            o + run < len(base)
            and to_ours.get(o + run) == a + run
            and to_theirs.get(o + run) == b + run
        ):
            run += 1
        if run:
            emit(True, o + run, a + run, b + run)
            o, a, b = o + run, a + run, b + run
            continue
        nxt = next(
            (
                i
                for i in range(o, len(base))
                if to_ours.get(i, -1) >= a and to_theirs.get(i, -1) >= b
            ),
            None,
        )
        if nxt is None:
            emit(False, len(base), len(ours), len(theirs))
            return chunks
        emit(False, nxt, to_ours[nxt], to_theirs[nxt])
        o, a, b = nxt, to_ours[nxt], to_theirs[nxt]
