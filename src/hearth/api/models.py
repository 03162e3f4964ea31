"""Request and response bodies of the HTTP API; the results every surface
shares are declared once in ``hearth.answers`` and named here too."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from hearth.answers import (
    MAX_ITEMS,
    MAX_LINE_CHARS,
    MAX_RATIONALE_CHARS,
    MAX_REASON_CHARS,
    MAX_RECORD_TEXT_CHARS,
    MAX_REVISION_CHARS,
    MAX_SOURCE_CHARS,
    MAX_SUBJECT_CHARS,
    PATH_SCHEMA,
    Commit,
    ContextBundle,
    ContextFile,
    Decision,
    Decisions,
    Diff,
    EntriesFile,
    EntryLine,
    ErrorBody,
    ErrorDetail,
    History,
    Loop,
    Loops,
    LoopWritten,
    MergeWritten,
    NamedTitle,
    Passage,
    ProposedEntry,
    Reason,
    Record,
    RecordKey,
    SearchHit,
    SearchResult,
    Status,
    Title,
    VectorCoverage,
    Written,
)
from hearth.app.writes.batch import MAX_BATCH
from hearth.domain.layout import USER_ID_PATTERN
from hearth.domain.records import MAX_TITLE_CHARS
from hearth.domain.text import NOT_BLANK, PLAIN
from hearth.review_answers import (
    BatchWritten,
    EntryMatch,
    EntryMatches,
    Movable,
    OverBound,
    Proposal,
    Proposals,
    ReviewSummary,
)

__all__ = [
    "BatchWritten",
    "Commit",
    "Consolidated",
    "Consolidation",
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
    "LoopWritten",
    "Loops",
    "ManyProposals",
    "ManyRejected",
    "MergeWritten",
    "Movable",
    "NewDecision",
    "NewEntry",
    "NewLoop",
    "NewProposal",
    "NewToken",
    "OverBound",
    "PassResult",
    "Passage",
    "Proposal",
    "Proposals",
    "PutFile",
    "Record",
    "Reindexed",
    "Rejection",
    "Resolution",
    "Restoration",
    "ReviewSummary",
    "RollupWeek",
    "SearchHit",
    "SearchResult",
    "Settlement",
    "Status",
    "Strict",
    "TokenMade",
    "TokenView",
    "Tokens",
    "TopicNote",
    "VectorCoverage",
    "Withdrawal",
    "Written",
]


def _plain_strings(schema: dict[str, Any]) -> None:
    """Say in the schema what every write refuses (``text.refuse_not_text``): each
    string without a pattern of its own holds no control character."""
    if schema.get("type") == "string" and not {"pattern", "enum", "const"} & schema.keys():
        schema["pattern"] = PLAIN
    for value in schema.values():
        if isinstance(value, dict):
            _plain_strings(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    _plain_strings(item)


class Strict(BaseModel):
    """A request body: no unknown field, and its strings are text."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_plain_strings)


# -- requests ------------------------------------------------------------------


class PutFile(Strict):
    content: str
    expected_oid: str | None = Field(None, pattern=r"^[0-9a-f]{40}$")
    message: str | None = Field(None, max_length=MAX_SUBJECT_CHARS)


class DailyEntry(Strict):
    text: str = Field(min_length=1, json_schema_extra={"pattern": NOT_BLANK})
    title: str | None = Field(None, max_length=MAX_TITLE_CHARS)


class NewProposal(Strict):
    title: Title
    entries: list[ProposedEntry] = Field(min_length=1, max_length=MAX_ITEMS)
    target: EntriesFile | None = None
    rationale: str = Field("", max_length=MAX_RATIONALE_CHARS)
    source: str = Field("", max_length=MAX_SOURCE_CHARS)


class Rejection(Strict):
    reason: Reason


class MergeVersion(Strict):
    version: str | None = Field(
        None,
        pattern=r"^[0-9a-f]{12,40}$",
        description="The proposal's oid as it was read (GET /v1/proposals, GET /v1/files): "
        "a proposal changed since is refused with 409 stale_write",
    )


class NewEntry(Strict):
    entry: EntryLine
    #: A file of named sections (USER.md): the ``## <section>`` it goes under.
    section: str | None = Field(None, min_length=1, max_length=200)


class EntryReplacement(Strict):
    #: The entry's exact text, or ``#N`` for the Nth entry.
    old: EntryLine
    new: EntryLine


class EntryView(BaseModel):
    number: int
    text: str
    line: int


class EntryList(BaseModel):
    path: str
    entries: list[EntryView]


class NewLoop(Strict):
    title: Title
    summary: str = Field("", max_length=MAX_RECORD_TEXT_CHARS)
    next_step: str = Field("", max_length=MAX_LINE_CHARS)
    source: str = Field("", max_length=MAX_SOURCE_CHARS)


class Resolution(Strict):
    note: str = Field("", max_length=MAX_REASON_CHARS)


class NewDecision(Strict):
    title: NamedTitle
    decision: str = Field(
        min_length=1, max_length=MAX_RECORD_TEXT_CHARS, json_schema_extra={"pattern": NOT_BLANK}
    )
    why: str = Field("", max_length=MAX_LINE_CHARS)
    source: str = Field("", max_length=MAX_SOURCE_CHARS)


class Withdrawal(Strict):
    reason: Reason


#: Path -> blob id, at most two files a proposal (its own and its target's).
Seen = Annotated[
    dict[str, str | None],
    Field(max_length=2 * MAX_BATCH),
    WithJsonSchema(
        {
            "type": "object",
            "propertyNames": PATH_SCHEMA,
            "additionalProperties": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "maxProperties": 2 * MAX_BATCH,
        }
    ),
]


class ManyProposals(Strict):
    keys: list[RecordKey] = Field(min_length=1, max_length=MAX_BATCH)
    #: The proposal files' (and targets') blob ids the caller saw: refused (409) when
    #: one moved since. Path -> blob id (null: the file was absent).
    expected: Seen | None = None


class ManyRejected(ManyProposals):
    reason: Reason


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


#: The longest topic note a request carries (as the MCP tool's).
MAX_TOPIC_CHARS = 1_000_000
MAX_WEEK_CHARS = 20
MAX_TOKEN_NAME_CHARS = 64
#: A hot file with a size bound: what consolidation looks at.
HotFile = Annotated[
    str,
    # In the schema only (the check is consolidation's own): its look-ahead is
    # beyond pydantic's regex engine.
    Field(
        json_schema_extra={
            "pattern": r"^(?:USER\.md|MEMORY\.md|users/"
            + USER_ID_PATTERN.removeprefix("^").removesuffix("$")
            + r"\.md)$"
        }
    ),
]


# -- the home's other writes (``routes_home.py``) --------------------------------


class Restoration(Strict):
    path: str = Field(json_schema_extra=PATH_SCHEMA)
    #: A commit, branch or tag (``git rev-parse`` spelling) the file is brought back from.
    rev: str = Field(min_length=1, max_length=MAX_REVISION_CHARS)


class TopicNote(Strict):
    title: Title = Field(min_length=1)
    #: The note's whole text (creates or replaces it); or ``append``: a section to add.
    content: str | None = Field(None, max_length=MAX_TOPIC_CHARS)
    append: str | None = Field(
        None, max_length=MAX_TOPIC_CHARS, json_schema_extra={"pattern": NOT_BLANK}
    )


class Settlement(Strict):
    #: ``file``: the version in the file stays; ``other``: the other machine's does.
    keep: Literal["file", "other"]


class RollupWeek(Strict):
    #: An ISO week, ``YYYY-Www`` (default: last week).
    week: str | None = Field(None, max_length=MAX_WEEK_CHARS, pattern=r"^[0-9]{4}-W[0-9]{2}$")


class Consolidation(Strict):
    #: The hot files to look at (default: USER.md, MEMORY.md and every users/<id>.md).
    files: list[HotFile] = Field(default_factory=list, max_length=MAX_ITEMS)


class Consolidated(BaseModel):
    proposed: list[str]


class Reindexed(PassResult):
    #: Sections embedded before answering (the server's own filler embeds in the
    #: background, so a served pass answers 0).
    embedded: int = 0
    #: Sections without a vector when it answered: what the server's filler
    #: still embeds in the background (null: semantic ranking off).
    to_embed: int | None = None


class NewToken(Strict):
    name: str = Field(
        min_length=1, max_length=MAX_TOKEN_NAME_CHARS, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
    )
    scope: Literal["read", "write", "admin"]


class TokenMade(BaseModel):
    #: The token itself, shown this once (only its hash is kept).
    token: str
    name: str
    scope: str


class TokenView(BaseModel):
    name: str
    scope: str
    created: str


class Tokens(BaseModel):
    tokens: list[TokenView]
