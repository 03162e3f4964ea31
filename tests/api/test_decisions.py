"""Decisions, the third record kind, on every surface of a real served home:
HTTP, the official MCP client, the CLI, ACTIVE.md and git's own record of them.

A decision is what the person and the assistant settled: created by title (the
same title supersedes it), listed while in force, withdrawn with a reason into
``continuity/decisions/archive/``; each write is one commit.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.api.conftest import BIN, Server, wait_for
from tests.mcp.conftest import call, http_client, refused

pytestmark = pytest.mark.e2e  # the installed executable and a real server


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def _active(server: Server) -> str:
    return (server.root / "continuity" / "ACTIVE.md").read_text()


def _decisions(server: Server, token: str = "read") -> list[dict[str, Any]]:
    reply = server.get("/v1/decisions", token=token)
    assert reply.status == 200, reply.body
    return list(reply.body["decisions"])


def test_decide_supersede_and_withdraw_over_http(server: Server) -> None:
    s = server
    first = s.post(
        "/v1/decisions",
        {"title": "Editor for memory", "decision": "We use vim.", "why": "terminal habit"},
        token="write",
    )
    assert first.status == 200, first.body
    key = first.body["key"]
    assert first.body["path"] == f"continuity/decisions/{key}.md"
    assert _git(s.root, "log", "-1", "--format=%s").strip() == "decisions: decide Editor for memory"
    listed = _decisions(s)
    assert [(d["key"], d["decision"], d["why"]) for d in listed] == [
        (key, "We use vim.", "terminal habit")
    ]
    # ACTIVE.md carries it, under its own heading, once the worker renders it.
    assert wait_for(lambda: "We use vim." in _active(s), timeout=10)
    active = _active(s)
    assert active.index("## Pending proposals") < active.index("## Decisions")
    assert active.index("## Decisions") < active.index("## Today")

    # The same title, in other case and spacing, supersedes it: same key, new text.
    again = s.post(
        "/v1/decisions",
        {"title": "editor  FOR memory", "decision": "We use helix now."},
        token="write",
    )
    assert again.status == 200 and again.body["key"] == key
    (only,) = _decisions(s)
    assert (only["decision"], only["why"]) == ("We use helix now.", "")
    assert only["created"] == listed[0]["created"]
    assert wait_for(lambda: "helix" in _active(s) and "We use vim." not in _active(s), 10)
    # git keeps what it said before.
    old = _git(s.root, "show", f"HEAD~1:continuity/decisions/{key}.md")
    assert "We use vim." in old

    # A second decision: ACTIVE.md lists the newest first (times are to the second).
    time.sleep(1.1)
    other = s.post(
        "/v1/decisions", {"title": "Daily notes language", "decision": "English."}, token="write"
    )
    assert other.status == 200
    assert wait_for(lambda: "English." in _active(s), timeout=10)
    section = _active(s).split("## Decisions", 1)[1].split("## Today", 1)[0]
    assert section.index("Daily notes language") < section.index("editor FOR memory")

    # Refusals: 4xx with a JSON body, nothing committed.
    head = _git(s.root, "rev-parse", "HEAD")
    assert s.post(f"/v1/decisions/{key}/withdraw", {"reason": ""}, token="write").status == 422
    assert s.post("/v1/decisions", {"title": "x", "decision": ""}, token="write").status == 422
    assert s.post("/v1/decisions", {"title": "x", "decision": "y"}, token="read").status == 403
    missing = s.post(
        f"/v1/decisions/{other.body['key'][:-1]}0/withdraw", {"reason": "r"}, token="write"
    )
    assert missing.status == 404 and missing.body["error"]["code"] == "not_found"
    assert _git(s.root, "rev-parse", "HEAD") == head

    # Withdraw: archived with the reason, in one commit; the listing and ACTIVE.md drop it.
    gone = s.post(f"/v1/decisions/{key}/withdraw", {"reason": "we moved on"}, token="write")
    assert gone.status == 200, gone.body
    shown = _git(s.root, "show", "--stat", "--format=%s%n%b", "HEAD")
    assert shown.startswith("decisions: withdraw editor FOR memory")
    assert "Hearth-Op: decision.withdraw" in shown
    archived = list((s.root / "continuity" / "decisions" / "archive").glob(f"{key}--*.md"))
    assert len(archived) == 1
    text = archived[0].read_text()
    assert "status: withdrawn" in text and "reason: we moved on" in text
    assert [d["key"] for d in _decisions(s)] == [other.body["key"]]
    assert wait_for(lambda: "helix" not in _active(s), timeout=10)
    # Status is a snapshot the served process renews after each pass: it
    # catches up with the withdrawal (on a loaded machine, a moment later).
    assert wait_for(
        lambda: s.get("/v1/status", token="read").body["active_decisions"] == 1, timeout=10
    )
    # Search finds a decision by its words, with its kind.
    reply = s.get("/v1/search?q=English&kind=decision", token="read")
    assert [h["path"] for h in reply.body["hits"]] == [other.body["path"]]


def test_decisions_over_mcp_with_the_official_client(shared_server: Server) -> None:
    s = shared_server

    async def run() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with http_client(s, "read") as client:
            out["tools"] = {t.name for t in (await client.list_tools()).tools}
            out["read_decide"] = await refused(client, "decide", {"title": "t", "decision": "d"})
        async with http_client(s, "write") as client:
            out["made"] = await call(
                client,
                "decide",
                {"title": "Backups", "decision": "Nightly to the NAS.", "why": "cheap"},
            )
            out["listed"] = await call(client, "decisions")
            out["no_reason"] = await client.call_tool(
                "withdraw_decision", {"key": out["made"]["key"], "reason": ""}
            )
            out["withdrawn"] = await call(
                client, "withdraw_decision", {"key": out["made"]["key"], "reason": "moved to S3"}
            )
            out["after"] = await call(client, "decisions")
        return out

    out = anyio.run(run)
    assert {"decide", "decisions", "withdraw_decision"} <= out["tools"]
    assert out["read_decide"]["code"] == "forbidden"
    key = out["made"]["key"]
    assert out["made"]["changed"] is True
    assert [(d["key"], d["decision"], d["why"]) for d in out["listed"]["decisions"]] == [
        (key, "Nightly to the NAS.", "cheap")
    ]
    assert out["no_reason"].is_error
    assert out["withdrawn"]["changed"] is True
    assert key not in {d["key"] for d in out["after"]["decisions"]}


def test_decisions_with_the_cli_and_a_broken_file(tmp_path: Path) -> None:
    root = tmp_path / "home"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "hearth"), "--home", str(root), *args],
            capture_output=True,
            text=True,
            check=False,
        )

    assert run("init", str(root)).returncode == 0
    made = run("decide", "--title", "Tea", "--decision", "Green, no sugar.", "--why", "taste")
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    listed = run("decisions")
    assert listed.stdout.strip() == f"{key}  Tea: Green, no sugar."
    refused_run = run("decision", "withdraw", key, "--reason", " ")
    assert refused_run.returncode == 1 and "reason" in refused_run.stderr
    # A key that is no key is not found, whatever the reason says.
    no_key = run("decision", "withdraw", "nokey", "--reason", " ")
    assert no_key.returncode == 1 and "not a record key" in no_key.stderr
    assert "Traceback" not in refused_run.stderr
    # A hand-written decision file that does not parse is listed with its error and
    # reported by check, never a crash.
    broken = root / "continuity" / "decisions" / "broken--x.md"
    broken.write_text("no front matter here\n")
    as_json = run("decisions", "--json")
    assert as_json.returncode == 0
    assert "broken" in as_json.stdout and "front matter" in as_json.stdout
    checked = run("check")
    assert checked.returncode == 1 and "front matter" in (checked.stdout + checked.stderr)
    broken.unlink()
    done = run("decision", "withdraw", key, "--reason", "coffee now")
    assert done.returncode == 0, done.stderr
    assert run("decisions").stdout.strip() == "none"
    assert "Hearth-Op: decision.withdraw" in _git(root, "log", "-1", "--format=%B")
