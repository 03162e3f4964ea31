"""Review that keeps up on HTTP, MCP and the CLI (issue 28): each surface shows
the same matches and groups, and batches are admin-only, all or nothing, and
refuse bad input with a 4xx (a tool error, exit 1), never a traceback."""

from __future__ import annotations

import json
from typing import Any

import anyio

from tests.api.conftest import Server
from tests.conftest import git
from tests.e2e.test_cli_e2e import ok
from tests.e2e.test_cli_e2e import refused as cli_refused
from tests.mcp.conftest import call, http_client, refused


def propose(s: Server, title: str, entries: list[str], **extra: str) -> str:
    reply = s.post("/v1/proposals", {"title": title, "entries": entries, **extra}, token="write")
    assert reply.status == 200, reply.body
    return str(reply.body["key"])


def test_matches_and_groups_on_every_surface(shared_server: Server) -> None:
    s = shared_server
    s.post("/v1/memory/MEMORY.md/entries", {"entry": "Noor is allergic to wasps"}, token="write")
    memory = s.get("/v1/files/MEMORY.md", token="read").body["content"].split("\n")
    line = memory.index("- Noor is allergic to wasps") + 1
    wasps = propose(s, "Wasps", ["Noor has an allergy to wasps"])
    stings = propose(s, "Stings", ["Noor's wasp allergy"])

    body = s.get("/v1/proposals", token="read").body
    assert body["review"]["measures"] == "words" and body["review"]["threshold"] == 0.56
    found = {p["key"]: p for p in body["proposals"]}
    first = found[wasps]["matches"][0]
    assert first["entry"] == "Noor has an allergy to wasps" and first["known"] is True
    known = [m for m in first["matches"] if m["where"] == "known"]
    assert known[0]["path"] == "MEMORY.md" and known[0]["line"] == line
    also = [m for m in first["matches"] if m["where"] == "proposed"]
    assert also[0]["key"] == stings
    assert found[wasps]["group"] == found[stings]["group"] is not None
    assert any({wasps, stings} <= set(g) for g in body["review"]["groups"])
    assert found[wasps]["known_entries"] == 1 and found[wasps]["over_bound"] is None

    async def run() -> Any:
        async with http_client(s, "read") as client:
            return await call(client, "review")

    review = anyio.run(run)
    mcp = {p["key"]: p for p in review["proposals"]}
    assert _plain(mcp[wasps]["matches"]) == _plain(found[wasps]["matches"])
    assert review["review"]["groups"] == body["review"]["groups"]

    cli = ok("--home", str(s.root), "proposals", "--json")
    listed = {p["key"]: p for p in json.loads(cli)["proposals"]}
    assert _plain(listed[wasps]["matches"]) == _plain(found[wasps]["matches"])
    text = ok("--home", str(s.root), "proposals")
    assert f"known in MEMORY.md:{line} 'Noor is allergic to wasps'" in text
    assert "near-duplicates (merge or reject together):" in text
    for key in (wasps, stings):
        assert (
            s.post(f"/v1/proposals/{key}/reject", {"reason": "test"}, token="admin").status == 200
        )


def _plain(matches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The matches without the null ``key`` the HTTP model adds to a known entry's."""
    return [
        {**m, "matches": [{k: v for k, v in x.items() if v is not None} for x in m["matches"]]}
        for m in matches
    ]


def test_batch_merge_and_reject_over_http(shared_server: Server) -> None:
    s = shared_server
    keys = [propose(s, f"Batch {n}", [f"batch fact number {n}"]) for n in range(3)]
    seen = {f"continuity/proposals/memory/{k}.md": None for k in keys[:1]}
    reply = s.post("/v1/proposals/merge", {"keys": keys, "expected": seen}, token="admin")
    assert reply.status == 409 and reply.body["error"]["code"] == "stale_write"
    assert s.post("/v1/proposals/merge", {"keys": keys}, token="write").status == 403
    assert s.post("/v1/proposals/merge", {"keys": []}, token="admin").status == 422
    assert s.post("/v1/proposals/merge", {"keys": ["../x"]}, token="admin").status == 404
    reply = s.post(
        "/v1/proposals/merge", {"keys": keys[:1], "expected": {"../../etc": None}}, token="admin"
    )
    assert reply.status == 400
    head = git(s.root, "rev-parse", "HEAD")
    reply = s.post("/v1/proposals/merge", {"keys": keys[:2]}, token="admin")
    assert reply.status == 200, reply.body
    assert reply.body["keys"] == keys[:2] and reply.body["added"] == 2
    assert git(s.root, "rev-parse", "HEAD~1") == head
    content = s.get("/v1/files/MEMORY.md", token="read").body["content"]
    assert "- batch fact number 0" in content and "- batch fact number 1" in content
    reply = s.post("/v1/proposals/reject", {"keys": keys[2:], "reason": "enough"}, token="admin")
    assert reply.status == 200 and reply.body["outcome"] == "rejected"
    assert s.post("/v1/proposals/reject", {"keys": keys[2:]}, token="admin").status == 422


def test_batch_tools_over_mcp_are_admin_only(shared_server: Server) -> None:
    s = shared_server
    keys = [propose(s, f"Mcp batch {n}", [f"mcp batch fact {n}"]) for n in range(2)]

    async def run() -> tuple[Any, Any, Any]:
        async with http_client(s, "write") as client:
            no = await refused(client, "merge_many", {"keys": keys})
        async with http_client(s, "admin") as client:
            gone = await refused(client, "merge_many", {"keys": [*keys, "nope--x"]})
            yes = await call(client, "merge_many", {"keys": keys})
        return no, gone, yes

    no, gone, yes = anyio.run(run)
    assert no["code"] == "forbidden" and "admin" in no["message"]
    assert gone["code"] == "not_found"
    assert yes["keys"] == keys and yes["added"] == 2 and yes["changed"] is True


def test_batch_on_the_cli(shared_server: Server) -> None:
    s = shared_server
    keys = [propose(s, f"Cli batch {n}", [f"cli batch fact {n}"]) for n in range(2)]
    home = ["--home", str(s.root)]
    assert "not a record key" in cli_refused(*home, "merge", keys[0], "not-a-key")
    done = ok(*home, "reject", *keys, "--reason", "duplicates", "--json")
    assert json.loads(done)["keys"] == keys
    assert "proposals: reject 2 proposals" in git(s.root, "log", "-1", "--format=%s")
