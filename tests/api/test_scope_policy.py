"""One scope policy on every surface (DESIGN section 5, ``operations.py``).

Walks what each surface says it runs (the OpenAPI document's
``x-hearth-operation`` of every route, the MCP server's tools) and asks a real
server, with real tokens, that each operation refuses a token one scope below
the policy's and lets through a token of the policy's scope. Then the case the
policy exists for: an agent's ``write`` token cannot merge or reject a
proposal on HTTP, over MCP, or on the review page (which shows it no button),
while a person's ``admin`` token merges on all three.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio

from hearth.operation_texts import adds, scope_sentences, scope_table_markdown, table_markdown
from hearth.operations import OPERATIONS, SCOPES
from tests.api.conftest import Server
from tests.mcp.conftest import call, http_client, refused

DOCS = Path(__file__).resolve().parents[2] / "docs"

# Path parameters and bodies that reach the use case (which may then refuse with
# a 4xx of its own: only 401/403 are the gate's answers).
_SAMPLE_PATH = {
    "path": "notes/x.md",
    "key": "no-such-key",
    "file": "MEMORY.md",
    "runtime": "codex",
    "event": "prompt",
    "conflict_id": "no-such-conflict",
    "name": "no-such-token",
}
_SAMPLE_QUERY = {"q": "x", "path": "SOUL.md", "entry": "x"}


def _routes(server: Server) -> list[tuple[str, str, str]]:
    spec = server.get("/openapi.json", token=None).body
    found = []
    for path, methods in spec["paths"].items():
        for method, info in methods.items():
            operation = info.get("x-hearth-operation")
            if operation is not None:
                found.append((method.upper(), path, operation))
    return found


def _concrete(path: str) -> str:
    def fill(match: re.Match[str]) -> str:
        return quote(_SAMPLE_PATH[match.group(1).split(":")[0]])

    return re.sub(r"\{([^}]+)\}", fill, path)


def _below(scope: str) -> str | None:
    at = SCOPES.index(scope)  # type: ignore[arg-type]
    return SCOPES[at - 1] if at > 0 else None


def test_every_route_names_a_declared_operation_and_every_operation_has_a_surface(
    shared_server: Server,
) -> None:
    routes = _routes(shared_server)
    named = {op for _, _, op in routes}
    assert named <= set(OPERATIONS), named - set(OPERATIONS)
    # Every /v1 route (but healthz) runs a declared operation.
    spec = shared_server.get("/openapi.json", token=None).body
    unnamed = [
        f"{m.upper()} {p}"
        for p, methods in spec["paths"].items()
        for m, info in methods.items()
        if p.startswith("/v1/") and "x-hearth-operation" not in info
    ]
    assert not unnamed, unnamed


def test_each_http_route_refuses_the_scope_below_and_admits_its_own(
    shared_server: Server,
) -> None:
    s = shared_server
    checked = 0
    for method, path, operation in _routes(s):
        needed = OPERATIONS[operation].scope
        url = _concrete(path) + "?" + "&".join(f"{k}={v}" for k, v in _SAMPLE_QUERY.items())
        body: Any = {} if method in ("POST", "PUT") else None
        below = _below(needed)
        if below is not None:
            reply = s.request(method, url, body, token=below)
            assert reply.status == 403, (method, path, below, reply.status, reply.body)
            assert reply.body["error"]["code"] == "forbidden"
            assert needed in reply.body["error"]["message"]
        if operation in ("sync", "reconcile"):
            continue  # admitted, they would run (a sync without a remote is a 409 anyway)
        reply = s.request(method, url, body, token=needed)
        assert reply.status not in (401, 403), (method, path, needed, reply.status, reply.body)
        checked += 1
    assert checked >= 15


def test_writing_a_file_that_is_not_markdown_is_admin_on_http_and_mcp(
    shared_server: Server,
) -> None:
    s = shared_server
    reply = s.put("/v1/files/notes.txt", {"content": "x"}, token="write")
    assert reply.status == 403 and "put.other" in reply.body["error"]["message"]

    async def run() -> Any:
        async with http_client(s, "write") as client:
            return await refused(client, "write", {"path": "notes.txt", "content": "x"})

    assert anyio.run(run)["code"] == "forbidden"


def test_mcp_tools_run_declared_operations_with_the_policys_scope(
    shared_server: Server,
) -> None:
    s = shared_server

    async def run() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with http_client(s, "read") as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            out["tools"] = tools
            out["note"] = await refused(client, "note", {"text": "x"})
        async with http_client(s, "write") as client:
            out["merge"] = await refused(client, "merge", {"key": "k"})
            out["reject"] = await refused(client, "reject", {"key": "k", "reason": "r"})
        return out

    out = anyio.run(run)
    assert {"search", "note", "merge", "reject", "write", "memory"} <= out["tools"]
    for name in ("note", "merge", "reject"):
        assert out[name]["code"] == "forbidden", out[name]
    assert "admin" in out["merge"]["message"] and "person" in out["merge"]["message"]


def _propose(s: Server, title: str) -> str:
    reply = s.post(
        "/v1/proposals", {"title": title, "entries": [f"{title} is a fact"]}, token="write"
    )
    assert reply.status == 200, reply.body
    return str(reply.body["key"])


def test_a_write_token_cannot_merge_or_reject_anywhere_and_an_admin_token_can(
    shared_server: Server,
) -> None:
    s = shared_server
    memory_before = s.get("/v1/files/MEMORY.md", token="read").body["content"]

    # HTTP
    key = _propose(s, "Policy http")
    assert s.post(f"/v1/proposals/{key}/merge", token="write").status == 403
    assert s.post(f"/v1/proposals/{key}/reject", {"reason": "no"}, token="write").status == 403
    assert s.get("/v1/files/MEMORY.md", token="read").body["content"] == memory_before
    assert s.post(f"/v1/proposals/{key}/merge", token="admin").status == 200
    assert "Policy http is a fact" in s.get("/v1/files/MEMORY.md", token="read").body["content"]

    # MCP
    key = _propose(s, "Policy mcp")

    async def run() -> tuple[Any, Any]:
        async with http_client(s, "write") as client:
            no = await refused(client, "merge", {"key": key})
        async with http_client(s, "admin") as client:
            yes = await call(client, "merge", {"key": key})
        return no, yes

    no, yes = anyio.run(run)
    assert no["code"] == "forbidden" and yes["changed"] is True

    # The review page: no button for a write token, and a forged post is refused.
    key = _propose(s, "Policy page")
    page_write = s.get("/ui/", token="write")
    assert page_write.status == 200
    html = page_write.raw.decode()
    assert f"/ui/proposals/{key}/merge" not in html
    assert f"/ui/proposals/{key}/reject" not in html
    assert f"/ui/proposals/{key}/entries" in html  # editing is a write
    assert "need an admin token" in html
    html_admin = s.get("/ui/", token="admin").raw.decode()
    assert f"/ui/proposals/{key}/merge" in html_admin
    assert f"/ui/proposals/{key}/reject" in html_admin


def test_the_docs_carry_the_policys_table() -> None:
    table = table_markdown()
    for name in ("api.md", "mcp.md", "ui.md"):
        text = (DOCS / name).read_text()
        assert table in text, f"docs/{name} does not carry the table of operations.py"


def test_the_scope_sentences_come_from_the_policy(shared_server: Server) -> None:
    """The login page and docs/operations.md say what each scope may as the
    catalogue says it (issue 35: both said a write token could merge and reject)."""
    operations = (DOCS / "operations.md").read_text()
    assert scope_table_markdown() in operations
    html = shared_server.get("/ui/login", token=None).raw.decode()
    for scope, sentence in scope_sentences().items():
        assert sentence in operations, scope
        assert sentence.replace("'", "&#39;") in html, (scope, html)
    for name in adds("admin"):
        assert OPERATIONS[name].does not in scope_sentences()["write"]
    # In words: no catalogue name a person cannot read (issue 50, case 7).
    for sentence in scope_sentences().values():
        for internal in ("memory.settle", "put.other", "merge.many", "reject.many"):
            assert internal not in sentence, sentence
    assert "merge" in adds("admin") and "reject" in adds("admin")
    assert "write token can also merge" not in html
    assert "proposals (create, merge, reject)" not in operations
