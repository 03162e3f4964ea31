"""What hearth answers, the same on every surface: the pydantic models of the
results that HTTP (``api/models.py``) and MCP (``mcp/models.py``) both send.

One declaration each, so a field reaches every surface or none: a search
result carries its ranking, its vector coverage and the index's freshness over
HTTP and MCP alike. What only one surface has (HTTP's request bodies, MCP's
line-numbered ``read``) stays in that edge's module. pydantic lives only at the
edges and here; the use cases answer dataclasses (``app/results.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from hearth.domain.entries import MAX_ENTRY_CHARS
from hearth.domain.keys import KEY_PATTERN, WHITE_SPACE_CLASS
from hearth.domain.layout import ENTRIES_FILE_PATTERN, MAX_USER_ID_CHARS, USER_ID_PATTERN, Kind
from hearth.domain.paths import MAX_PATH_CHARS, PATH_PATTERN
from hearth.domain.records import MAX_TITLE_CHARS
from hearth.domain.text import NOT_BLANK, ONE_LINE, not_blank

if TYPE_CHECKING:
    from hearth.app.results import WriteResult
    from hearth.index.ranking import SearchResult as Found


# -- what hearth takes --------------------------------------------------------
#
# The inputs HTTP (``api/models.py``, ``api/routes.py``) and MCP (``mcp/*tools.py``)
# both take, declared once, so the OpenAPI document and the MCP input schemas say
# what the server accepts: a request the schema calls valid is not refused for
# its form. Lengths are checked where they are declared (422 ``invalid_input``).
# The patterns are the domain's own (``domain/paths.py``, ``domain/layout.py``,
# ``domain/keys.py``, ``domain/text.py``), declared for the schema only: the
# domain's check enforces each, with its own answer (a bad path is 400
# ``path_refused``, a malformed key 404 ``not_found``), and the tests check that
# pattern and check agree.

#: A home-relative path (``paths.normalize``).
PATH_SCHEMA: dict[str, Any] = {
    "pattern": PATH_PATTERN,
    "minLength": 1,
    "maxLength": MAX_PATH_CHARS,
}
#: A file that takes memory entries (``layout.takes_entries``).
ENTRIES_FILE_SCHEMA: dict[str, Any] = {**PATH_SCHEMA, "pattern": ENTRIES_FILE_PATTERN}
#: A record's key, ``{slug}--{uuid5}`` (``keys.is_key``; anything else is not found).
KEY_SCHEMA: dict[str, Any] = {"pattern": KEY_PATTERN}
#: A person id (``layout.user_path``).
USER_ID_SCHEMA: dict[str, Any] = {"pattern": USER_ID_PATTERN}

#: Longest reason (rejecting, withdrawing) or closing note.
MAX_REASON_CHARS = 2000
#: Longest record text (a decision, a loop's summary).
MAX_RECORD_TEXT_CHARS = 20_000
#: Longest rationale of a proposal.
MAX_RATIONALE_CHARS = 5000
#: Longest ``source`` of a record.
MAX_SOURCE_CHARS = 500
#: Longest next step of a loop, or why of a decision.
MAX_LINE_CHARS = 2000
#: Most entries in one proposal.
MAX_ITEMS = 200
#: Longest revision a caller names (a commit id, ``HEAD~3``, a branch).
MAX_REVISION_CHARS = 200
#: Most commits one history answers.
MAX_HISTORY = 1000
#: Longest commit subject a caller gives.
MAX_SUBJECT_CHARS = 200

HomePath = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_PATH_CHARS,
        json_schema_extra=PATH_SCHEMA,
        description="Path inside the home",
    ),
]
EntriesFile = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_PATH_CHARS,
        json_schema_extra=ENTRIES_FILE_SCHEMA,
        description="USER.md, MEMORY.md, users/<id>.md or another markdown file with "
        "'## Entries', outside continuity/; not a daily note, SOUL.md or IDENTITY.md",
    ),
]
RecordKey = Annotated[str, Field(json_schema_extra=KEY_SCHEMA, description="The record's key")]
UserId = Annotated[str, Field(max_length=MAX_USER_ID_CHARS, json_schema_extra=USER_ID_SCHEMA)]
#: A record's title; empty allowed, as in LionClaw (key ``item--<uuid5>``).
Title = Annotated[str, Field(max_length=MAX_TITLE_CHARS)]
#: A title that must hold a word (split as the key algorithm splits words).
NamedTitle = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_TITLE_CHARS,
        json_schema_extra={"pattern": not_blank(WHITE_SPACE_CLASS)},
    ),
]
#: Text that must hold something besides white space (bounded by the caller).
Reason = Annotated[
    str, Field(min_length=1, max_length=MAX_REASON_CHARS, json_schema_extra={"pattern": NOT_BLANK})
]
#: One entry of a memory file: one line with something on it (``entries.clean_entry``).
EntryLine = Annotated[
    str,
    Field(min_length=1, max_length=MAX_ENTRY_CHARS, json_schema_extra={"pattern": ONE_LINE}),
]
#: An entry of a proposal: any text with something on it, made one line when written.
ProposedEntry = Annotated[
    str,
    Field(min_length=1, max_length=MAX_ENTRY_CHARS, json_schema_extra={"pattern": NOT_BLANK}),
]


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
    #: What became of an archived record: ``merged``, ``rejected``,
    #: ``withdrawn``, ``resolved``; "" for any other section.
    status: str = ""


class LeftOut(BaseModel):
    """The best-ranked hit the relevance floor left out, and why."""

    path: str
    start_line: int
    end_line: int
    reason: str


class VectorCoverage(BaseModel):
    model: str
    embedded: int
    sections: int
    complete: bool


class SearchResult(BaseModel):
    #: ``hybrid`` (keywords fused with meaning) or ``keyword`` (semantic ranking
    #: off, or the vectors not filled in yet).
    ranking: str = "keyword"
    #: How many sections have vectors yet; null when semantic ranking is off.
    vectors: VectorCoverage | None = None
    hits: list[SearchHit]
    #: Hits of the first ``limit`` the relevance floor judged not to be evidence
    #: for the query, left out (0 when ``all`` was asked: every hit is answered).
    left_out: int = 0
    #: The best-ranked hit left out and why; null when none was.
    nearest: LeftOut | None = None
    #: False when the index may lag the files (a pass pending, a failed pass).
    fresh: bool = True
    #: Why the index is not fresh; null when it is.
    stale_reason: str | None = None


def search_result(found: Found, fresh: bool, stale_reason: str | None) -> SearchResult:
    """The answer to a search, on every surface: validated from the hits'
    attributes in place, with no dict of each hit (``bench/answer_models.py``;
    docs/performance.md, "Figures behind the code's comments")."""
    return SearchResult.model_validate(
        {
            "hits": found.hits,
            "ranking": found.ranking,
            "vectors": found.vectors,
            "left_out": found.left_out,
            "nearest": found.nearest,
            "fresh": fresh,
            "stale_reason": stale_reason,
        },
        from_attributes=True,
    )


class Written(BaseModel):
    #: The commit made; null when nothing changed.
    commit: str | None
    path: str
    changed: bool
    #: The record's key (proposals, loops, decisions).
    key: str | None = None


def written(result: WriteResult) -> Written:
    """The answer to a write, on every surface."""
    return Written(commit=result.commit, path=result.path, changed=result.changed, key=result.key)


class LoopWritten(Written):
    #: True when an open loop of that title was there and this write updated it
    #: (or found it unchanged); False when a new loop was opened.
    updated: bool


class Replacement(BaseModel):
    """A proposed entry that restates the target's entry at ``line`` with a new value."""

    #: The proposed entry (in the file where the old one stood, once merged).
    entry: str
    #: The entry it replaces, and its line in the target before the merge.
    replaces: str
    line: int
    #: ``field`` (a labelled field) or ``value`` (one value of a sentence changed).
    rule: str
    was: str
    now: str
    #: The other hot file the replaced entry stands in; null: the target.
    path: str | None = None


class Replaced(Replacement):
    """A held entry a merged one replaced: a fact with a new value."""

    #: The record under ``continuity/superseded/`` that keeps the old entry.
    kept_at: str


class MergeWritten(Written):
    #: What each replacement replaced (empty when the merge only added).
    replaced: list[Replaced]


def merge_written(result: WriteResult) -> MergeWritten:
    """The answer to ``merge``: a write's, and what it replaced."""
    found = [Replaced.model_validate(r) for r in result.replaced or ()]
    return MergeWritten(**written(result).model_dump(), replaced=found)


def loop_written(result: WriteResult) -> LoopWritten:
    """The answer to ``loop.add``: a write's, and whether it updated a loop."""
    return LoopWritten(**written(result).model_dump(), updated=bool(result.updated))


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
    #: The message the recall section answers, when one was given.
    query: str | None = None
    recall: list[Passage] = []


class Record(BaseModel):
    """What every record kind shares; a file that does not parse has only ``error``."""

    model_config = ConfigDict(extra="allow")

    key: str
    path: str
    title: str | None = None
    status: str | None = None
    created: str | None = None
    updated: str | None = None
    #: Who wrote it, as hearth knows it (the actor); ``stated_source`` is what the
    #: writer said its source was; ``by`` is ``agent`` when an agent wrote it
    #: (empty: the person's).
    source: str | None = None
    stated_source: str | None = None
    by: str | None = None
    #: The file's blob id as listed: a merge's ``version`` (changed since: refused).
    oid: str | None = None
    #: ``front-matter`` (hearth's) or ``lionclaw`` (LionClaw's own format, kept as it is).
    style: str | None = None
    error: str | None = None


class Loop(Record):
    next_step: str | None = None
    summary: str | None = None


class Decision(Record):
    decision: str | None = None
    why: str | None = None
    reason: str | None = None


class Loops(BaseModel):
    loops: list[Loop]


class Decisions(BaseModel):
    decisions: list[Decision]


class Commit(BaseModel):
    id: str
    time: str
    author: str
    email: str
    subject: str
    message: str
    trailers: dict[str, str]
    actor: str | None = Field(
        default=None,
        description="Hearth-Actor: who made the change through hearth (none: a commit "
        "hearth did not write, such as a person's own git)",
    )
    op: str | None = Field(default=None, description="Hearth-Op: the operation hearth ran")


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
    """The home's status: the CLI's, plus a server's watcher, worker and scheduler."""

    model_config = ConfigDict(extra="allow")

    home: str
    branch: str | None
    head: str | None
    dirty: bool
    changes: list[dict[str, str]]
    pending_proposals: int
    open_loops: int
    active_decisions: int
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
