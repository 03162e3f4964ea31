"""The MCP tools of DESIGN.md section 9, each one call on the served home.

The names and arguments are fixed by the design; each docstring is the
description a model reads when it decides which tool to call, so it says what
the tool is for, when to use it and what it answers. Each tool names the
operation it runs; the scope that needs is the one policy's
(``domain/policy.py``), the same on HTTP and the review page.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from hearth.app.batch_ops import MAX_BATCH
from hearth.app.results import WriteResult
from hearth.app.served import ServedHearth
from hearth.domain.layout import Kind
from hearth.domain.paths import normalize
from hearth.domain.policy import Scope, put_operation
from hearth.domain.records import MAX_TITLE_CHARS
from hearth.domain.searching import MAX_LIMIT, MAX_PREFIX_CHARS, MAX_QUERY_CHARS
from hearth.domain.text import NOT_BLANK
from hearth.errors import InvalidInput
from hearth.mcp import models
from hearth.mcp.calls import ADDS, READ, REPLACES, SETS, Tools, require
from hearth.wire import (
    MAX_HISTORY,
    MAX_ITEMS,
    MAX_LINE_CHARS,
    MAX_RATIONALE_CHARS,
    MAX_REASON_CHARS,
    MAX_RECORD_TEXT_CHARS,
    MAX_REVISION_CHARS,
    MAX_SOURCE_CHARS,
    MAX_SUBJECT_CHARS,
    EntriesFile,
    EntryLine,
    HomePath,
    NamedTitle,
    ProposedEntry,
    Reason,
    RecordKey,
    Title,
    UserId,
    search_result,
)

#: Lines one ``read`` answers at most; read on from ``end_line + 1``.
MAX_READ_LINES = 2000

# The inputs the HTTP API takes too are declared once, in hearth.wire.
Path = HomePath
Key = RecordKey


def _written(result: WriteResult) -> models.Written:
    return models.Written(
        commit=result.commit, path=result.path, changed=result.changed, key=result.key
    )


def register_read_tools(tools: Tools, service: ServedHearth) -> None:
    @tools.add("search", READ, blocking=False)
    def search(
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
    ) -> models.SearchResult:
        """Full-text search over the assistant's home: persona files, memory, daily
        notes, topic notes, proposals and open loops (Markdown in git).

        Use it before answering anything the assistant may have written down
        (people, preferences, decisions, past work), and to find a passage before
        `read`ing it. Answers ranked hits, each with path, heading, start_line and
        end_line (1-based, for `read`), score and a snippet; `fresh` is false (with
        `stale_reason`) when the index may lag edits made outside hearth in the
        last moments. Writes made through these tools are always found.
        """
        found = service.search(query, kind, path, limit)
        return search_result(found, *service.index_freshness())

    @tools.add("read", READ)
    def read(
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

    @tools.add("context", READ)
    def context(
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
        user: Annotated[
            UserId | None, Field(description="A person's id: adds users/<id>.md")
        ] = None,
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

    @tools.add("review", READ)
    def review() -> models.Review:
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
        return models.Review.model_validate(
            {
                "proposals": [{**v.as_dict(), **board.of(v.key)} for v in found.proposals],
                "loops": [v.as_dict() for v in found.loops],
                "review": board.summary(),
            }
        )

    @tools.add("decisions", READ)
    def decisions() -> models.Decisions:
        """The decisions in force: what the person and the assistant settled (title,
        the decision, why), each with the key `withdraw_decision` takes.

        Check it before deciding something again or acting against a settled
        choice; the newest also show in continuity/ACTIVE.md.
        """
        found = service.records("decision")
        return models.Decisions.model_validate({"decisions": [v.as_dict() for v in found]})

    @tools.add("history", READ)
    def history(
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

    @tools.add("diff", READ)
    def diff(
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

    @tools.add("status", READ)
    def status() -> models.Status:
        """The home's health: branch and HEAD, uncommitted changes, pending
        proposals and open loops, index freshness (index.fresh), the watcher,
        reconcile worker, scheduled jobs, sync with the remote and reflection.
        Use it when something looks stale or a write was refused as busy.
        """
        return models.Status.model_validate(service.status().as_dict())


def register_write_tools(tools: Tools, service: ServedHearth) -> None:
    @tools.add("note", ADDS)
    def note(
        text: Annotated[
            str,
            Field(
                min_length=1,
                max_length=100_000,
                json_schema_extra={"pattern": NOT_BLANK},
                description="The entry",
            ),
        ],
        actor: str,
        title: Annotated[
            str | None, Field(max_length=MAX_TITLE_CHARS, description="A heading for the entry")
        ] = None,
    ) -> models.Written:
        """Append an entry to today's daily note (memory/YYYY-MM-DD.md): what
        happened, what was decided, what the person said that matters. The cheap,
        always-allowed way to remember; reflection and people distil daily notes
        into MEMORY.md later. One commit; answers the commit and the file's path.
        """
        return _written(service.note(text, title, actor))

    @tools.add("propose", ADDS)
    def propose(
        title: Title,
        entries: Annotated[
            list[ProposedEntry],
            Field(min_length=1, max_length=MAX_ITEMS, description="One-line entries to add"),
        ],
        actor: str,
        target: Annotated[
            EntriesFile | None,
            Field(description="The file the entries go to (default MEMORY.md)"),
        ] = None,
        rationale: Annotated[
            str, Field(max_length=MAX_RATIONALE_CHARS, description="Why, for the reviewer")
        ] = "",
        source: Annotated[
            str, Field(max_length=MAX_SOURCE_CHARS, description="Where it came from")
        ] = "",
    ) -> models.Written:
        """Propose entries for long-term memory or the persona (MEMORY.md by
        default, or USER.md, SOUL.md, ...) for a person to review. Nothing changes
        in the target until someone merges the proposal: this is how the
        assistant changes who it is. Check `review` first to avoid duplicates.
        Answers the proposal's key.
        """
        return _written(service.propose(title, entries, actor, target, rationale, source))

    @tools.add("loop.add", ADDS)
    def add_loop(
        title: Title,
        actor: str,
        summary: Annotated[
            str, Field(max_length=MAX_RECORD_TEXT_CHARS, description="Where it stands")
        ] = "",
        next_step: Annotated[
            str, Field(max_length=MAX_LINE_CHARS, description="What to do next")
        ] = "",
    ) -> models.Written:
        """Open a loop: an unfinished thread to pick up in a later session (a
        promise made, a question waiting for an answer, work half done). Open
        loops show in continuity/ACTIVE.md and in `review`. Answers its key.
        """
        return _written(service.add_loop(title, actor, summary, next_step))

    @tools.add("loop.resolve", REPLACES)
    def resolve_loop(
        key: Key,
        actor: str,
        note: Annotated[str, Field(max_length=MAX_REASON_CHARS, description="How it ended")] = "",
    ) -> models.Written:
        """Close an open loop (by the key `review` shows) once it is done or moot,
        with an optional note on how it ended. One commit."""
        return _written(service.resolve_loop(key, actor, note))

    @tools.add("decide", SETS)
    def decide(
        title: NamedTitle,
        decision: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_RECORD_TEXT_CHARS,
                json_schema_extra={"pattern": NOT_BLANK},
                description="What was settled",
            ),
        ],
        actor: str,
        why: Annotated[
            str, Field(max_length=MAX_LINE_CHARS, description="The reason, in a line")
        ] = "",
        source: Annotated[
            str, Field(max_length=MAX_SOURCE_CHARS, description="Where it was settled")
        ] = "",
    ) -> models.Written:
        """Record a decision the person and the assistant settled (a choice of tool,
        a convention, a standing answer), so later sessions keep to it. A decision
        with the same title supersedes the earlier one (its text and why are
        replaced). Active decisions show in continuity/ACTIVE.md and in
        `decisions`. Answers its key.
        """
        return _written(service.decide(title, decision, actor, why, source))

    @tools.add("decision.withdraw", REPLACES)
    def withdraw_decision(
        key: Key,
        reason: Annotated[Reason, Field(description="Why")],
        actor: str,
    ) -> models.Written:
        """Withdraw a decision (by the key `decisions` shows) that no longer holds,
        with the reason; it is archived, its history kept. One commit."""
        return _written(service.withdraw_decision(key, reason, actor))

    @tools.add("put", SETS)
    def write(
        path: Path,
        content: Annotated[str, Field(max_length=5_000_000, description="The whole new text")],
        actor: str,
        scope: Scope,
        expected_oid: Annotated[
            str | None,
            Field(
                pattern=r"^[0-9a-f]{40}$",
                description="The oid `read` gave: refuses the write if the file changed since",
            ),
        ] = None,
        message: Annotated[
            str | None, Field(max_length=MAX_SUBJECT_CHARS, description="Commit subject")
        ] = None,
    ) -> models.Written:
        """Replace a file's whole content (or create it) as one commit, after the
        same validation rules as a person's commit (bounds, secret guard).

        Prefer `note`, `memory`, `topic` and `propose`, which cannot lose someone
        else's edit; when you do write, pass the `oid` from `read` as expected_oid
        so a file changed since is refused (stale_write) instead of overwritten.
        A write-scope caller writes markdown files only. Refused with dirty_file
        when the file holds uncommitted edits.
        """
        require(scope, put_operation(normalize(path)))  # settings and git's files: admin
        return _written(service.put(path, content.encode(), actor, expected_oid, message))

    @tools.add("memory.list", REPLACES)
    def memory(
        op: Annotated[Literal["add", "replace", "remove", "list"], Field(description="What to do")],
        file: EntriesFile,
        actor: str,
        scope: Scope,
        entry: Annotated[
            EntryLine | None,
            Field(description="add: the new entry; replace/remove: the entry's exact text or #N"),
        ] = None,
        new_entry: Annotated[
            EntryLine | None, Field(description="replace: the entry's new text")
        ] = None,
    ) -> models.MemoryResult:
        """Keep the bounded memory files one entry at a time: USER.md (about the
        person), MEMORY.md (the assistant's long-term notes), users/<id>.md, or any
        file with an '## Entries' section. An entry is one line.

        op list: the entries with their numbers. op add: add `entry`. op replace:
        replace `entry` (its exact text, or #N from list) with `new_entry`. op
        remove: remove `entry`. Each change is one commit computed from the
        committed file, so it never overwrites anyone's edit; refused when the
        entry is not there (entry_missing), the file is over its bound
        (validation_failed) or holds uncommitted edits (dirty_file). Needs the
        write scope except for list. Longer notes belong in `topic`.
        """
        if op == "list":
            found = service.entry_list(file)
            return models.MemoryResult(
                op=op,
                path=normalize(file),
                entries=[models.Entry.model_validate(e.as_dict()) for e in found],
            )
        require(scope, f"memory.{op}")
        if entry is None:
            raise _missing("entry", op)
        if op == "add":
            result = service.entry_add(file, entry, actor)
        elif op == "remove":
            result = service.entry_remove(file, entry, actor)
        else:
            if new_entry is None:
                raise _missing("new_entry", op)
            result = service.entry_replace(file, entry, new_entry, actor)
        return models.MemoryResult(
            op=op, path=result.path, commit=result.commit, changed=result.changed
        )

    @tools.add("topic", ADDS)
    def topic(
        title: Annotated[
            str, Field(min_length=1, max_length=MAX_TITLE_CHARS, description="The topic")
        ],
        actor: str,
        content: Annotated[
            str | None, Field(max_length=1_000_000, description="The note's whole text")
        ] = None,
        append: Annotated[
            str | None, Field(max_length=1_000_000, description="A section to add at the end")
        ] = None,
    ) -> models.Written:
        """Write a topic note, memory/topics/<slug>.md, found by its title: longer
        notes on one subject (a project, a person's situation, a how-to) that do
        not fit a one-line memory entry. Give `content` to create or replace the
        note, or `append` to add a section at its end (exactly one of them). One
        commit; answers the note's path. `search` with path "memory/topics/"
        lists what exists.
        """
        return _written(service.topic(title, actor, content=content, append=append))


def register_admin_tools(tools: Tools, service: ServedHearth) -> None:
    @tools.add("merge", REPLACES)
    def merge(key: Key, actor: str) -> models.Written:
        """Accept a pending proposal: its entries go into the target file and the
        proposal is archived, in one commit. A person's decision: call it only
        when the person asked for this very proposal to be merged."""
        return _written(service.merge(key, actor))

    @tools.add("reject", REPLACES)
    def reject(
        key: Key,
        reason: Reason,
        actor: str,
    ) -> models.Written:
        """Decline a pending proposal with a reason; it is archived and the
        target file is left as it is. A person's decision, like `merge`."""
        return _written(service.reject(key, reason, actor))

    @tools.add("merge.many", REPLACES)
    def merge_many(
        keys: Annotated[list[Key], Field(min_length=1, max_length=MAX_BATCH)], actor: str
    ) -> models.BatchWritten:
        """Accept several pending proposals in one commit (all or none: nothing is
        written when one of them is gone or would push its target over its bound).
        A person's decision: call it only for the proposals the person named."""
        return models.BatchWritten.model_validate(service.merge_many(keys, actor).as_dict())

    @tools.add("reject.many", REPLACES)
    def reject_many(
        keys: Annotated[list[Key], Field(min_length=1, max_length=MAX_BATCH)],
        reason: Reason,
        actor: str,
    ) -> models.BatchWritten:
        """Decline several pending proposals with one reason, in one commit. A
        person's decision, like `merge_many`."""
        result = service.reject_many(keys, reason, actor)
        return models.BatchWritten.model_validate(result.as_dict())


def _missing(argument: str, op: str) -> InvalidInput:
    return InvalidInput(f"op {op} needs {argument}")
