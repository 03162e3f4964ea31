"""The MCP tools that write (docs/mcp.md): notes, proposals, loops,
decisions, files, memory entries, topics; and the person's calls (merge,
reject and their batches), which the policy gives the admin scope only.

As in ``tools.py`` (the reading tools, and what both share): each docstring is
the description a model reads, and each tool names the operation it runs.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from hearth.answers import (
    MAX_ITEMS,
    MAX_LINE_CHARS,
    MAX_RATIONALE_CHARS,
    MAX_REASON_CHARS,
    MAX_RECORD_TEXT_CHARS,
    MAX_SOURCE_CHARS,
    MAX_SUBJECT_CHARS,
    EntriesFile,
    EntryLine,
    NamedTitle,
    ProposedEntry,
    Reason,
    Title,
    loop_written,
    merge_written,
    written,
)
from hearth.app.served.service import ServedHearth
from hearth.app.writes.batch import MAX_BATCH
from hearth.domain.paths import normalize
from hearth.domain.records import MAX_TITLE_CHARS
from hearth.domain.text import NOT_BLANK, text_bytes
from hearth.errors import InvalidInput
from hearth.mcp import models
from hearth.mcp.calls import ADDS, REPLACES, SETS, ToolSet, require
from hearth.mcp.tools import Key, Path
from hearth.operations import Scope, is_agent, put_operation
from hearth.review_answers import (
    batch_written,
)

WRITE_TOOLS = ToolSet()


@WRITE_TOOLS.tool("note", ADDS)
def note(
    service: ServedHearth,
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
    return written(service.note(text, title, actor))


@WRITE_TOOLS.tool("propose", ADDS)
def propose(
    service: ServedHearth,
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
    scope: Scope = "write",
) -> models.Written:
    """Propose entries for long-term memory or the persona (MEMORY.md by
    default, or USER.md, SOUL.md, ...) for a person to review. Nothing changes
    in the target until someone merges the proposal: this is how the
    assistant changes who it is. Check `review` first to avoid duplicates.
    Answers the proposal's key.
    """
    agent = is_agent(scope)
    return written(service.propose(title, entries, actor, target, rationale, source, agent=agent))


@WRITE_TOOLS.tool("loop.add", ADDS)
def add_loop(
    service: ServedHearth,
    title: Title,
    actor: str,
    summary: Annotated[
        str, Field(max_length=MAX_RECORD_TEXT_CHARS, description="Where it stands")
    ] = "",
    next_step: Annotated[str, Field(max_length=MAX_LINE_CHARS, description="What to do next")] = "",
    scope: Scope = "write",
) -> models.LoopWritten:
    """Open a loop: an unfinished thread to pick up in a later session (a
    promise made, a question waiting for an answer, work half done). Open
    loops show in continuity/ACTIVE.md and in `review`. Answers its key, and
    `updated` when an open loop of that title was there (the same title updates
    the same loop). A loop the person opened is theirs: you cannot change it (forbidden).
    """
    return loop_written(service.add_loop(title, actor, summary, next_step, agent=is_agent(scope)))


@WRITE_TOOLS.tool("loop.resolve", REPLACES)
def resolve_loop(
    service: ServedHearth,
    key: Key,
    actor: str,
    note: Annotated[str, Field(max_length=MAX_REASON_CHARS, description="How it ended")] = "",
    scope: Scope = "write",
) -> models.Written:
    """Close an open loop (by the key `review` shows) once it is done or moot,
    with an optional note on how it ended. One commit. Only a loop an agent
    opened (`by: agent`); the person's own loops are theirs to close
    (forbidden: say it is done in a `note` instead)."""
    return written(service.resolve_loop(key, actor, note, agent=is_agent(scope)))


@WRITE_TOOLS.tool("decide", SETS)
def decide(
    service: ServedHearth,
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
    why: Annotated[str, Field(max_length=MAX_LINE_CHARS, description="The reason, in a line")] = "",
    source: Annotated[
        str, Field(max_length=MAX_SOURCE_CHARS, description="Where it was settled")
    ] = "",
    scope: Scope = "write",
) -> models.Written:
    """Record a decision the person and the assistant settled (a choice of tool,
    a convention, a standing answer), so later sessions keep to it. A decision
    with the same title supersedes the earlier one (its text and why are
    replaced). Active decisions show in continuity/ACTIVE.md and in
    `decisions`. Answers its key. On the title of a decision the person made
    (no `by: agent`), nothing is replaced: it answers the key of a proposal to
    change it, for the person to merge or reject.
    """
    agent = is_agent(scope)
    return written(service.decide(title, decision, actor, why, source, agent=agent))


@WRITE_TOOLS.tool("decision.withdraw", REPLACES)
def withdraw_decision(
    service: ServedHearth,
    key: Key,
    reason: Annotated[Reason, Field(description="Why")],
    actor: str,
    scope: Scope = "write",
) -> models.Written:
    """Withdraw a decision (by the key `decisions` shows) that no longer holds,
    with the reason; it is archived, its history kept. One commit. Only a
    decision an agent made; the person's own are theirs (forbidden)."""
    return written(service.withdraw_decision(key, reason, actor, agent=is_agent(scope)))


@WRITE_TOOLS.tool("put", SETS)
def write(
    service: ServedHearth,
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
    data = text_bytes("content", content)
    return written(service.put(path, data, actor, expected_oid, message, agent=is_agent(scope)))


@WRITE_TOOLS.tool("memory.list", REPLACES)
def memory(
    service: ServedHearth,
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
    section: Annotated[
        str | None,
        Field(
            description="add, in a file of named sections (USER.md: Preferences, Context): "
            "the '## ' section it goes under",
            min_length=1,
            max_length=200,
        ),
    ] = None,
) -> models.MemoryResult:
    """Keep the bounded memory files one entry at a time: USER.md (about the
    person), MEMORY.md (the assistant's long-term notes), users/<id>.md, or any
    file with an '## Entries' section. An entry is one line.

    op list: the entries with their numbers. op add: add `entry`. op replace:
    replace `entry` (its exact text, or #N from list) with `new_entry`. op
    remove: remove `entry`. Each change is one commit computed from the
    committed file, so it never overwrites anyone's edit; refused when the
    entry is not there (entry_missing), when two entries read `entry` alike
    (conflict, naming their numbers: give #N), the file is over its bound
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
    agent = is_agent(scope)
    if op == "add":
        result = service.entry_add(file, entry, actor, section, agent=agent)
    elif op == "remove":
        result = service.entry_remove(file, entry, actor, agent=agent)
    else:
        if new_entry is None:
            raise _missing("new_entry", op)
        result = service.entry_replace(file, entry, new_entry, actor, agent=agent)
    return models.MemoryResult(
        op=op, path=result.path, commit=result.commit, changed=result.changed
    )


@WRITE_TOOLS.tool("topic", ADDS)
def topic(
    service: ServedHearth,
    title: Annotated[str, Field(min_length=1, max_length=MAX_TITLE_CHARS, description="The topic")],
    actor: str,
    scope: Scope,
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
    agent = is_agent(scope)
    return written(service.topic(title, actor, content=content, append=append, agent=agent))


ADMIN_TOOLS = ToolSet()


@ADMIN_TOOLS.tool("merge", REPLACES)
def merge(
    service: ServedHearth,
    key: Key,
    actor: str,
    version: Annotated[
        str | None,
        Field(
            pattern=r"^[0-9a-f]{12,40}$",
            description="The proposal's oid as the person read it (`review`): "
            "a proposal changed since is refused (stale_write)",
        ),
    ] = None,
) -> models.MergeWritten:
    """Accept a pending proposal: its entries go into the target file and the
    proposal is archived, in one commit. A person's decision: call it only
    when the person asked for this very proposal to be merged, and pass the
    `oid` of the version they read as `version`. Answers what each
    replacement (a held fact given a new value) replaced."""
    return merge_written(service.merge(key, actor, version=version))


@ADMIN_TOOLS.tool("reject", REPLACES)
def reject(
    service: ServedHearth,
    key: Key,
    reason: Reason,
    actor: str,
) -> models.Written:
    """Decline a pending proposal with a reason; it is archived and the
    target file is left as it is. A person's decision, like `merge`."""
    return written(service.reject(key, reason, actor))


@ADMIN_TOOLS.tool("merge.many", REPLACES)
def merge_many(
    service: ServedHearth,
    keys: Annotated[list[Key], Field(min_length=1, max_length=MAX_BATCH)],
    actor: str,
) -> models.BatchWritten:
    """Accept several pending proposals in one commit (all or none: nothing is
    written when one of them is gone or would push its target over its bound).
    A person's decision: call it only for the proposals the person named."""
    return batch_written(service.merge_many(keys, actor))


@ADMIN_TOOLS.tool("reject.many", REPLACES)
def reject_many(
    service: ServedHearth,
    keys: Annotated[list[Key], Field(min_length=1, max_length=MAX_BATCH)],
    reason: Reason,
    actor: str,
) -> models.BatchWritten:
    """Decline several pending proposals with one reason, in one commit. A
    person's decision, like `merge_many`."""
    result = service.reject_many(keys, reason, actor)
    return batch_written(result)


def _missing(argument: str, op: str) -> InvalidInput:
    return InvalidInput(f"op {op} needs {argument}")
