"""The one scope policy (DESIGN section 5): which scope each operation needs.

Every surface that acts for a token (the HTTP routes, the MCP tools, the review
page) names the operation it runs and asks this table; none of them states a
scope of its own. So an operation cannot need ``admin`` over MCP and ``write``
over HTTP: there is one answer. The docs' table of operations and scopes
(docs/api.md, docs/mcp.md, docs/ui.md) is ``table_markdown()``, checked by a
test.

Scopes are ordered: ``read`` searches and reads everything; ``write`` also
writes (daily notes, markdown files, entries, topics, person notes, proposals,
loops and their resolution, decisions and their withdrawal, restores of
markdown files); ``admin`` alone accepts or declines a change to the
assistant's long-term memory or persona on the person's behalf (merge,
reject), reconciles, syncs, writes files that are not markdown and manages
tokens. A person's own token is ``admin``; an agent's is ``write``: the agent
proposes, the person approves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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
    ``tests/api/test_catalogue.py`` walks this table against the running surfaces:
    every surface declared here exists and runs this operation, with this scope,
    and nothing runs an operation this table does not declare there."""

    name: str
    scope: Scope
    #: One line for the docs' table: what the operation does.
    does: str
    #: HTTP routes, ``"METHOD /path"`` as the OpenAPI document spells them.
    http: tuple[str, ...] = ()
    #: The MCP tool's name (DESIGN section 9).
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
        "write a markdown file (other files: put.other)",
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
        cli=("memory settle",),
        persons_call=True,
    ),
    Operation(
        "topic", "write", "create, replace or append to a topic note", mcp="topic", cli=("topic",)
    ),
    Operation(
        "restore", "write", "restore a markdown file from an earlier revision", cli=("restore",)
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
        cli=("token create", "token list", "token revoke"),
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


def put_operation(path: str, markdown: str = "put") -> str:
    """The operation that writes (or, with ``markdown="restore"``, restores)
    ``path``: ``markdown`` for a markdown file; any other file (settings,
    .gitignore, .gitattributes) steers hearth and git themselves and is
    ``put.other``."""
    return markdown if path.endswith(".md") else "put.other"


def refusal(held: Scope, operation: str) -> str:
    """What a refused caller is told."""
    needed = scope_of(operation)
    return f"{operation} needs a token with the {needed} scope (this one is {held}); " + (
        "accepting a change to the assistant's memory or persona is the person's call"
        if OPERATIONS[operation].persons_call
        else f"create one with: hearth token create --name NAME --scope {needed}"
    )


def table_markdown() -> str:
    """The table of operations and scopes the docs carry (checked by a test)."""
    lines = [
        "| operation | scope | what it does | HTTP | MCP tool | CLI |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for op in _DECLARED:
        http = ", ".join(f"`{route}`" for route in op.http)
        tool = f"`{op.mcp}`" if op.mcp else ""
        cli = ", ".join(f"`hearth {command}`" for command in op.cli)
        lines.append(f"| `{op.name}` | `{op.scope}` | {op.does} | {http} | {tool} | {cli} |")
    return "\n".join(lines)


def adds(scope: Scope) -> tuple[str, ...]:
    """The operations ``scope`` is the first to allow, in the catalogue's order."""
    return tuple(op.name for op in _DECLARED if op.scope == scope)


def scope_sentences() -> dict[Scope, str]:
    """One sentence per scope, from the catalogue: what a token of that scope may
    do beyond the scope below it. The login page and docs/operations.md carry
    these (checked by a test), so neither can drift from the policy."""
    sentences: dict[Scope, str] = {}
    for scope in SCOPES:
        names = ", ".join(adds(scope))
        if scope == "read":
            sentences[scope] = f"A read token searches and reads: {names}."
        else:
            article = "An" if scope[0] in "aeiou" else "A"
            sentences[scope] = f"{article} {scope} token can also: {names}."
    return sentences


def scope_table_markdown() -> str:
    """docs/operations.md's table of scopes (checked by a test)."""
    lines = ["| scope | may |", "|---|---|"]
    for scope in SCOPES:
        what = "; ".join(op.does for op in _DECLARED if op.scope == scope)
        below = "" if scope == "read" else "everything the scope below may, and: "
        lines.append(f"| `{scope}` | {below}{what} |")
    return "\n".join(lines)
