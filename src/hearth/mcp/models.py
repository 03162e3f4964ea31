"""What the MCP tools answer: pydantic models, so each tool publishes an output
schema and its structured content is checked against it (pydantic lives only
at the edges)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class SearchHit(BaseModel):
    path: str
    start_line: int
    end_line: int
    title: str
    heading: str
    kind: str
    date: str
    score: float
    snippet: str


class SearchResult(BaseModel):
    hits: list[SearchHit]
    #: False when the index may lag the files (a pass pending, a failed pass).
    fresh: bool
    #: Why the index is not fresh; null when it is.
    stale_reason: str | None = None
    #: ``hybrid`` (keywords fused with meaning) or ``keyword`` (semantic ranking
    #: off, or the vectors not filled in yet).
    ranking: str = "keyword"


class ReadResult(BaseModel):
    path: str
    #: The git blob id of the whole file as read: pass it to `write` as expected_oid.
    oid: str
    #: The last commit that touched the file (null if never committed).
    commit: str | None
    #: The file has uncommitted edits.
    dirty: bool
    start_line: int
    end_line: int
    total_lines: int
    #: The range was cut at the per-call maximum; read on from end_line + 1.
    truncated: bool
    #: The lines, each as "<number>\t<text>" (numbers are 1-based file lines).
    text: str


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
    #: Something was cut to fit the budget (each file and passage says which).
    truncated: bool
    total_chars: int
    files: list[ContextFile]
    query: str | None = None
    recall: list[Passage] = []


class Record(BaseModel):
    """A proposal or an open loop; a file that does not parse has only ``error``."""

    model_config = ConfigDict(extra="allow")

    key: str
    path: str
    title: str | None = None
    status: str | None = None
    error: str | None = None


class Review(BaseModel):
    proposals: list[Record]
    loops: list[Record]
    #: The threshold and measures of "nearly the same", and the groups of
    #: near-duplicate proposals (keys).
    review: dict[str, Any] | None = None


class BatchWritten(BaseModel):
    #: The one commit made for the whole batch; null when nothing changed.
    commit: str | None
    changed: bool
    keys: list[str]
    outcome: str
    added: int
    skipped: int


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
    model_config = ConfigDict(populate_by_name=True)

    #: The file diffed, or null for the whole home.
    path: str | None
    from_rev: str = Field(alias="from")
    to_rev: str = Field(alias="to")
    #: The files that differ (whole-home diffs only).
    files: list[str] | None = None
    #: Files left out past the per-call maximum (whole-home diffs only).
    skipped: list[str] | None = None
    diff: str


class Status(BaseModel):
    model_config = ConfigDict(extra="allow")

    home: str
    branch: str | None
    head: str | None
    dirty: bool
    pending_proposals: int
    open_loops: int
    index: dict[str, Any]


class Written(BaseModel):
    #: The commit made; null when nothing changed.
    commit: str | None
    path: str
    changed: bool
    #: The record's key (proposals and loops).
    key: str | None = None


class Entry(BaseModel):
    number: int
    text: str
    line: int


class MemoryResult(BaseModel):
    op: Literal["add", "replace", "remove", "list"]
    path: str
    #: The file's entries (op list only).
    entries: list[Entry] | None = None
    #: The commit made (add, replace, remove); null when nothing changed.
    commit: str | None = None
    changed: bool = False


class ErrorDetail(BaseModel):
    code: str
    message: str
    detail: Any = None


class ErrorBody(BaseModel):
    error: ErrorDetail
