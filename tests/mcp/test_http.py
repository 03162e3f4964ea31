"""MCP over streamable HTTP on a real ``hearth serve``: tokens, scopes, every tool."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import anyio
import pytest

from hearth.domain.keys import KEY_PATTERN
from hearth.domain.layout import ENTRIES_FILE_PATTERN, USER_ID_PATTERN
from hearth.domain.paths import PATH_PATTERN
from hearth.domain.text import NOT_BLANK
from tests.api.conftest import Server
from tests.conftest import git
from tests.mcp.conftest import call, http_client, refused

TOOLS = {
    "search": (True, False),
    "read": (True, False),
    "context": (True, False),
    "review": (True, False),
    "history": (True, False),
    "diff": (True, False),
    "status": (True, False),
    "note": (False, False),
    "propose": (False, False),
    "add_loop": (False, False),
    "resolve_loop": (False, True),
    "write": (False, True),
    "memory": (False, True),
    "topic": (False, False),
    "merge": (False, True),
    "reject": (False, True),
    "decisions": (True, False),
    "decide": (False, True),
    "withdraw_decision": (False, True),
    "merge_many": (False, True),
    "reject_many": (False, True),
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def test_no_or_unknown_token_is_401_before_any_mcp_exchange(shared_server: Server) -> None:
    for path in ("/mcp", "/mcp/"):
        for token in (None, "hth_not-a-real-token"):
            reply = shared_server.post(path, INITIALIZE, token=token, headers=ACCEPT)
            assert reply.status == 401, (path, token, reply.raw[:200])
            assert b"protocolVersion" not in reply.raw


def test_both_paths_serve_and_tools_are_listed_with_schemas(shared_server: Server) -> None:
    async def run() -> dict[str, Any]:
        listed = {}
        for path in ("/mcp", "/mcp/"):
            async with http_client(shared_server, "read", path) as client:
                listed[path] = {t.name: t for t in (await client.list_tools()).tools}
        return listed

    listed = anyio.run(run)
    assert set(listed["/mcp"]) == set(listed["/mcp/"]) == set(TOOLS)
    for name, (read_only, destructive) in TOOLS.items():
        tool = listed["/mcp"][name]
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is read_only, name
        assert tool.annotations.destructive_hint is destructive, name
        assert tool.annotations.idempotent_hint is not None, name
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema is not None, name
        # Published without references (a client checks every result against it).
        assert "$ref" not in json.dumps(tool.output_schema), name
        assert len(tool.description or "") > 80, name
        assert "actor" not in tool.input_schema.get("properties", {})
    search = listed["/mcp"]["search"].input_schema
    assert search["required"] == ["query"]
    assert set(search["properties"]) == {"query", "kind", "path", "limit", "all"}
    assert set(listed["/mcp"]["diff"].input_schema["properties"]) == {"path", "from", "to"}
    assert set(listed["/mcp"]["memory"].input_schema["properties"]) == {
        "op",
        "file",
        "entry",
        "new_entry",
        "section",
    }
    # The inputs HTTP takes too are declared once (hearth.answers): the same patterns.
    tools = {name: tool.input_schema["properties"] for name, tool in listed["/mcp"].items()}
    assert _patterns(tools["read"]["path"]) == {PATH_PATTERN}
    assert _patterns(tools["memory"]["file"]) == {ENTRIES_FILE_PATTERN}
    assert _patterns(tools["propose"]["target"]) == {ENTRIES_FILE_PATTERN}
    assert _patterns(tools["context"]["user"]) == {USER_ID_PATTERN}
    assert _patterns(tools["reject"]["key"]) == {KEY_PATTERN}
    assert _patterns(tools["reject"]["reason"]) == {NOT_BLANK}
    assert _patterns(tools["propose"]["entries"]["items"]) == {NOT_BLANK}


def _patterns(schema: dict[str, Any]) -> set[str]:
    """The patterns a property's schema (or the branches of its ``anyOf``) declares."""
    found = {schema["pattern"]} if "pattern" in schema else set()
    for branch in schema.get("anyOf", []):
        found |= _patterns(branch)
    return found


def test_note_then_search_is_one_commit_with_trailers(shared_server: Server) -> None:
    s = shared_server

    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        async with http_client(s, "write") as client:
            written = await call(
                client, "note", {"text": "Pemberton the otter visits on Tuesdays", "title": "Otter"}
            )
            found = await call(client, "search", {"query": "Pemberton", "kind": "daily"})
            return written, found

    written, found = anyio.run(run)
    assert written["changed"] and written["path"].startswith("memory/")
    hit = next(h for h in found["hits"] if h["path"] == written["path"])
    assert {"heading", "start_line", "end_line", "score", "snippet"} <= set(hit)
    assert "Pemberton" in hit["snippet"]
    assert isinstance(found["fresh"], bool)
    message = git(s.root, "log", "-1", "--format=%B", written["commit"])
    assert "Hearth-Op: note" in message or "Hearth-Op: daily" in message, message
    assert "Hearth-Actor: mcp:t-write-" in message
    assert git(s.root, "rev-list", "--count", f"{written['commit']}^..{written['commit']}") == "1\n"


def test_scopes_are_tool_errors_with_the_apis_code_and_message(shared_server: Server) -> None:
    s = shared_server
    api_refusal = s.post("/v1/daily", {"text": "nope"}, token="read").body["error"]

    async def run() -> list[dict[str, Any]]:
        found = []
        async with http_client(s, "read") as client:
            found.append(await refused(client, "note", {"text": "nope"}))
            found.append(
                await refused(client, "memory", {"op": "add", "file": "MEMORY.md", "entry": "x"})
            )
            await call(client, "memory", {"op": "list", "file": "MEMORY.md"})
            await call(client, "status")  # the session goes on after refusals
        async with http_client(s, "write") as client:
            found.append(await refused(client, "merge", {"key": "anything"}))
            found.append(await refused(client, "reject", {"key": "anything", "reason": "no"}))
            found.append(await refused(client, "write", {"path": "hearth.toml", "content": "x"}))
            await call(client, "review")
        return found

    note, memory, merge, reject, settings = anyio.run(run)
    assert note["code"] == memory["code"] == api_refusal["code"] == "forbidden"
    assert note["message"] == api_refusal["message"]
    assert merge["code"] == reject["code"] == "forbidden"
    assert "admin" in merge["message"]
    settings_api = s.put("/v1/files/hearth.toml", {"content": "x"}, token="write").body["error"]
    assert (settings["code"], settings["message"]) == (
        settings_api["code"],
        settings_api["message"],
    )


@pytest.mark.parametrize("path", ["../../etc/passwd", ".git/config", "link-out/secret.md"])
def test_hostile_reads_are_the_apis_errors_and_read_nothing(
    shared_server: Server, path: str
) -> None:
    s = shared_server
    if not (s.root / "link-out").exists():
        target = s.root.parent / "elsewhere"
        target.mkdir(exist_ok=True)
        (target / "secret.md").write_text("# secret outside\n")
        (s.root / "link-out").symlink_to(target)
    api = s.get(f"/v1/files/{quote(path)}").body["error"]

    async def run() -> dict[str, Any]:
        async with http_client(s, "admin") as client:
            error = await refused(client, "read", {"path": path})
            await call(client, "read", {"path": "SOUL.md", "end_line": 1})
            return error

    error = anyio.run(run)
    assert (error["code"], error["message"]) == (api["code"], api["message"])
    assert "secret outside" not in str(error) and "[core]" not in str(error)


def test_every_write_tool_over_http(shared_server: Server) -> None:
    s = shared_server

    async def run() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with http_client(s, "admin") as client:
            proposal = await call(
                client,
                "propose",
                {"title": "Tea", "entries": ["Prefers green tea"], "rationale": "said so twice"},
            )
            other = await call(client, "propose", {"title": "Coffee", "entries": ["Hates it"]})
            review = await call(client, "review")
            assert {proposal["key"], other["key"]} <= {p["key"] for p in review["proposals"]}
            out["merge"] = await call(client, "merge", {"key": proposal["key"]})
            out["reject"] = await call(client, "reject", {"key": other["key"], "reason": "no"})
            out["unknown"] = await refused(client, "merge", {"key": proposal["key"]})
            loop = await call(
                client, "add_loop", {"title": "Call the plumber", "next_step": "ring"}
            )
            out["resolve"] = await call(
                client, "resolve_loop", {"key": loop["key"], "note": "done"}
            )
            got = await call(client, "read", {"path": "SOUL.md"})
            out["stale"] = await refused(
                client, "write", {"path": "SOUL.md", "content": "# x\n", "expected_oid": "0" * 40}
            )
            out["rule"] = await refused(client, "write", {"path": "SOUL.md", "content": "# x\n"})
            new = (s.root / "SOUL.md").read_text() + "\nSteady and candid.\n"
            out["write"] = await call(
                client, "write", {"path": "SOUL.md", "content": new, "expected_oid": got["oid"]}
            )
            out["topic"] = await call(client, "topic", {"title": "Otters", "content": "They swim."})
            await call(client, "topic", {"title": "Otters", "append": "Second\nThey hold hands."})
            out["add"] = await call(
                client, "memory", {"op": "add", "file": "USER.md", "entry": "Lives by a lake"}
            )
            out["replace"] = await call(
                client,
                "memory",
                {
                    "op": "replace",
                    "file": "USER.md",
                    "entry": "Lives by a lake",
                    "new_entry": "Lives by a big lake",
                },
            )
            out["missing"] = await refused(
                client, "memory", {"op": "remove", "file": "USER.md", "entry": "never said"}
            )
            out["remove"] = await call(
                client,
                "memory",
                {"op": "remove", "file": "USER.md", "entry": "Lives by a big lake"},
            )
            out["history"] = await call(client, "history", {"path": "USER.md", "limit": 5})
            wrote = out["write"]["commit"]
            out["diff"] = await call(
                client, "diff", {"path": "SOUL.md", "from": f"{wrote}~1", "to": wrote}
            )
            out["context"] = await call(client, "context", {"q": "otters swim"})
        return out

    out = anyio.run(run)
    assert "Prefers green tea" in (s.root / "MEMORY.md").read_text()
    assert out["unknown"]["code"] == "not_found"
    assert out["stale"]["code"] == "stale_write"
    assert out["rule"]["code"] == "validation_failed"
    assert (s.root / "SOUL.md").read_text().endswith("\nSteady and candid.\n")
    otters = (s.root / "memory/topics/otters.md").read_text()
    assert "They swim." in otters and "They hold hands." in otters
    assert out["missing"]["code"] == "entry_missing"
    assert "big lake" not in (s.root / "USER.md").read_text()
    assert [c["subject"] for c in out["history"]["commits"][:3]] == [
        git(s.root, "log", "-1", "--format=%s", c["id"]).strip()
        for c in out["history"]["commits"][:3]
    ]
    assert "+Steady and candid." in out["diff"]["diff"]
    assert any(p["path"] == "memory/topics/otters.md" for p in out["context"]["recall"])
    commits = {k: v["commit"] for k, v in out.items() if isinstance(v, dict) and v.get("commit")}
    log = git(s.root, "log", "--format=%H %s")
    for name, commit in commits.items():
        assert commit in log, name
        trailers = git(s.root, "log", "-1", "--format=%B", commit)
        assert "Hearth-Actor: mcp:t-admin-" in trailers, name


def test_resources_and_prompt_over_http(shared_server: Server) -> None:
    async def run() -> tuple[list[str], str, str]:
        async with http_client(shared_server, "read") as client:
            uris = [str(r.uri) for r in (await client.list_resources()).resources]
            soul = await client.read_resource("hearth://home/SOUL.md")
            prompt = await client.get_prompt("session_start", {})
            return uris, soul.contents[0].text, prompt.messages[0].content.text  # type: ignore[union-attr]

    uris, soul, prompt = anyio.run(run)
    assert "hearth://home/SOUL.md" in uris
    assert "hearth://home/continuity/ACTIVE.md" in uris
    assert soul == (shared_server.root / "SOUL.md").read_text()
    assert "===== SOUL.md =====" in prompt


def test_many_clients_writing_at_once_lose_nothing(shared_server: Server) -> None:
    s = shared_server

    async def writer(n: int, texts: list[str]) -> None:
        async with http_client(s, "write") as client:
            for i in range(4):
                text = f"concurrent note {n}-{i} marmot{n}x{i}"
                await call(client, "note", {"text": text})
                texts.append(text)

    async def run() -> list[str]:
        texts: list[str] = []
        async with anyio.create_task_group() as group:
            for n in range(4):
                group.start_soon(writer, n, texts)
        return texts

    texts = anyio.run(run)
    log = git(s.root, "log", "-p", "--format=%s")
    for text in texts:
        assert text in log, text
    git(s.root, "fsck", "--no-progress")


def test_a_rejected_proposal_is_no_context_recall(shared_server: Server) -> None:
    """Issue 48, "the rejected proposal not recalled" by MCP ``context``: the
    archived proposal holds every word of the prompt, and is still no memory."""
    s = shared_server

    async def run() -> dict[str, Any]:
        async with http_client(s, "admin") as client:
            made = await call(
                client, "propose", {"title": "Gardening", "entries": ["Sam hates gardening"]}
            )
            await call(client, "reject", {"key": made["key"], "reason": "not true"})
            result: dict[str, Any] = await call(
                client, "context", {"q": "Does Sam hate gardening?"}
            )
            return result

    recall = anyio.run(run)["recall"]
    assert all("Sam hates gardening" not in p["text"] for p in recall), recall


def test_a_day_word_alone_is_searched_never_recalled(shared_server: Server) -> None:
    """Issue 48, "a search made only of a day, time or small-talk word": MCP
    ``search`` for "tonight" finds the note that holds it (no matches on
    main); MCP ``context`` for the same word stays silent (small talk)."""
    s = shared_server
    text = "Packing the Varnholt boxes tonight"

    async def run() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        async with http_client(s, "write") as client:
            written = await call(client, "note", {"text": text, "title": "Boxes"})
            found = await call(client, "search", {"query": "tonight"})
            recalled = await call(client, "context", {"q": "tonight"})
            return written, found, recalled

    written, found, recalled = anyio.run(run)
    assert written["path"] in [h["path"] for h in found["hits"]], found
    assert all(text not in p["text"] for p in recalled["recall"]), recalled
