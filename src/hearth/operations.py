"""The one scope policy (docs/api.md, "Operations and scopes"): which scope each operation needs.

Every surface that acts for a token (the HTTP routes, the MCP tools, the review
page) names the operation it runs and asks this table; none of them states a
scope of its own. So an operation cannot need ``admin`` over MCP and ``write``
over HTTP: there is one answer. The docs' table of operations and scopes
(docs/api.md, docs/mcp.md, docs/ui.md) is ``operation_texts.table_markdown()``, checked by a
test.

Scopes are ordered: ``read`` searches and reads everything; ``write`` also
writes (daily notes, markdown files outside ``continuity/``, entries, topics,
person notes, proposals, loops and decisions of its own and their resolution
or withdrawal, restores of other markdown files); ``admin`` alone accepts or
declines a change to the assistant's long-term memory or persona on the
person's behalf (merge, reject), restores a persona or memory file, resolves,
withdraws or supersedes the person's own loops and decisions, writes a record
file under ``continuity/`` by hand, settles conflicts, reconciles, syncs,
writes files that are not markdown and manages tokens. A person's own token is
``admin``; an agent's is ``write``: the agent proposes, the person approves.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Literal

from hearth.domain.layout import CONTINUITY_DIR, is_persons_file
from hearth.domain.paths import normalize
from hearth.errors import PathRefused

Scope = Literal["read", "write", "admin"]
SCOPES: tuple[Scope, ...] = ("read", "write", "admin")


def allows(held: Scope, needed: Scope) -> bool:
    """Whether a token of scope ``held`` may do what needs ``needed``."""
    return SCOPES.index(held) >= SCOPES.index(needed)


@dataclass(frozen=True)
class Operation:
    """One operation of the catalogue: its name, the scope it needs, and where a
    caller reaches it. Each surface keeps what is its own (an HTTP path, a tool
    name a model reads, a command's words) but names the operation it runs, and
    ``tests/api/test_operations.py`` walks this table against the running surfaces:
    every surface declared here exists and runs this operation, with this scope,
    and nothing runs an operation this table does not declare there."""

    name: str
    scope: Scope
    #: One line for the docs' table: what the operation does.
    does: str
    #: HTTP routes, ``"METHOD /path"`` as the OpenAPI document spells them.
    http: tuple[str, ...] = ()
    #: The MCP tool's name (docs/mcp.md).
    mcp: str | None = None
    #: ``hearth`` subcommands (on the home, or asking its server).
    cli: tuple[str, ...] = ()
    #: Accepting or declining a change to the assistant's memory or persona: the
    #: person's call (a refusal says so).
    persons_call: bool = False


_DECLARED = (
    Operation(
        "status",
        "read",
        "the home's health and freshness",
        http=("GET /v1/status",),
        mcp="status",
        cli=("status",),
    ),
    Operation(
        "search",
        "read",
        "search the home",
        http=("GET /v1/search",),
        mcp="search",
        cli=("search",),
    ),
    Operation(
        "read",
        "read",
        "read a file (or a line range of it)",
        http=("GET /v1/files/{path}",),
        mcp="read",
        cli=("get",),
    ),
    Operation(
        "context",
        "read",
        "the hot files and recall for a turn",
        http=("GET /v1/context", "POST /v1/hooks/agent/{runtime}/{event}"),
        mcp="context",
        cli=("context", "agent-hook"),
    ),
    Operation("active", "read", "continuity/ACTIVE.md", http=("GET /v1/active",), cli=("active",)),
    Operation("review", "read", "pending proposals and open loops", mcp="review", cli=("review",)),
    Operation(
        "proposals",
        "read",
        "list pending proposals",
        http=("GET /v1/proposals",),
        cli=("proposals",),
    ),
    Operation("loops", "read", "list open loops", http=("GET /v1/loops",), cli=("loops",)),
    Operation(
        "decisions",
        "read",
        "list active decisions",
        http=("GET /v1/decisions",),
        mcp="decisions",
        cli=("decisions",),
    ),
    Operation(
        "history",
        "read",
        "a file's commits",
        http=("GET /v1/history/{path}",),
        mcp="history",
        cli=("history",),
    ),
    Operation("diff", "read", "a diff between revisions", http=("GET /v1/diff",), mcp="diff"),
    Operation(
        "memory.list",
        "read",
        "the entries of a memory file",
        http=("GET /v1/memory/{file}/entries",),
        mcp="memory",
        cli=("memory list",),
    ),
    Operation(
        "check",
        "read",
        "check staged files against the rules (the pre-commit hook)",
        http=("POST /v1/hooks/pre-commit",),
        cli=("check", "hook"),
    ),
    Operation(
        "note",
        "write",
        "append an entry to today's daily note",
        http=("POST /v1/daily",),
        mcp="note",
        cli=("note",),
    ),
    Operation(
        "put",
        "write",
        "write a markdown file (any other file needs admin)",
        http=("PUT /v1/files/{path}",),
        mcp="write",
        cli=("put",),
    ),
    Operation(
        "propose",
        "write",
        "propose memory entries for a person to review",
        http=("POST /v1/proposals",),
        mcp="propose",
        cli=("propose",),
    ),
    Operation(
        "loop.add",
        "write",
        "open a loop",
        http=("POST /v1/loops",),
        mcp="add_loop",
        cli=("loop add",),
    ),
    Operation(
        "loop.resolve",
        "write",
        "resolve (archive) an open loop",
        http=("POST /v1/loops/{key}/resolve",),
        mcp="resolve_loop",
        cli=("loop resolve",),
    ),
    Operation(
        "decide",
        "write",
        "record a decision (the same title supersedes it)",
        http=("POST /v1/decisions",),
        mcp="decide",
        cli=("decide",),
    ),
    Operation(
        "decision.withdraw",
        "write",
        "withdraw (archive) a decision with a reason",
        http=("POST /v1/decisions/{key}/withdraw",),
        mcp="withdraw_decision",
        cli=("decision withdraw",),
    ),
    Operation(
        "memory.add",
        "write",
        "add an entry to a memory file",
        mcp="memory",
        http=("POST /v1/memory/{file}/entries",),
        cli=("memory add",),
    ),
    Operation(
        "memory.replace",
        "write",
        "replace an entry of a memory file",
        mcp="memory",
        http=("PUT /v1/memory/{file}/entries",),
        cli=("memory replace",),
    ),
    Operation(
        "memory.remove",
        "write",
        "remove an entry of a memory file",
        mcp="memory",
        http=("DELETE /v1/memory/{file}/entries",),
        cli=("memory remove",),
    ),
    Operation(
        "memory.conflicts",
        "read",
        "list the entries two machines changed in different ways",
        cli=("memory conflicts",),
    ),
    Operation(
        "memory.settle",
        "admin",
        "settle an entry two machines changed in different ways",
        http=("POST /v1/memory/conflicts/{conflict_id}/settle",),
        cli=("memory settle",),
        persons_call=True,
    ),
    Operation(
        "topic",
        "write",
        "create, replace or append to a topic note",
        http=("POST /v1/topics",),
        mcp="topic",
        cli=("topic",),
    ),
    Operation(
        "restore",
        "write",
        "restore a markdown file from an earlier revision",
        http=("POST /v1/restore",),
        cli=("restore",),
    ),
    Operation(
        "restore.persona",
        "admin",
        "restore a persona or memory file (or a record) from an earlier revision, "
        "or undo an agent's change to one",
        http=("POST /v1/restore",),
        cli=("restore",),
        persons_call=True,
    ),
    Operation("edit", "write", "edit a pending proposal's entries before review"),
    Operation(
        "merge",
        "admin",
        "accept a proposal into its target file",
        http=("POST /v1/proposals/{key}/merge",),
        mcp="merge",
        cli=("merge",),
        persons_call=True,
    ),
    Operation(
        "reject",
        "admin",
        "decline a proposal with a reason",
        http=("POST /v1/proposals/{key}/reject",),
        mcp="reject",
        cli=("reject",),
        persons_call=True,
    ),
    Operation(
        "merge.many",
        "admin",
        "accept many proposals in one commit",
        http=("POST /v1/proposals/merge",),
        mcp="merge_many",
        cli=("merge",),
        persons_call=True,
    ),
    Operation(
        "reject.many",
        "admin",
        "decline many proposals with one reason, in one commit",
        http=("POST /v1/proposals/reject",),
        mcp="reject_many",
        cli=("reject",),
        persons_call=True,
    ),
    Operation(
        "put.other",
        "admin",
        "write a file that is not markdown (hearth.toml, ...)",
        http=("PUT /v1/files/{path}",),
        mcp="write",
        cli=("put",),
    ),
    Operation(
        "changes.seen",
        "admin",
        "mark the agents' changes to persona and memory files as seen (the review page)",
    ),
    Operation(
        "put.records",
        "admin",
        "write a file under continuity/ by hand (records change through their operations)",
        http=("PUT /v1/files/{path}",),
        mcp="write",
        cli=("put",),
        persons_call=True,
    ),
    Operation(
        "records.person",
        "admin",
        "resolve, withdraw or supersede the person's own loops and decisions",
        http=(
            "POST /v1/loops/{key}/resolve",
            "POST /v1/decisions/{key}/withdraw",
            "POST /v1/decisions",
        ),
        mcp="resolve_loop",
        cli=("loop resolve", "decision withdraw", "decide"),
        persons_call=True,
    ),
    Operation(
        "reconcile",
        "admin",
        "run a reconcile pass",
        http=("POST /v1/reconcile",),
        cli=("reindex",),
    ),
    Operation("sync", "admin", "sync with the remote", http=("POST /v1/sync",), cli=("sync",)),
    Operation(
        "tokens",
        "admin",
        "create, list and revoke tokens",
        http=("GET /v1/tokens", "POST /v1/tokens", "DELETE /v1/tokens/{name}"),
        cli=("token create", "token list", "token revoke"),
    ),
    Operation(
        "reflect",
        "admin",
        "run the [reflection] command this machine approved, or approve it",
        http=("POST /v1/reflect", "POST /v1/reflect/approve"),
        cli=("reflect",),
    ),
    Operation(
        "rollup",
        "write",
        "commit a week's digest of daily notes to continuity/rollups/",
        http=("POST /v1/rollups",),
        cli=("rollup",),
    ),
    Operation(
        "consolidate",
        "write",
        "propose moves and folds for hot files past their soft budget",
        http=("POST /v1/consolidate",),
        cli=("consolidate",),
    ),
)

#: Every operation a token can ask for, by name.
OPERATIONS: dict[str, Operation] = {op.name: op for op in _DECLARED}


def route_of(operation: str, method: str = "GET") -> str:
    """The path of ``operation``'s HTTP route for ``method`` (what a CLI command
    that asks the home's server requests); KeyError when it declares none."""
    for route in OPERATIONS[operation].http:
        declared, path = route.split(" ", 1)
        if declared == method:
            return path
    raise KeyError(f"{operation} declares no {method} route")


def scope_of(operation: str) -> Scope:
    """The scope ``operation`` needs (KeyError for a name nobody declared: a bug)."""
    return OPERATIONS[operation].scope


def may(held: Scope, operation: str) -> bool:
    """Whether a token of scope ``held`` may run ``operation``."""
    return allows(held, scope_of(operation))


def is_agent(held: Scope) -> bool:
    """Whether a caller of scope ``held`` acts as an agent: its records are marked
    as an agent's, and the person's own loops and decisions are not its to
    resolve, withdraw or supersede (``records.person``)."""
    return not may(held, "records.person")


def put_operation(path: str, markdown: str = "put") -> str:
    """The operation that writes (or, with ``markdown="restore"``, restores)
    ``path``: ``markdown`` for a markdown file; any other file (settings,
    .gitignore, .gitattributes) steers hearth and git themselves and is
    ``put.other``. A file under ``continuity/`` (records, their archives,
    conflict copies, rollups) changes through its operations, so writing one
    whole is ``put.records``; restoring a persona or memory file (or a record)
    is the person's ``restore.persona``.

    ``path`` is judged in its canonical form (``./MEMORY.md`` is MEMORY.md),
    whatever the caller did: the write itself normalizes it, so judging the
    spelling it came in would let ``./`` or ``x/../`` choose the scope. A path
    that does not normalize is refused by the write; it is judged as given."""
    with contextlib.suppress(PathRefused):
        path = normalize(path)
    if not path.endswith(".md"):
        return "put.other"
    # Case aside: on a file system that folds case (macOS, Windows) Continuity/
    # is continuity/, and a folder named so beside it reads as it anyway.
    if path.casefold().startswith(CONTINUITY_DIR + "/"):
        return "restore.persona" if markdown == "restore" else "put.records"
    if markdown == "restore" and is_persons_file(path):
        return "restore.persona"
    return markdown


def refusal(held: Scope, operation: str, *, session: bool = False) -> str:
    """What a refused caller is told: a token's holder, or (``session``) a
    ``hearth mcp`` session, whose scope is the ``--scope`` it was started with."""
    needed = scope_of(operation)
    persons = "accepting a change to the assistant's memory or persona is the person's call"
    if session:
        return (
            f"{operation} needs the {needed} scope, and this hearth mcp session was "
            f"started with --scope {held}; "
            + (persons if OPERATIONS[operation].persons_call else f"start it with --scope {needed}")
        )
    return f"{operation} needs a token with the {needed} scope (this one is {held}); " + (
        persons
        if OPERATIONS[operation].persons_call
        else f"create one with: hearth token create --name NAME --scope {needed}"
    )
