"""Request and response bodies of the HTTP API; the results every surface
shares are declared once in ``hearth.wire`` and named here too."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from hearth.wire import (
    BatchWritten,
    Commit,
    ContextBundle,
    ContextFile,
    Decision,
    Decisions,
    Diff,
    EntryMatch,
    EntryMatches,
    ErrorBody,
    ErrorDetail,
    History,
    Loop,
    Loops,
    Movable,
    OverBound,
    Passage,
    Proposal,
    Proposals,
    Record,
    ReviewSummary,
    SearchHit,
    SearchResult,
    Status,
    VectorCoverage,
    Written,
)

__all__ = [
    "BatchWritten",
    "Commit",
    "ContextBundle",
    "ContextFile",
    "DailyEntry",
    "Decision",
    "Decisions",
    "Diff",
    "EntryList",
    "EntryMatch",
    "EntryMatches",
    "EntryReplacement",
    "EntryView",
    "ErrorBody",
    "ErrorDetail",
    "FileView",
    "Health",
    "History",
    "Loop",
    "Loops",
    "ManyProposals",
    "ManyRejected",
    "Movable",
    "NewDecision",
    "NewEntry",
    "NewLoop",
    "NewProposal",
    "OverBound",
    "PassResult",
    "Passage",
    "Proposal",
    "Proposals",
    "PutFile",
    "Record",
    "Rejection",
    "Resolution",
    "ReviewSummary",
    "SearchHit",
    "SearchResult",
    "Status",
    "Strict",
    "VectorCoverage",
    "Withdrawal",
    "Written",
]


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


class NewDecision(Strict):
    title: str = Field(min_length=1, max_length=200)
    decision: str = Field(min_length=1, max_length=20000)
    why: str = Field("", max_length=2000)
    source: str = Field("", max_length=500)


class Withdrawal(Strict):
    reason: str = Field(min_length=1, max_length=2000)


class ManyProposals(Strict):
    keys: list[str] = Field(min_length=1, max_length=200)
    #: The proposal files' (and targets') blob ids the caller saw: refused (409) when
    #: one moved since. Path -> blob id (null: the file was absent).
    expected: dict[str, str | None] | None = Field(None, max_length=400)


class ManyRejected(ManyProposals):
    reason: str = Field(min_length=1, max_length=2000)


# -- responses -----------------------------------------------------------------


class Health(BaseModel):
    ok: bool


class FileView(BaseModel):
    path: str
    content: str
    oid: str
    commit: str | None
    dirty: bool
    rev: str | None = None


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
