"""The catalogue in words: the docs' tables of operations and scopes, and the
sentence each scope's token is described by (the login page and
docs/operations.md), all rendered from ``operations.py`` so none can drift from
the policy (tests/api/test_scope_policy.py checks the docs carry them).
"""

from __future__ import annotations

from hearth.operations import OPERATIONS, SCOPES, Scope


def table_markdown() -> str:
    """The table of operations and scopes the docs carry (checked by a test)."""
    lines = [
        "| operation | scope | what it does | HTTP | MCP tool | CLI |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for op in OPERATIONS.values():
        http = ", ".join(f"`{route}`" for route in op.http)
        tool = f"`{op.mcp}`" if op.mcp else ""
        cli = ", ".join(f"`hearth {command}`" for command in op.cli)
        lines.append(f"| `{op.name}` | `{op.scope}` | {op.does} | {http} | {tool} | {cli} |")
    return "\n".join(lines)


def adds(scope: Scope) -> tuple[str, ...]:
    """The operations ``scope`` is the first to allow, in the catalogue's order."""
    return tuple(op.name for op in OPERATIONS.values() if op.scope == scope)


def scope_sentences() -> dict[Scope, str]:
    """One sentence per scope, from the catalogue: what a token of that scope may
    do beyond the scope below it. The login page and docs/operations.md carry
    these (checked by a test), so neither can drift from the policy."""
    sentences: dict[Scope, str] = {}
    for scope in SCOPES:
        # In words (each operation's ``does``), not the catalogue's names: a
        # person reads these, and ``merge.many`` or ``put.other`` says nothing.
        words = "; ".join(OPERATIONS[name].does for name in adds(scope))
        if scope == "read":
            sentences[scope] = f"A read token searches and reads: {words}."
        else:
            article = "An" if scope[0] in "aeiou" else "A"
            sentences[scope] = f"{article} {scope} token can also: {words}."
    return sentences


def scope_table_markdown() -> str:
    """docs/operations.md's table of scopes (checked by a test)."""
    lines = ["| scope | may |", "|---|---|"]
    for scope in SCOPES:
        what = "; ".join(op.does for op in OPERATIONS.values() if op.scope == scope)
        below = "" if scope == "read" else "everything the scope below may, and: "
        lines.append(f"| `{scope}` | {below}{what} |")
    return "\n".join(lines)
