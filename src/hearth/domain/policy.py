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
    name: str
    scope: Scope
    #: One line for the docs' table: what the operation does.
    does: str


_DECLARED = (
    Operation("status", "read", "the home's health and freshness"),
    Operation("search", "read", "search the home"),
    Operation("read", "read", "read a file (or a line range of it)"),
    Operation("context", "read", "the hot files and recall for a turn"),
    Operation("active", "read", "continuity/ACTIVE.md"),
    Operation("review", "read", "pending proposals and open loops"),
    Operation("proposals", "read", "list pending proposals"),
    Operation("loops", "read", "list open loops"),
    Operation("history", "read", "a file's commits"),
    Operation("diff", "read", "a diff between revisions"),
    Operation("memory.list", "read", "the entries of a memory file"),
    Operation("check", "read", "check staged files against the rules (the pre-commit hook)"),
    Operation("note", "write", "append an entry to today's daily note"),
    Operation("put", "write", "write a markdown file (other files: put.other)"),
    Operation("propose", "write", "propose memory entries for a person to review"),
    Operation("loop.add", "write", "open a loop"),
    Operation("loop.resolve", "write", "resolve (archive) an open loop"),
    Operation("memory.add", "write", "add an entry to a memory file"),
    Operation("memory.replace", "write", "replace an entry of a memory file"),
    Operation("memory.remove", "write", "remove an entry of a memory file"),
    Operation("topic", "write", "create, replace or append to a topic note"),
    Operation("restore", "write", "restore a markdown file from an earlier revision"),
    Operation("edit", "write", "edit a pending proposal's entries before review"),
    Operation("merge", "admin", "accept a proposal into its target file"),
    Operation("reject", "admin", "decline a proposal with a reason"),
    Operation("merge.many", "admin", "accept many proposals in one commit"),
    Operation("reject.many", "admin", "decline many proposals with one reason, in one commit"),
    Operation("put.other", "admin", "write a file that is not markdown (hearth.toml, ...)"),
    Operation("reconcile", "admin", "run a reconcile pass"),
    Operation("sync", "admin", "sync with the remote"),
    Operation("tokens", "admin", "create, list and revoke tokens"),
)

#: Every operation a token can ask for, by name.
OPERATIONS: dict[str, Operation] = {op.name: op for op in _DECLARED}


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
        if operation in ("merge", "reject", "merge.many", "reject.many")
        else f"create one with: hearth token create --name NAME --scope {needed}"
    )


def table_markdown() -> str:
    """The table of operations and scopes the docs carry (checked by a test)."""
    lines = ["| operation | scope | what it does |", "| --- | --- | --- |"]
    lines += [f"| `{op.name}` | `{op.scope}` | {op.does} |" for op in _DECLARED]
    return "\n".join(lines)
