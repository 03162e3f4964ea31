"""What hearth answers about proposals and their review, the same on every
surface: a proposal with what is like each of its entries, whether merging it
would push its target over the bound (and what could move to make room), the
entries it restates, the review's groups and threshold, and a batch of merges
or rejections. The answers every record kind shares (``Record``, loops,
decisions) and the rest are in ``answers.py``; both are sent by HTTP
(``api/models.py``) and MCP (``mcp/models.py``) alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from hearth.answers import Loop, Record, Replacement

if TYPE_CHECKING:
    from hearth.app.results import BatchResult


class EntryMatch(BaseModel):
    """An entry like a proposed one: the home holds it (``known``) or another
    pending proposal does (``proposed``, with its ``key``)."""

    text: str
    path: str
    line: int
    #: How close, 0..1 (1: the same text); "nearly the same" from ``[review] threshold``.
    score: float
    exact: bool
    where: Literal["known", "proposed"]
    key: str | None = None


class EntryMatches(BaseModel):
    entry: str
    known: bool
    matches: list[EntryMatch]


class Movable(BaseModel):
    text: str
    line: int
    #: The topic note to move it to, and the one-line pointer to leave in its place.
    topic: str | None = None
    topic_path: str | None = None
    pointer: str | None = None
    #: Characters the move frees (the entry's length less the pointer's).
    frees: int | None = None
    #: ``repeated`` (the home holds it elsewhere too) or ``older``.
    why: str | None = None


class OverBound(BaseModel):
    """Merging would push ``target`` over its bound (the merge would be refused)."""

    target: str
    chars: int
    bound: int
    #: The target's length now (``chars`` is after the merge).
    chars_now: int | None = None
    over_by: int
    #: Entries of the target to move to a topic note, each leaving its pointer,
    #: repeated ones first, then the oldest, until the merge fits.
    movable: list[Movable]


class Fold(BaseModel):
    """A known entry that adds words to the target's entry ``into`` (at ``line``):
    the review page's merge folds it in, and that line then reads ``becomes``."""

    entry: str
    into: str
    path: str
    line: int
    becomes: str


class Proposal(Record):
    target: str | None = None
    rationale: str | None = None
    entries: list[str] | None = None
    #: Proposed entries with what is like them (only entries that have a match).
    matches: list[EntryMatches] | None = None
    #: How many of its entries the home already holds, the same or nearly.
    known_entries: int | None = None
    #: The first key of its group of near-duplicate proposals, if it is in one.
    group: str | None = None
    over_bound: OverBound | None = None
    replaces: list[Replacement] | None = None
    folds: list[Fold] | None = None
    #: A consolidation hearth proposed (docs/formats.md): ``move`` or ``fold``.
    consolidate: str | None = None
    #: A move's destination note, and the line either leaves in the target.
    destination: str | None = None
    leaves: str | None = None
    #: What moves where, what it frees, whether it still applies (``stale``).
    consolidation: dict[str, Any] | None = None
    #: What the review page offers first: ``merge``, ``reject`` or ``none``.
    default_action: str | None = None


class ReviewSummary(BaseModel):
    threshold: float
    #: ``words and meaning``, or ``words`` when semantic ranking is off.
    measures: str
    #: Groups of near-duplicate proposals (keys), each of two or more.
    groups: list[list[str]]
    #: By a group's first key: merging the whole group would push a target over
    #: its bound (each member may fit alone).
    group_over_bound: dict[str, OverBound] = {}


class BatchWritten(BaseModel):
    #: The one commit made for the whole batch; null when nothing changed.
    commit: str | None
    changed: bool
    keys: list[str]
    outcome: str
    added: int
    skipped: int


def batch_written(result: BatchResult) -> BatchWritten:
    """The answer to a merge or rejection of many proposals, on every surface."""
    return BatchWritten(
        commit=result.commit,
        changed=result.changed,
        keys=list(result.keys),
        outcome=result.outcome,
        added=result.added,
        skipped=result.skipped,
    )


class Proposals(BaseModel):
    proposals: list[Proposal]
    review: ReviewSummary | None = None


class Review(BaseModel):
    proposals: list[Proposal]
    loops: list[Loop]
    #: The threshold and measures of "nearly the same", and the groups of
    #: near-duplicate proposals (keys).
    review: ReviewSummary | None = None
