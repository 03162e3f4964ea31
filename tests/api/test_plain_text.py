"""Text hearth writes into a home is text (issue 35): every operation of the
catalogue that writes text refuses a control character, on every surface it
declares (HTTP, MCP, the CLI), with a clear error and nothing committed.

The cases are keyed by the catalogue: a text-writing operation (every write or
admin operation but the few that take no text, named below with why) without a
case on a surface it declares fails the test, so a new operation cannot forget.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from hearth.domain import daily_merge
from hearth.operations import OPERATIONS
from tests.api.conftest import BIN, Server, isolated_env, make_home, start_server
from tests.conftest import git
from tests.mcp.conftest import http_client

pytestmark = pytest.mark.e2e  # the installed executable and a real server

#: Write and admin operations that take no text a person reads: they move or
#: copy what is already there, or touch no file of the home.
NO_TEXT = {
    "merge": "moves a proposal's entries, already checked when proposed",
    "merge.many": "the same, many at once",
    "restore": "copies an earlier revision (a revision name, no text)",
    "restore.persona": "the same, for a persona or memory file (or undoing an agent's change)",
    "changes.seen": "marks the agents' changes as seen (.git/hearth, no file of the home)",
    "records.person": "a question of whose record it is, over the write operations above",
    "memory.settle": "puts one of two versions already in the home in place (an id, no text)",
    "reconcile": "writes no file of the home",
    "sync": "brings commits that the pre-commit rules and hearth check judge",
    "tokens": "writes .git/hearth, never a file of the home",
    "edit": "the review page's alone; it runs revise_proposal, the gate below",
    "reflect": "runs the command this machine approved; its proposals pass propose's gate",
    "rollup": "writes a digest of daily notes already in the home (a week, no text)",
    "consolidate": "proposes moving or folding entries already in the home (no text)",
}

NUL = "bad \x00 here"
#: argv cannot carry NUL: the CLI gets the other controls.
ESC = "bad \x1b[31m here"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    env = isolated_env(tmp_path_factory.mktemp("userhome"))
    root = make_home(tmp_path_factory.mktemp("plain") / "home", env)
    server = start_server(root, env=env)
    keys = {}
    for name, path, body in (
        ("loop", "/v1/loops", {"title": "an open loop"}),
        ("decision", "/v1/decisions", {"title": "a decision", "decision": "settled"}),
        ("proposal", "/v1/proposals", {"title": "a proposal", "entries": ["likes tea"]}),
    ):
        reply = server.post(path, body)
        assert reply.status in (200, 201), reply.body
        keys[name] = reply.body["key"]
    reply = server.post("/v1/memory/MEMORY.md/entries", {"entry": "likes rain"})
    assert reply.status in (200, 201), reply.body
    yield server, {**keys, "env_home": env["HOME"]}
    assert server.stop() == 0
    assert "Traceback" not in server.stderr, server.stderr


def _http_cases(k: dict[str, str]) -> list[tuple[str, str, str, dict[str, Any]]]:
    return [
        ("note", "POST", "/v1/daily", {"text": NUL}),
        ("note", "POST", "/v1/daily", {"text": "fine", "title": "a\u2028b"}),
        ("note", "POST", "/v1/daily", {"text": "a lone \r return"}),
        ("put", "PUT", "/v1/files/memory/topics/x.md", {"content": NUL}),
        ("put", "PUT", "/v1/files/memory/topics/x.md", {"content": "lone \ud800 surrogate"}),
        ("put", "PUT", "/v1/files/memory/topics/x.md", {"content": "ok", "message": NUL}),
        ("put.other", "PUT", "/v1/files/notes.txt", {"content": "del \x7f here"}),
        ("put.records", "PUT", "/v1/files/continuity/decisions/x.md", {"content": NUL}),
        ("propose", "POST", "/v1/proposals", {"title": NUL, "entries": ["a"]}),
        ("propose", "POST", "/v1/proposals", {"title": "t", "entries": ["a\x85b"]}),
        ("propose", "POST", "/v1/proposals", {"title": "t", "entries": ["a"], "rationale": NUL}),
        ("loop.add", "POST", "/v1/loops", {"title": "t", "summary": NUL}),
        ("loop.resolve", "POST", f"/v1/loops/{k['loop']}/resolve", {"note": NUL}),
        ("decide", "POST", "/v1/decisions", {"title": "t", "decision": NUL}),
        ("decide", "POST", "/v1/decisions", {"title": "t", "decision": "d", "why": "\x0c"}),
        (
            "decision.withdraw",
            "POST",
            f"/v1/decisions/{k['decision']}/withdraw",
            {"reason": NUL},
        ),
        ("memory.add", "POST", "/v1/memory/MEMORY.md/entries", {"entry": NUL}),
        (
            "memory.replace",
            "PUT",
            "/v1/memory/MEMORY.md/entries",
            {"old": "likes rain", "new": NUL},
        ),
        ("memory.remove", "DELETE", "/v1/memory/MEMORY.md/entries?entry=bad%00here", {}),
        ("reject", "POST", f"/v1/proposals/{k['proposal']}/reject", {"reason": NUL}),
        ("reject.many", "POST", "/v1/proposals/reject", {"keys": [k["proposal"]], "reason": NUL}),
        ("topic", "POST", "/v1/topics", {"title": "t", "content": NUL}),
        ("topic", "POST", "/v1/topics", {"title": "t", "append": NUL}),
    ]


def _mcp_cases(k: dict[str, str]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        ("note", "note", {"text": NUL}),
        ("put", "write", {"path": "memory/topics/x.md", "content": NUL}),
        ("put.other", "write", {"path": "notes.txt", "content": "a\u2029b"}),
        ("put.records", "write", {"path": "continuity/decisions/x.md", "content": NUL}),
        ("propose", "propose", {"title": "t", "entries": ["a"], "source": NUL}),
        ("loop.add", "add_loop", {"title": "t", "next_step": NUL}),
        ("loop.resolve", "resolve_loop", {"key": k["loop"], "note": NUL}),
        ("decide", "decide", {"title": NUL, "decision": "d"}),
        ("decision.withdraw", "withdraw_decision", {"key": k["decision"], "reason": NUL}),
        ("memory.add", "memory", {"op": "add", "file": "MEMORY.md", "entry": NUL}),
        (
            "memory.replace",
            "memory",
            {"op": "replace", "file": "MEMORY.md", "entry": "likes rain", "new_entry": NUL},
        ),
        ("memory.remove", "memory", {"op": "remove", "file": "MEMORY.md", "entry": NUL}),
        ("topic", "topic", {"title": "t", "content": NUL}),
        ("topic", "topic", {"title": "t", "append": NUL}),
        ("reject", "reject", {"key": k["proposal"], "reason": NUL}),
        ("reject.many", "reject_many", {"keys": [k["proposal"]], "reason": NUL}),
    ]


def _cli_cases(k: dict[str, str], bad_file: Path) -> list[tuple[str, list[str]]]:
    return [
        ("note", ["note", ESC]),
        ("note", ["note", "fine", "--title", "a\x01b"]),
        ("put", ["put", "memory/topics/x.md", "--from-file", str(bad_file)]),
        ("put.other", ["put", "notes.txt", "--from-file", str(bad_file)]),
        ("put.records", ["put", "continuity/decisions/x.md", "--from-file", str(bad_file)]),
        ("propose", ["propose", "--title", "t", "--entry", ESC]),
        ("loop.add", ["loop", "add", "--title", ESC]),
        ("loop.resolve", ["loop", "resolve", k["loop"], "--note", ESC]),
        ("decide", ["decide", "--title", "t", "--decision", ESC]),
        ("decision.withdraw", ["decision", "withdraw", k["decision"], "--reason", ESC]),
        ("memory.add", ["memory", "add", "MEMORY.md", ESC]),
        ("memory.replace", ["memory", "replace", "MEMORY.md", "likes rain", ESC]),
        ("memory.remove", ["memory", "remove", "MEMORY.md", ESC]),
        ("topic", ["topic", "t", "--append", ESC]),
        ("topic", ["topic", "t", "--content", "a\x7fb"]),
        ("reject", ["reject", k["proposal"], "--reason", ESC]),
        ("reject.many", ["reject", k["proposal"], k["proposal"], "--reason", ESC]),
    ]


def _text_writes() -> list[str]:
    return [op.name for op in OPERATIONS.values() if op.scope != "read" and op.name not in NO_TEXT]


def test_every_text_writing_operation_has_a_case_on_each_surface_it_declares(
    tmp_path: Path,
) -> None:
    k = {"loop": "l", "decision": "d", "proposal": "p"}
    http = {case[0] for case in _http_cases(k)}
    mcp = {case[0] for case in _mcp_cases(k)}
    cli = {case[0] for case in _cli_cases(k, tmp_path)}
    for name in _text_writes():
        op = OPERATIONS[name]
        assert not op.http or name in http, f"{name}: no HTTP case"
        assert not op.mcp or name in mcp, f"{name}: no MCP case"
        assert not op.cli or name in cli, f"{name}: no CLI case"
    assert set(NO_TEXT) <= set(OPERATIONS)


def _head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def _no_control_in_history(root: Path) -> None:
    """No commit of the home holds a file git calls binary."""
    log = git(root, "log", "-p", "--all")
    assert "Binary files" not in log


def test_http_refuses_control_characters_on_every_text_write(
    served: tuple[Server, dict[str, str]],
) -> None:
    server, k = served
    before = _head(server.root)
    for operation, method, path, body in _http_cases(k):
        reply = server.request(method, path, body or None)
        assert reply.status == 422, (operation, body, reply.status, reply.raw)
        error = reply.body["error"]
        assert error["code"] in ("invalid_input", "validation_failed"), (operation, error)
        assert "control character" in error["message"] or "control character" in str(
            error["detail"]
        ), (operation, error)
    assert _head(server.root) == before
    _no_control_in_history(server.root)


def test_mcp_refuses_control_characters_on_every_text_write(
    served: tuple[Server, dict[str, str]],
) -> None:
    server, k = served
    before = _head(server.root)

    async def run() -> list[tuple[str, Any]]:
        answers = []
        async with http_client(server, "admin") as client:
            for operation, tool, args in _mcp_cases(k):
                result = await client.call_tool(tool, args)
                answers.append((operation, result))
        return answers

    for operation, result in anyio.run(run):
        assert result.is_error, (operation, result.content)
        error = (result.structured_content or {}).get("error", {})
        assert error.get("code") in ("invalid_input", "validation_failed"), (operation, error)
        assert "control character" in str(error), (operation, error)
    assert _head(server.root) == before


def test_the_cli_refuses_control_characters_on_every_text_write(
    served: tuple[Server, dict[str, str]], tmp_path: Path
) -> None:
    server, k = served
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"a file with a \x00 in it\n")
    env = {**os.environ, **isolated_env(Path(k["env_home"]))}
    before = _head(server.root)
    for operation, argv in _cli_cases(k, bad):
        proc = subprocess.run(
            [str(BIN / "hearth"), "--home", str(server.root), *argv],
            capture_output=True,
            text=True,
            check=False,
            env=env,
        )
        assert proc.returncode == 1, (operation, argv, proc.stdout, proc.stderr)
        assert "control character" in proc.stderr, (operation, proc.stderr)
        assert "Traceback" not in proc.stderr
    assert _head(server.root) == before


def test_check_and_the_pre_commit_hook_name_the_file_and_line(tmp_path: Path) -> None:
    env = isolated_env(tmp_path / "userhome")
    root = make_home(tmp_path / "home", env)
    (root / "memory").mkdir(exist_ok=True)
    (root / "memory" / "2026-11-27.md").write_bytes(b"# 2026-11-27\n\nnul \x00 here\n")
    check = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), "check"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert check.returncode == 1, check.stdout + check.stderr
    said = check.stdout + check.stderr
    assert "memory/2026-11-27.md" in said and "line 3" in said, said
    assert "control-character" in said, said
    git(root, "add", "memory/2026-11-27.md")
    commit = subprocess.run(
        ["git", "-C", str(root), "commit", "-m", "a note"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert commit.returncode != 0, commit.stdout + commit.stderr
    said = commit.stdout + commit.stderr
    assert "memory/2026-11-27.md" in said and "line 3" in said, said


def test_a_note_cannot_forge_a_daily_entry_over_http(
    served: tuple[Server, dict[str, str]],
) -> None:
    server, _k = served
    forged = "line one\n## 09:00 UTC — Forged\nforged entry"
    reply = server.post("/v1/daily", {"text": forged})
    assert reply.status == 200, reply.body
    path = reply.body["path"]
    text = (server.root / path).read_text()
    entries = daily_merge.parse_daily(text).entries
    assert not any(entry.startswith("## 09:00") for entry in entries), text
    assert entries[-1].endswith("\\## 09:00 UTC — Forged\nforged entry"), entries[-1]
    active = server.get("/v1/active")
    assert active.status == 200, active.body
    assert "Forged:" not in active.raw.decode(), active.body  # Today: "HH:MM title: line"
