"""Review's question of size: would merging a pending proposal, or a group of
them at once, push its target over its size bound, and which of the target's
entries could move to a topic note to make room (repeated ones first, then
those a topic note already holds). ``ReviewMatcher.board``
(``review_board.py``) asks it for each proposal and each group, with the
likeness it scored (``repeated``) and the topic notes read at most once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from hearth.app.writes.writer import check_proposal_target, new_target_text
from hearth.domain import entries, layout, notes, records
from hearth.domain.likeness import Held, OverBound, over_bound
from hearth.domain.validation import Bounds, bound_of
from hearth.errors import InvalidInput


def proposal_target(proposal: records.Proposal) -> str | None:
    """The proposal's target file, None when it names no file a proposal may target."""
    try:
        return check_proposal_target(proposal.target or layout.DEFAULT_PROPOSAL_TARGET)
    except InvalidInput:
        return None


class TopicTexts:
    """The topic notes' texts, read at most once per board, and only if asked."""

    def __init__(self, read: Callable[[], Mapping[str, str]] | None) -> None:
        self.read = read
        self.found: Mapping[str, str] | None = None

    def __call__(self) -> Mapping[str, str]:
        if self.found is None:
            self.found = self.read() if self.read is not None else {}
        return self.found


@dataclass(frozen=True)
class BoundCheck:
    """The bound checks of one board: ``repeated`` gives the lines of a target's
    entries that the home holds elsewhere too (the board's likeness), and the
    topic notes are read at most once, only if a merge is over its bound."""

    bounds: Bounds
    repeated: Callable[[list[Held]], set[int]]
    topic_texts: TopicTexts

    def group(
        self,
        members: Sequence[records.Proposal],
        file_texts: Mapping[str, str | None],
        held_files: Mapping[str, list[Held]],
    ) -> OverBound | None:
        """The first target that merging all of ``members`` at once pushes over its bound."""
        after: dict[str, str] = {}
        for proposal in members:
            target = proposal_target(proposal)
            if target is None or bound_of(target, self.bounds) is None:
                continue
            text = after.get(target)
            if text is None:
                text = file_texts.get(target) or new_target_text(target)
            after[target], _added = notes.add_entries(text, proposal.entries)
        for target, text in after.items():
            found = held_files.get(target, [])
            held = [(h.text, h.line) for h in found]
            bound = bound_of(target, self.bounds)
            if bound is None or len(text) <= bound:
                continue
            now = len(file_texts.get(target) or "")
            again = self.repeated(found)
            in_topics = _in_topics(found, self.topic_texts())
            return over_bound(target, text, bound, held, again, now, in_topics)
        return None

    def merge(
        self,
        target: str,
        text: str | None,
        found: list[Held],
        proposed: Sequence[str],
        swapped: Mapping[str, str] | None = None,
    ) -> OverBound | None:
        """Whether merging ``proposed`` into ``target`` (its ``text``, its entries
        ``found``) pushes it over its bound, and what could move to make room.
        ``swapped``: proposed entries that take a held entry's place (new -> old)."""
        bound = bound_of(target, self.bounds)
        if bound is None:
            return None
        before = text if text is not None else new_target_text(target)
        # A merge adds at most each entry's line and a heading: well inside, no diff needed.
        if len(before) + sum(len(e) + 3 for e in proposed) + 20 <= bound:
            return None
        start = before
        for new, old in (swapped or {}).items():
            start = entries.replace_entry(start, old, new)
        after, _added = notes.add_entries(start, [e for e in proposed if e not in (swapped or {})])
        if len(after) <= bound:
            return None
        held = [(h.text, h.line) for h in found]
        again = self.repeated(found)
        in_topics = _in_topics(found, self.topic_texts())
        return over_bound(target, after, bound, held, again, len(text or ""), in_topics)


def _in_topics(found: Sequence[Held], topics: Mapping[str, str]) -> dict[int, str]:
    """Lines of ``found`` whose text a topic note already holds, with that note."""
    held = {}
    for entry in found:
        for path, text in topics.items():
            if entry.text in text:
                held[entry.line] = path
                break
    return held
