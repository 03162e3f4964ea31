"""The MCP tools (docs/mcp.md) that read, and what every tool shares;
the tools that write are ``write_tools.py``. Each is one call on the served home.

The names and arguments are fixed by the design; each docstring is the
description a model reads when it decides which tool to call, so it says what
the tool is for, when to use it and what it answers. Each tool names the
operation it runs; the scope that needs is the one policy's
(``operations.py``), the same on HTTP and the review page.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from hearth.answers import (
    MAX_HISTORY,
    MAX_REVISION_CHARS,
    HomePath,
    RecordKey,
    UserId,
    search_result,
)
from hearth.app.served.service import ServedHearth
from hearth.domain.layout import Kind
from hearth.domain.paths import normalize
from hearth.domain.searching import MAX_LIMIT, MAX_PREFIX_CHARS, MAX_QUERY_CHARS
from hearth.mcp import models
from hearth.mcp.calls import READ, ToolSet

#: Lines one ``read`` answers at most; read on from ``end_line + 1``.
MAX_READ_LINES = 2000

# The inputs the HTTP API takes too are declared once, in hearth.answers.
Path = HomePath
Key = RecordKey


READ_TOOLS = ToolSet()


@READ_TOOLS.tool("search", READ, blocking=False)
def search(
    service: ServedHearth,
    query: Annotated[
        str,
        Field(min_length=1, max_length=MAX_QUERY_CHARS, description="Words to look for"),
    ],
    kind: Annotated[
        Kind | None,
        Field(description="Only this kind of file (persona, daily, topic, proposal, ...)"),
    ] = None,
    path: Annotated[
        str | None,
        Field(max_length=MAX_PREFIX_CHARS, description="Only files under this folder"),
    ] = None,
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Hits at most")] = 10,
    all: Annotated[  # the parameter's name on every surface
        bool,
        Field(
            description="Every hit, also those below the relevance floor (browsing); "
            "by default only hits judged evidence for the query"
        ),
    ] = False,
) -> models.SearchResult:
    """Full-text search over the assistant's home: persona files, memory, daily
    notes, topic notes, proposals and open loops (Markdown in git).

    Use it before answering anything the assistant may have written down
    (people, preferences, decisions, past work), and to find a passage before
    `read`ing it. Answers ranked hits, each with path, heading, start_line and
    end_line (1-based, for `read`), score and a snippet; `fresh` is false (with
    `stale_reason`) when the index may lag edits made outside hearth in the
    last moments. Writes made through these tools are always found. Only
    hits judged evidence for the query are answered (none when the home
    holds nothing about it); `left_out` counts the others, and `all`
    answers them too.
    """
    found = service.search(query, kind, path, limit, everything=all)
    return search_result(found, *service.index_freshness())


@READ_TOOLS.tool("read", READ)
def read(
    service: ServedHearth,
    path: Path,
    start_line: Annotated[int, Field(ge=1, description="First line (1-based)")] = 1,
    end_line: Annotated[
        int | None, Field(ge=1, description="Last line, inclusive (default: the end)")
    ] = None,
) -> models.ReadResult:
    """Read a file of the home (or a range of its lines), as it is on disk now.

    Use it after `search` (pass the hit's start_line and end_line) or to read a
    file whose path you know, such as MEMORY.md or memory/topics/<topic>.md.
    Answers the lines numbered as "<number><TAB><text>", the file's total line
    count, and `oid`, which `write` takes as expected_oid to refuse a stale
    overwrite. A missing file is a not_found error; paths outside the home,
    into .git or through a symlink are refused (path_refused). At most 2000
    lines per call: `truncated` says to read on from end_line + 1.
    """
    found = service.get_file(path)
    lines = found.content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    last = len(lines) if end_line is None else min(end_line, len(lines))
    cut = last - start_line + 1 > MAX_READ_LINES
    if cut:
        last = start_line + MAX_READ_LINES - 1
    shown = lines[start_line - 1 : last]
    return models.ReadResult(
        path=found.path,
        oid=found.oid,
        commit=found.commit,
        dirty=found.dirty,
        start_line=start_line,
        end_line=start_line + len(shown) - 1,
        total_lines=len(lines),
        truncated=cut,
        text="\n".join(f"{start_line + i}\t{line}" for i, line in enumerate(shown)),
    )


@READ_TOOLS.tool("context", READ)
def context(
    service: ServedHearth,
    session: Annotated[
        Literal["main", "subagent"],
        Field(description="main: the whole persona; subagent: AGENTS.md and TOOLS.md"),
    ] = "main",
    q: Annotated[
        str | None,
        Field(
            max_length=MAX_QUERY_CHARS,
            description="The message about to be answered: adds recalled passages",
        ),
    ] = None,
    user: Annotated[UserId | None, Field(description="A person's id: adds users/<id>.md")] = None,
) -> models.ContextBundle:
    """The bundle to load at the start of a session (or turn): the persona and
    memory files in order (AGENTS.md, SOUL.md, TOOLS.md, IDENTITY.md, USER.md,
    MEMORY.md, continuity/ACTIVE.md; a subagent gets AGENTS.md and TOOLS.md).

    With `q` it adds a `recall` section of passages that search finds for that
    message (path and line range each); with `user` it adds that person's note.
    Everything fits one character budget: a file or passage that was cut says
    `truncated` (the whole bundle too), and a file that does not exist says
    `missing`. Read it once at session start rather than each file by itself.
    """
    return models.ContextBundle.model_validate(service.context(session, q, user).as_dict())


@READ_TOOLS.tool("review", READ)
def review(service: ServedHearth) -> models.Review:
    """What waits for a person: the pending memory proposals (title, entries,
    target, rationale) and the open loops (unfinished threads with their next
    step), each with the key that `merge`, `reject` and `resolve_loop` take.

    Each proposal also says, per entry, what already says the same or nearly
    the same (`matches`: the entry's text, file and line, `score` 0..1, and
    `where`: `known` when the home holds it, `proposed` when another pending
    proposal does), its `group` of near-duplicate proposals, and `over_bound`
    when merging it would push its target over its size bound.

    Use it to see what is already known or proposed before proposing again,
    and to pick up open loops at the start of a session.
    """
    found = service.review()
    board = service.review_board(found.proposals)
    loops = [v.as_dict() for v in found.loops]
    return models.Review.model_validate({**board.answer(found.proposals), "loops": loops})


@READ_TOOLS.tool("decisions", READ)
def decisions(service: ServedHearth) -> models.Decisions:
    """The decisions in force: what the person and the assistant settled (title,
    the decision, why), each with the key `withdraw_decision` takes.

    Check it before deciding something again or acting against a settled
    choice; the newest also show in continuity/ACTIVE.md.
    """
    found = service.records("decision")
    return models.Decisions.model_validate({"decisions": [v.as_dict() for v in found]})


@READ_TOOLS.tool("history", READ)
def history(
    service: ServedHearth,
    path: Path,
    limit: Annotated[int, Field(ge=1, le=MAX_HISTORY, description="Commits at most")] = 20,
) -> models.History:
    """The commits that changed a file, newest first: id, time, author, subject,
    message and hearth's trailers (Hearth-Actor: who made the change through
    hearth, Hearth-Op: which operation). Use it to see when and by whom a
    memory or persona file changed; `diff` shows what changed.
    """
    commits = service.history(path, limit)
    return models.History(
        path=normalize(path),
        commits=[models.Commit.model_validate(c.as_dict()) for c in commits],
    )


@READ_TOOLS.tool("diff", READ)
def diff(
    service: ServedHearth,
    path: Annotated[
        HomePath | None, Field(description="One file (default: every file that differs)")
    ] = None,
    rev_from: Annotated[
        str | None,
        Field(
            alias="from",
            max_length=MAX_REVISION_CHARS,
            description="Old revision (default HEAD)",
        ),
    ] = None,
    rev_to: Annotated[
        str | None,
        Field(
            alias="to",
            max_length=MAX_REVISION_CHARS,
            description="New revision (default: the files now)",
        ),
    ] = None,
) -> models.Diff:
    """A unified diff between two revisions (commit ids, HEAD~3, branch names).
    `from` defaults to HEAD and `to` to the files as they are now, so with
    neither it shows the uncommitted edits. Without `path` it covers every file
    that differs (100 files at most; the rest listed in `skipped`).
    """
    if path is None:
        found = service.diff_home(rev_from, rev_to)
    else:
        found = service.diff(path, rev_from, rev_to)
    return models.Diff.model_validate(found, from_attributes=True)


@READ_TOOLS.tool("status", READ)
def status(service: ServedHearth) -> models.Status:
    """The home's health: branch and HEAD, uncommitted changes, pending
    proposals and open loops, index freshness (index.fresh), the watcher,
    reconcile worker, scheduled jobs, sync with the remote and reflection.
    Use it when something looks stale or a write was refused as busy.
    """
    return models.Status.model_validate(service.status().as_dict())
