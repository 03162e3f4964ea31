"""Review that keeps up: each pending proposal's entries against what the home holds.

For every entry of every pending proposal, ``ReviewMatcher.board`` finds the
entries that say the same or nearly the same (``domain/likeness.py``) in the
proposal's target, in USER.md and MEMORY.md (read from HEAD, as a merge reads
them), and in the other pending proposals; it groups proposals linked by such
an entry, and says which merges would push their target over its size bound
(``over_bound.py``).
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

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hearth.app.reads.over_bound import BoundCheck, TopicTexts, proposal_target
from hearth.app.reads.review_sorting import sorted_merge
from hearth.app.writes.supersede import restatements
from hearth.domain import consolidation, entries, records
from hearth.domain.facts import Restatement, restates
from hearth.domain.known_folds import Fold, HeldLike, Sorted
from hearth.domain.likeness import (
    EntryMatches,
    Held,
    OverBound,
    best_matches,
    groups,
)
from hearth.domain.text import decode_text
from hearth.domain.validation import Bounds
from hearth.index.likeness import EntryLikeness

if TYPE_CHECKING:
    from hearth.store.active_records import RecordView
    from hearth.store.plans import Snapshot

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
    #: Its entries that restate a fact of the target with a new value: a merge
    #: replaces that entry (``app/writes/supersede.py``).
    replaces: tuple[Restatement, ...] = ()
    #: A consolidation hearth proposed: what moves where (``consolidation.summary``).
    consolidation: dict[str, object] | None = None
    #: Its known entries that add words to a held entry of the target: a merge
    #: from the review page folds each into it (``domain/known_folds.py``).
    folds: tuple[Fold, ...] = ()
    #: Its known entries that add words to a held entry only outside the target:
    #: merged as new entries, so their words are kept.
    adds: tuple[str, ...] = ()
    #: By known entry: the held entry that says all of it (a restatement).
    said_by: Mapping[str, HeldLike] = field(default_factory=dict)

    @property
    def default_action(self) -> str:
        """What the review page offers first: ``merge`` (folding what adds to a
        held entry); ``reject`` when the home already says every entry, word
        for word or in other words; ``none`` when a merge would pass the bound (room
        is made first). A consolidation: ``merge``, as it drops no text; ``reject``
        once it is stale (hearth proposes again from the file as it is)."""
        if self.consolidation is not None:
            return "reject" if self.consolidation.get("stale") else "merge"
        if self.over_bound is not None:
            return "none"
        known = set(self.known)
        if self.matches and all(m.entry in known for m in self.matches):
            return "reject"
        return "merge"

    @property
    def known(self) -> tuple[str, ...]:
        """Its entries the home already holds (the same or nearly, every word
        of them): a merge from the review page leaves them out unless the person
        asks otherwise. An entry that replaces a fact with a new value is news,
        not known; one that adds words to a held entry is folded into it or
        added."""
        new = {r.new for r in self.replaces} | {f.entry for f in self.folds} | set(self.adds)
        return tuple(m.entry for m in self.matches if m.known and m.entry not in new)

    def restated(self) -> list[str]:
        """Each known entry with the held entry that says it, for a rejection's reason."""
        out = []
        for entry in self.known:
            held = self.said_by.get(entry)
            where = f" (said by {held.path} line {held.line}: {held.text})" if held else ""
            out.append(f"{entry}{where}")
        return out

    def as_dict(self) -> dict[str, object]:
        return {
            "matches": [m.as_dict() for m in self.matches if m.matches],
            "known_entries": len(self.known),
            "replaces": [r.as_dict() for r in self.replaces],
            "folds": [f.as_dict() for f in self.folds],
            "group": self.group,
            "over_bound": self.over_bound.as_dict() if self.over_bound else None,
            "consolidation": self.consolidation,
            "default_action": self.default_action,
        }


@dataclass(frozen=True)
class ReviewBoard:
    """Every pending proposal's review, and the groups of near-duplicate proposals."""

    threshold: float
    semantic: bool
    proposals: dict[str, ProposalReview] = field(default_factory=dict)
    groups: tuple[tuple[str, ...], ...] = ()
    #: By a group's first key: merging the whole group would push a target over its
    #: bound (each member may fit alone).
    group_over_bound: dict[str, OverBound] = field(default_factory=dict)

    def of(self, key: str) -> dict[str, object]:
        found = self.proposals.get(key)
        return found.as_dict() if found is not None else {}

    def summary(self) -> dict[str, object]:
        return {
            "threshold": self.threshold,
            "measures": "words and meaning" if self.semantic else "words",
            "groups": [list(g) for g in self.groups],
            "group_over_bound": {k: o.as_dict() for k, o in self.group_over_bound.items()},
        }

    def answer(self, views: Sequence[RecordView]) -> dict[str, object]:
        """The pending proposals ``views``, each with what review found for it,
        and the summary: the one shape of ``GET /v1/proposals``, ``hearth
        proposals --json`` and (with the loops) MCP's ``review``."""
        return {
            "proposals": [{**view.as_dict(), **self.of(view.key)} for view in views],
            "review": self.summary(),
        }


class ReviewMatcher:
    def __init__(self, likeness_of: EntryLikeness, threshold: float, bounds: Bounds) -> None:
        self.likeness_of = likeness_of
        self.threshold = threshold
        self.bounds = bounds

    def _subject_of(self, user_md: str | None) -> frozenset[str]:
        """The terms of the person's names as USER.md gives them (``Name:``,
        ``What to call them:``, ``Preferred name:``): the implicit subject of
        USER.md's entries, compared as absent on both sides."""
        found: set[str] = set()
        for name in person_names(user_md or ""):
            found |= self.likeness_of.terms(name)
        return frozenset(found)

    # -- the board -----------------------------------------------------------

    def files_read(self, views: Sequence[RecordView]) -> list[str]:
        """The files ``board`` reads from HEAD for ``views``: their targets, USER.md
        and MEMORY.md (a caller reads them under the home's lock)."""
        targets = (
            proposal_target(v.record) for v in views if isinstance(v.record, records.Proposal)
        )
        return list(dict.fromkeys([*(t for t in targets if t), *ALWAYS]))

    def board(
        self,
        files: Mapping[str, str | None],
        views: Sequence[RecordView],
        texts: Mapping[str, str],
        topics: Callable[[], Mapping[str, str]] | None = None,
    ) -> ReviewBoard:
        """``views``: the pending proposals; ``files``: the text at HEAD of each of
        ``files_read(views)`` (None: absent); ``texts``: each proposal's file text
        by path (for the line of an entry that another proposal holds);
        ``topics``: the topic notes' texts by path, asked for only when a merge
        is over its bound (an entry already in one is the first to move). Reads
        nothing itself, so it needs no lock: scoring may embed entries."""
        pending = [
            (v.key, v.path, v.record)
            for v in views
            if isinstance(v.record, records.Proposal) and not v.record.consolidate
        ]
        held_files: dict[str, list[Held]] = {}
        file_texts: dict[str, str | None] = {}

        def held_in(path: str) -> list[Held]:
            if path not in held_files:
                text = files.get(path)
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

        # One list of columns (the files' entries, then every proposed entry);
        # each question sees its target, USER.md, MEMORY.md and the others' entries.
        for _key, _path, proposal in pending:
            target = proposal_target(proposal)
            if target is not None:
                held_in(target)
        for extra in ALWAYS:
            held_in(extra)
        columns = [h for found in held_files.values() for h in found] + proposed
        questions: list[tuple[str, str, Callable[[Held], bool]]] = []
        for key, _path, proposal in pending:
            seen_paths = {proposal_target(proposal), *ALWAYS}
            for entry in proposal.entries:
                questions.append((key, entry, _sees(seen_paths, key, entry)))

        subject = self._subject_of(files.get("USER.md"))
        scored = self._score(questions, columns, subject)
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
        check = BoundCheck(
            self.bounds,
            functools.partial(self._repeated, held_files=held_files),
            TopicTexts(topics),
        )
        for key, _path, proposal in pending:
            target = proposal_target(proposal)
            over = None
            entry_matches = tuple(by_key.get(key, ()))
            restated = (
                restatements(file_texts.get(target) or "", proposal, (), {}) if target else []
            )
            sorting = Sorted({}, (), ())
            if target is not None:
                held = held_in(target)
                restated, sorting, new, swapped = sorted_merge(
                    proposal,
                    (target, held),
                    (file_texts, list(held_files)),
                    entry_matches,
                    restated,
                    self.likeness_of.terms,
                )
                over = check.merge(target, file_texts.get(target), held, new, swapped)
            reviews[key] = ProposalReview(
                key,
                entry_matches,
                group_of.get(key),
                over,
                tuple(restated),
                folds=sorting.folds,
                adds=sorting.new,
                said_by=sorting.restated,
            )
        for view in views:
            if isinstance(view.record, records.Proposal) and view.record.consolidate:
                made = consolidation.of_proposal(view.record)
                if made is not None:
                    summary = consolidation.summary(made, files.get(made.target))
                    reviews[view.key] = ProposalReview(view.key, (), consolidation=summary)
        proposals = {key: proposal for key, _path, proposal in pending}
        over_by_group = {}
        for group in found_groups:
            over = check.group([proposals[k] for k in group], file_texts, held_files)
            if over is not None:
                over_by_group[group[0]] = over
        return ReviewBoard(
            self.threshold,
            self.likeness_of.semantic,
            reviews,
            tuple(tuple(g) for g in found_groups),
            over_by_group,
        )

    def _repeated(self, found: list[Held], held_files: Mapping[str, list[Held]]) -> set[int]:
        """Lines of ``found`` (one file's entries) that the home holds elsewhere
        too, the same or nearly: in another of the files read, or twice in this one."""
        others = [h for held in held_files.values() for h in held]
        scored = self._score([("", h.text, _everything) for h in found], others)
        lines = set()
        for held, close in zip(found, scored, strict=True):
            if any(o.path != held.path or o.line != held.line for o, _score in close):
                lines.add(held.line)
        return lines

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
        subject = self._subject_of(_read(snap, "USER.md"))
        scored = self._score([("", entry, _everything) for entry in proposed], pool, subject)
        # A held entry the proposed one restates with a new value is not "known":
        # the proposal replaces it.
        return [
            best_matches(
                entry, [(h, v) for h, v in found if restates(entry, h.text) is None], self.threshold
            )
            for entry, found in zip(proposed, scored, strict=True)
        ]

    # -- scores ------------------------------------------------------------------

    def _score(
        self,
        questions: Sequence[tuple[str, str, Callable[[Held], bool]]],
        columns: Sequence[Held],
        subject: frozenset[str] = frozenset(),
    ) -> list[list[tuple[Held, float]]]:
        """For each (key, entry, sees): the columns it ``sees`` that score at or
        above the threshold (or hold the same text), with their scores. Every
        distinct entry is scored against every distinct column text in one
        matrix (``EntryLikeness.scores``); a question then reads the few columns
        over the threshold, not all of them."""
        import numpy as np  # noqa: PLC0415  (numpy only once a board is made)

        rows = list(dict.fromkeys(entry for _key, entry, _sees in questions))
        texts = list(dict.fromkeys(h.text for h in columns))
        text_at = {t: i for i, t in enumerate(texts)}
        column_text = np.fromiter((text_at[h.text] for h in columns), dtype=np.int64)
        matrix = self.likeness_of.scores(rows, texts, subject)
        row_at = {t: i for i, t in enumerate(rows)}
        answers: list[list[tuple[Held, float]]] = []
        for _key, entry, sees in questions:
            line = matrix[row_at[entry]][column_text] if len(columns) else np.zeros(0)
            close = line >= self.threshold
            if entry in text_at:
                close |= column_text == text_at[entry]
            answers.append(
                [
                    (columns[i], float(line[i]))
                    for i in np.flatnonzero(close).tolist()
                    if sees(columns[i])
                ]
            )
        return answers


_NAME_LINE = re.compile(
    r"^[-*\s]*\**(?:name|what to call them|preferred name|call them)\**\s*:\**\s*(.+)$",
    re.IGNORECASE,
)


def person_names(user_md: str) -> list[str]:
    """The person's names in USER.md (``**Name:** Sam``, ``- What to call them: Sammy``)."""
    found = []
    for line in user_md.splitlines():
        match = _NAME_LINE.match(line.strip())
        if match and match[1].strip(" *"):
            found.append(match[1].strip(" *"))
    return found


def _sees(paths: set[str | None], key: str, entry: str) -> Callable[[Held], bool]:
    """What a proposal's entry is compared with: entries of ``paths``, the
    entries of every other pending proposal, and its own proposal's other entries."""

    def sees(held: Held) -> bool:
        if held.key is None:
            return held.path in paths
        return held.key != key or held.text != entry

    return sees


def _everything(_held: Held) -> bool:
    return True


def _read(snap: Snapshot, path: str) -> str | None:
    data = snap.read(path)
    return decode_text(data, path) if data is not None else None


def _line_of(lines: list[str], entry: str) -> int:
    """The 1-based line of ``- entry`` in a record file (0 when not found)."""
    wanted = f"- {entry}"
    for n, line in enumerate(lines, 1):
        if line.strip() == wanted:
            return n
    return 0
