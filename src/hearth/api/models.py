"""Request and response bodies of the HTTP API (pydantic lives only at this edge)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from hearth.domain.layout import Kind


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- requests ------------------------------------------------------------------


class PutFile(Strict):
    content: str
    expected_oid: str | None = Field(None, pattern=r"^[0-9a-f]{40}$")
    message: str | None = Field(None, max_length=200)


class DailyEntry(Strict):
    text: str = Field(min_length=1)
    title: str | None = Field(None, max_length=200)


class NewProposal(Strict):
    title: str = Field(max_length=200)  # empty allowed, as in LionClaw: key item--<uuid5>
    entries: list[str] = Field(min_length=1, max_length=200)
    target: str | None = Field(None, max_length=1024)
    rationale: str = Field("", max_length=5000)
    source: str = Field("", max_length=500)


class Rejection(Strict):
    reason: str = Field(min_length=1, max_length=2000)


class NewEntry(Strict):
    entry: str = Field(min_length=1, max_length=2000)


class EntryReplacement(Strict):
    #: The entry's exact text, or ``#N`` for the Nth entry.
    old: str = Field(min_length=1, max_length=2000)
    new: str = Field(min_length=1, max_length=2000)


class EntryView(BaseModel):
    number: int
    text: str
    line: int


class EntryList(BaseModel):
    path: str
    entries: list[EntryView]


class NewLoop(Strict):
    title: str = Field(max_length=200)  # empty allowed, as in LionClaw: key item--<uuid5>
    summary: str = Field("", max_length=20000)
    next_step: str = Field("", max_length=2000)
    source: str = Field("", max_length=500)


class Resolution(Strict):
    note: str = Field("", max_length=2000)


# -- responses -----------------------------------------------------------------


class Health(BaseModel):
    ok: bool


class SearchHit(BaseModel):
    path: str
    start_line: int
    end_line: int
    title: str
    heading: str
    kind: Kind
    date: str
    score: float
    snippet: str


class VectorCoverage(BaseModel):
    model: str
    embedded: int
    sections: int
    complete: bool


class SearchResult(BaseModel):
    #: "hybrid" (keyword and semantic vectors fused) or "keyword".
    ranking: str = "keyword"
    #: How many sections have vectors yet; null when semantic ranking is off.
    vectors: VectorCoverage | None = None
    hits: list[SearchHit]


class FileView(BaseModel):
    path: str
    content: str
    oid: str
    commit: str | None
    dirty: bool
    rev: str | None = None


class Written(BaseModel):
    commit: str | None
    path: str
    changed: bool
    key: str | None = None


class ContextFile(BaseModel):
    path: str
    content: str
    chars: int
    truncated: bool
    missing: bool


class Passage(BaseModel):
    path: str
    start_line: int
    end_line: int
    heading: str
    text: str
    truncated: bool


class ContextBundle(BaseModel):
    session: Literal["main", "subagent"]
    truncated: bool
    total_chars: int
    files: list[ContextFile]
    #: The message the recall section answers, when one was given.
    query: str | None = None
    recall: list[Passage] = []


class Record(BaseModel):
    """What proposals and loops share; a file that does not parse has only ``error``."""

    key: str
    path: str
    title: str | None = None
    status: str | None = None
    created: str | None = None
    updated: str | None = None
    source: str | None = None
    #: ``front-matter`` (hearth's) or ``lionclaw`` (LionClaw's own format, kept as it is).
    style: str | None = None
    error: str | None = None


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


class OverBound(BaseModel):
    """Merging would push ``target`` over its bound (the merge would be refused)."""

    target: str
    chars: int
    bound: int
    over_by: int
    #: Entries of the target that could move to a topic note, longest first.
    movable: list[Movable]


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


class ReviewSummary(BaseModel):
    threshold: float
    #: ``words and meaning``, or ``words`` when semantic ranking is off.
    measures: str
    #: Groups of near-duplicate proposals (keys), each of two or more.
    groups: list[list[str]]
    #: By a group's first key: merging the whole group would push a target over
    #: its bound (each member may fit alone).
    group_over_bound: dict[str, OverBound] = {}


class Proposals(BaseModel):
    proposals: list[Proposal]
    review: ReviewSummary | None = None


class ManyProposals(Strict):
    keys: list[str] = Field(min_length=1, max_length=200)
    #: The proposal files' (and targets') blob ids the caller saw: refused (409) when
    #: one moved since. Path -> blob id (null: the file was absent).
    expected: dict[str, str | None] | None = Field(None, max_length=400)


class ManyRejected(ManyProposals):
    reason: str = Field(min_length=1, max_length=2000)


class BatchWritten(BaseModel):
    commit: str | None
    changed: bool
    keys: list[str]
    outcome: str
    added: int
    skipped: int


class Loop(Record):
    next_step: str | None = None
    summary: str | None = None


class Loops(BaseModel):
    loops: list[Loop]


class Commit(BaseModel):
    id: str
    time: str
    author: str
    email: str
    subject: str
    message: str
    trailers: dict[str, str]


class History(BaseModel):
    path: str
    commits: list[Commit]


class Diff(BaseModel):
    path: str
    from_rev: str = Field(alias="from")
    to_rev: str = Field(alias="to")
    diff: str

    model_config = ConfigDict(populate_by_name=True)


class PassResult(BaseModel):
    full: bool
    scanned: int
    hashed: int
    indexed: int
    removed: int
    parked: int
    errors: list[str]
    rebuilt: bool
    active_written: bool
    seconds: float


class Status(BaseModel):
    """The CLI's status plus the server's watcher, worker and scheduler."""

    model_config = ConfigDict(extra="allow")

    home: str
    branch: str | None
    head: str | None
    dirty: bool
    changes: list[dict[str, str]]
    pending_proposals: int
    open_loops: int
    index: dict[str, Any]
    watcher: dict[str, Any]
    worker: dict[str, Any]
    scheduler: dict[str, Any]
    locks: dict[str, Any]


class ErrorDetail(BaseModel):
    code: str
    message: str
    detail: Any = None


class ErrorBody(BaseModel):
    error: ErrorDetail
