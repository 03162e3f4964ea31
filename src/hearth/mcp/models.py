"""What the MCP tools answer: pydantic models, so each tool publishes an output
schema and its structured content is checked against it. The results HTTP sends
too are declared once in ``hearth.answers``; only MCP's own are here."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from hearth.answers import (
    Commit,
    ContextBundle,
    Decisions,
    Diff,
    ErrorBody,
    History,
    LoopWritten,
    MergeWritten,
    SearchResult,
    Status,
    Written,
)
from hearth.review_answers import (
    BatchWritten,
    Review,
)

__all__ = [
    "BatchWritten",
    "Commit",
    "ContextBundle",
    "Decisions",
    "Diff",
    "Entry",
    "ErrorBody",
    "History",
    "LoopWritten",
    "MemoryResult",
    "MergeWritten",
    "ReadResult",
    "Review",
    "SearchResult",
    "Status",
    "Written",
]


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
