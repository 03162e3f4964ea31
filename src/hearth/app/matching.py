"""Review that keeps up: each pending proposal's entries against what the home holds.

For every entry of every pending proposal, ``ReviewMatcher.board`` finds the
entries that say the same or nearly the same (``domain/likeness.py``) in the
proposal's target, in USER.md and MEMORY.md (read from HEAD, as a merge reads
them), and in the other pending proposals; it groups proposals linked by such
an entry, and says which merges would push their target over its size bound.
The review page, ``hearth proposals``, ``GET /v1/proposals`` and the MCP
``review`` tool all show this one board.

Reflection asks the same matcher (``known``) before its proposals land, so an
entry the home already holds in other words is not proposed again.

Cost: terms are remembered per text, vectors are stored per text
(``index/likeness.py``), so after the first look only new entries are
embedded; the comparison is one matrix product for meaning and a term index
for words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hearth.app.writer import check_proposal_target, new_target_text
from hearth.domain import entries, layout, notes, records
from hearth.domain.likeness import (
    COSINE_FLOOR,
    EntryMatches,
    Held,
    OverBound,
    best_matches,
    groups,
    likeness,
    over_bound,
)
from hearth.domain.text import decode_text
from hearth.domain.validation import Bounds, bound_of
from hearth.errors import InvalidInput
from hearth.index.likeness import EntryLikeness

if TYPE_CHECKING:
    from hearth.store.catalog import RecordView
    from hearth.store.git import Snapshot

#: The files every proposal is compared with, beside its own target.
ALWAYS = ("USER.md", "MEMORY.md")


@dataclass(frozen=True)
class ProposalReview:
    """What review knows of one pending proposal beyond its record."""

    key: str
    matches: tuple[EntryMatches, ...]
    #: The key of the group's first proposal, when it is in a group.
    group: str | None = None
    over_bound: OverBound | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "matches": [m.as_dict() for m in self.matches if m.matches],
            "known_entries": sum(m.known for m in self.matches),
            "group": self.group,
            "over_bound": self.over_bound.as_dict() if self.over_bound else None,
        }


@dataclass(frozen=True)
class ReviewBoard:
    """Every pending proposal's review, and the groups of near-duplicate proposals."""

    threshold: float
    semantic: bool
    proposals: dict[str, ProposalReview] = field(default_factory=dict)
    groups: tuple[tuple[str, ...], ...] = ()

    def of(self, key: str) -> dict[str, object]:
        found = self.proposals.get(key)
        return found.as_dict() if found is not None else {}

    def summary(self) -> dict[str, object]:
        return {
            "threshold": self.threshold,
            "measures": "words and meaning" if self.semantic else "words",
            "groups": [list(g) for g in self.groups],
        }


class ReviewMatcher:
    def __init__(self, likeness_of: EntryLikeness, threshold: float, bounds: Bounds) -> None:
        self.likeness_of = likeness_of
        self.threshold = threshold
        self.bounds = bounds

    # -- the board -----------------------------------------------------------

    def board(
        self, snap: Snapshot, views: Sequence[RecordView], texts: dict[str, str]
    ) -> ReviewBoard:
        """``views``: the pending proposals; ``texts``: each one's file text by path
        (for the line of an entry that another proposal holds)."""
        pending = [
            (v.key, v.path, v.record) for v in views if isinstance(v.record, records.Proposal)
        ]
        held_files: dict[str, list[Held]] = {}
        file_texts: dict[str, str | None] = {}

        def held_in(path: str) -> list[Held]:
            if path not in held_files:
                text = _read(snap, path)
                file_texts[path] = text
                held_files[path] = [
                    Held(e.text, path, e.line) for e in entries.list_entries(text or "")
                ]
            return held_files[path]

        proposed: list[Held] = []
        for key, path, proposal in pending:
            lines = texts.get(path, "").split("\n")
            for entry in proposal.entries:
                proposed.append(Held(entry, path, _line_of(lines, entry), key))

        questions: list[tuple[str, str, list[Held]]] = []
        for key, _path, proposal in pending:
            target = _target(proposal)
            pool = list(held_in(target)) if target else []
            for extra in ALWAYS:
                if extra != target:
                    pool += held_in(extra)
            pool += [h for h in proposed if h.key != key]
            for entry in proposal.entries:
                questions.append((key, entry, pool))

        scored = self._score(questions)
        by_key: dict[str, list[EntryMatches]] = {}
        links: list[tuple[str, str]] = []
        for (key, entry, _pool), found in zip(questions, scored, strict=True):
            matches = best_matches(entry, found, self.threshold)
            by_key.setdefault(key, []).append(matches)
            links += [(key, m.key) for m in matches.matches if m.key]

        keys = [key for key, _p, _r in pending]
        found_groups = groups(keys, links)
        group_of = {k: g[0] for g in found_groups for k in g}
        reviews = {}
        for key, _path, proposal in pending:
            target = _target(proposal)
            over = None
            if target is not None:
                held_in(target)
                over = self._over(target, file_texts.get(target), proposal.entries)
            reviews[key] = ProposalReview(key, tuple(by_key.get(key, ())), group_of.get(key), over)
        return ReviewBoard(
            self.threshold,
            self.likeness_of.semantic,
            reviews,
            tuple(tuple(g) for g in found_groups),
        )

    def _over(self, target: str, text: str | None, proposed: Sequence[str]) -> OverBound | None:
        bound = bound_of(target, self.bounds)
        if bound is None:
            return None
        before = text if text is not None else new_target_text(target)
        after, _added = notes.add_entries(before, proposed)
        held = [(e.text, e.line) for e in entries.list_entries(before)]
        return over_bound(target, after, bound, held)

    # -- known before proposing (reflection) --------------------------------

    def known(
        self, snap: Snapshot, target: str, proposed: Sequence[str], pending: Sequence[Held]
    ) -> list[EntryMatches]:
        """For each of ``proposed`` (entries bound for ``target``), what the home
        (the target, USER.md, MEMORY.md) or ``pending`` already holds like it."""
        pool: list[Held] = []
        for path in dict.fromkeys((target, *ALWAYS)):
            text = _read(snap, path)
            pool += [Held(e.text, path, e.line) for e in entries.list_entries(text or "")]
        pool += pending
        scored = self._score([("", entry, pool) for entry in proposed])
        return [
            best_matches(entry, found, self.threshold)
            for entry, found in zip(proposed, scored, strict=True)
        ]

    # -- scores ------------------------------------------------------------------

    def _score(
        self, questions: Sequence[tuple[str, str, list[Held]]]
    ) -> list[list[tuple[Held, float]]]:
        """For each (key, entry, pool): the pool's entries worth scoring, with scores.

        A pair is scored when it shares a term, or when meaning is measured and
        its cosine is above the floor where likeness starts; every other pair
        scores 0 and is left out.
        """
        measure = self.likeness_of
        texts = {q[1] for q in questions} | {h.text for q in questions for h in q[2]}
        vectors = measure.vectors(sorted(texts)) if measure.semantic else {}
        answers: list[list[tuple[Held, float]]] = []
        matrices: dict[int, Any] = {}
        for _key, entry, pool in questions:
            terms = measure.terms(entry)
            cosines: list[float] | list[None] = [None] * len(pool)
            if vectors and pool:
                import numpy as np  # noqa: PLC0415  (only with vectors)

                matrix = matrices.get(id(pool))
                if matrix is None:
                    matrix = matrices[id(pool)] = np.stack([vectors[h.text] for h in pool])
                cosines = (matrix @ vectors[entry]).tolist()
            found = []
            for held, cosine in zip(pool, cosines, strict=True):
                if held.text == entry:
                    found.append((held, 1.0))
                    continue
                other = measure.terms(held.text)
                if not (terms & other) and (cosine is None or cosine <= COSINE_FLOOR):
                    continue
                found.append((held, likeness(terms, other, cosine)))
            answers.append(found)
        return answers


def _read(snap: Snapshot, path: str) -> str | None:
    data = snap.read(path)
    return decode_text(data, path) if data is not None else None


def _target(proposal: records.Proposal) -> str | None:
    try:
        return check_proposal_target(proposal.target or layout.DEFAULT_PROPOSAL_TARGET)
    except InvalidInput:
        return None


def _line_of(lines: list[str], entry: str) -> int:
    """The 1-based line of ``- entry`` in a record file (0 when not found)."""
    wanted = f"- {entry}"
    for n, line in enumerate(lines, 1):
        if line.strip() == wanted:
            return n
    return 0
