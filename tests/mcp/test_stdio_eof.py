"""``hearth mcp`` answers every request it read before it exits at the end of
its input (issue 35): a client that pipes its requests and closes stdin at once
gets every answer, not only the first."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.api.conftest import BIN, isolated_env, make_home
from tests.conftest import git

pytestmark = pytest.mark.e2e  # hearth mcp over stdio in a subprocess

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "pipe", "version": "1"},
    },
}


def _call(request_id: int, name: str, arguments: dict[str, object]) -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def test_every_piped_request_is_answered_before_the_end(tmp_path: Path) -> None:
    env = isolated_env(tmp_path / "userhome")
    root = make_home(tmp_path / "home", env)
    requests = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        _call(2, "note", {"text": "piped in, stdin closed"}),
        _call(3, "search", {"query": "piped"}),
        _call(4, "note", {"text": "the last one"}),
    ]
    proc = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), "mcp"],
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert sorted(a["id"] for a in answers) == [1, 2, 3, 4], proc.stdout
    for answer in answers:
        assert "result" in answer and not answer["result"].get("isError"), answer
    log = git(root, "log", "--format=%s")
    assert "daily: piped in, stdin closed" in log and "daily: the last one" in log


def test_two_requests_then_the_end(tmp_path: Path) -> None:
    """The issue's case, exactly: initialize and one note, nothing else."""
    env = isolated_env(tmp_path / "userhome")
    root = make_home(tmp_path / "home", env)
    sent = json.dumps(INITIALIZE) + "\n" + json.dumps(_call(2, "note", {"text": "hi"})) + "\n"
    proc = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), "mcp"],
        input=sent,
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=120,
    )
    answers = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert [a["id"] for a in answers] == [1, 2], proc.stdout + proc.stderr
