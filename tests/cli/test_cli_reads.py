"""``hearth search``, ``context`` and ``active`` with the real executable: asked of a
running server over loopback with its hook key, or answered by the command after a
reconcile pass; the same output either way, and ``--verbose`` saying which."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from hearth.domain.searching import MAX_QUERY_CHARS
from tests.api.conftest import BIN, Server, make_home, start_server
from tests.cli.test_cli_status import loaded_by

pytestmark = pytest.mark.e2e  # the installed executable and a real server

READS = {
    "search": ["search", "river otters"],
    "search --kind --path --limit": [
        "search",
        "river",
        "--kind",
        "topic",
        "--path",
        "memory/",
        "--limit",
        "1",
    ],
    "context --query --user": ["context", "--query", "otters", "--user", "sam"],
    "context --session subagent": ["context", "--session", "subagent"],
    "active": ["active"],
}


def run(root: Path, *args: str) -> tuple[str, str]:
    proc = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def every_read(root: Path) -> dict[str, tuple[str, str, str]]:
    """Each read's JSON, its human output and its ``--verbose`` line."""
    answers = {}
    for name, args in READS.items():
        as_json, how = run(root, *args, "--json", "--verbose")
        human, _ = run(root, *args)
        answers[name] = (as_json, human, how)
    return answers


def unrefreshed(text: str) -> str:
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "(time)", text, count=1)


def settled(server: Server) -> None:
    """Until the server's status is current and stays so, with no new pass, for half
    a second (the watcher's events for the last writes arrive after the writes)."""
    deadline = time.monotonic() + 30
    since, seen = time.monotonic(), None
    while time.monotonic() < deadline:
        snapshot = server.get("/v1/status").body["snapshot"]
        state = (snapshot["current"], snapshot["passes"])
        if state != seen:
            since, seen = time.monotonic(), state
        elif snapshot["current"] and time.monotonic() - since >= 0.5:
            return
        time.sleep(0.05)
    raise AssertionError("the server's status never settled")


def seed(server: Server) -> None:
    for path, content in (
        ("memory/topics/otters.md", "# Otters\n\nBack at the river, otters everywhere.\n"),
        ("memory/topics/rivers.md", "# Rivers\n\n## Otters\n\nThe river bends east.\n"),
        ("users/sam.md", "# Sam\n\nLikes rivers.\n"),
    ):
        written = server.put(f"/v1/files/{path}", {"content": content})
        assert written.status == 200, written.body


def test_the_server_answers_the_same_as_the_command_alone(server: Server) -> None:
    root = server.root
    seed(server)
    settled(server)
    served = every_read(root)
    assert server.stop() == 0
    alone = every_read(root)
    for name, (served_json, served_human, how) in served.items():
        command = name.split()[0]
        assert how == f"hearth: {command} answered by the server at {server.url}\n", name
        alone_json, alone_human, alone_how = alone[name]
        assert "answered by the server" not in alone_how, name
        as_json, human = served_json, served_human
        if name == "active":
            # ``refreshed`` is when the last pass ended: the server's last, or the
            # one the command ran itself (as status's ``last_reconcile``).
            as_json, human = unrefreshed(as_json), unrefreshed(human)
            alone_json, alone_human = unrefreshed(alone_json), unrefreshed(alone_human)
        assert json.loads(as_json) == json.loads(alone_json), name
        assert as_json == alone_json and human == alone_human, name
    # What the reads found: the hits and the recall are real, not empty both ways
    # (Sam's note holds "rivers" but not "otters": below the relevance floor).
    found = json.loads(served["search"][0])
    assert {h["path"] for h in found["hits"]} == {
        "memory/topics/otters.md",
        "memory/topics/rivers.md",
    }
    assert found["left_out"] >= 1
    assert len(json.loads(served["search --kind --path --limit"][0])["hits"]) == 1
    bundle = json.loads(served["context --query --user"][0])
    assert "users/sam.md" in [f["path"] for f in bundle["files"]]
    assert bundle["recall"] and served["active"][1].startswith("ACTIVE.md: refreshed ")
    assert alone["active"][2] == "hearth: active after a reconcile pass\n"
    assert alone["context --session subagent"][2] == "hearth: context read here\n"


def test_delegated_reads_take_the_hook_key_and_load_none_of_the_machinery(
    server: Server,
) -> None:
    key = json.loads((server.root / ".git/hearth/server.json").read_text())["hook_key"]
    for path in ("/v1/search?q=river", "/v1/context?q=river", "/v1/active"):
        assert server.get(path, token=key).status == 200, path
        refused = server.get(path, token=key + "x")
        assert refused.status == 401 and refused.error_code == "unauthorized", path
    # Nothing else takes it: other reads and every write still want a token.
    assert server.get("/v1/proposals", token=key).status == 401
    assert server.get("/v1/files/MEMORY.md", token=key).status == 401
    assert server.put("/v1/files/memory/x.md", {"content": "# X\n"}, token=key).status == 401
    settled(server)
    root = str(server.root)
    assert loaded_by("--home", root, "search", "river", "--json") == []
    assert loaded_by("--home", root, "context", "-q", "river", "--json") == []
    assert loaded_by("--home", root, "active", "--json") == []


def test_a_refusal_leaves_it_to_the_command(tmp_path: Path) -> None:
    root = make_home(tmp_path / "home")
    server = start_server(root)
    try:
        seed(server)
        settled(server)
        # A query longer than the API takes: the server answers 422, the command
        # searches itself (it cuts the query as the index does).
        long_query = "river " * (MAX_QUERY_CHARS // 6 + 1)
        found, how = run(root, "search", long_query, "--json", "--verbose")
        missed = f"(the server at {server.url} had no current answer)"
        assert how == f"hearth: search after a reconcile pass {missed}\n"
        assert json.loads(found)["hits"]
        # A bad user id: refused by the server, then by the command, with its reason.
        bad = subprocess.run(
            [str(BIN / "hearth"), "--home", str(root), "context", "--user", "no such/id"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert bad.returncode == 1 and "is not a person id" in bad.stderr
        assert "Traceback" not in bad.stderr
        # A key the server does not know: 401, so the command answers, the same.
        served, _ = run(root, "search", "river", "--json")
        record = root / ".git/hearth/server.json"
        data = json.loads(record.read_text())
        record.write_text(json.dumps({**data, "hook_key": "not-the-key"}))
        alone, how = run(root, "search", "river", "--json", "--verbose")
        assert "had no current answer" in how and alone == served
    finally:
        assert server.stop() == 0
