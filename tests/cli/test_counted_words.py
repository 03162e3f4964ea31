"""Words a person reads are true (issue 50, case 7): counted nouns in the
post-commit line and on the Health page, ``loop add`` saying it updated a loop,
a stdio session's refusal worded for its --scope, and the MCP server's version
the package's."""

from __future__ import annotations

import json
import subprocess
from importlib.metadata import version
from pathlib import Path

import anyio
import pytest

from tests.api.conftest import BIN, make_home, start_server
from tests.conftest import git
from tests.mcp.conftest import refused, stdio_client

pytestmark = pytest.mark.e2e  # the installed executables, git's hooks, a real server


def _hearth(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_one_pending_proposal_is_counted_in_the_post_commit_line_and_on_health(
    tmp_path: Path,
) -> None:
    """Case 7: "1 pending proposals" was printed after a commit and on the Health page."""
    root = make_home(tmp_path / "home")
    assert _hearth(root, "propose", "--title", "Tea", "--entry", "Sam likes tea").returncode == 0
    assert _hearth(root, "loop", "add", "--title", "Order seeds").returncode == 0
    (root / "SOUL.md").write_text((root / "SOUL.md").read_text() + "\nCalm.\n")
    git(root, "add", "SOUL.md")
    done = subprocess.run(
        ["git", "commit", "-qm", "persona: calm"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "1 pending proposal, 1 open loop" in said, said
    server = start_server(root)
    try:
        page = server.get("/ui/health").raw.decode()
    finally:
        assert server.stop() == 0
    assert "1 pending proposal, 1 open loop;" in page, page


def test_loop_add_with_an_existing_title_says_it_updated_that_loop(tmp_path: Path) -> None:
    """Case 7: the second ``loop add`` of a title silently updated the first."""
    root = make_home(tmp_path / "home")
    first = _hearth(root, "loop", "add", "--title", "Order seeds", "--next", "catalogues")
    assert first.returncode == 0 and "updated" not in first.stderr
    again = _hearth(root, "loop", "add", "--title", "Order seeds", "--next", "call the shop")
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == first.stdout.strip()  # the key, for scripts
    assert "updated the open loop" in again.stderr and first.stdout.strip() in again.stderr
    as_json = _hearth(root, "loop", "add", "--title", "Order seeds", "--json")
    assert json.loads(as_json.stdout)["updated"] is True


def test_a_stdio_session_is_refused_in_its_own_words_and_names_its_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Case 7: over stdio a refusal said "this one is write" as if a token existed,
    and ``serverInfo.version`` was "1"."""
    monkeypatch.setenv("HEARTH_SERVER", "off")
    root = make_home(tmp_path / "home")

    async def run() -> tuple[str, dict[str, object]]:
        async with stdio_client(root, "--scope", "read") as client:
            info = client.server_info
            body = await refused(client, "note", {"text": "Not allowed"})
            return info.version, body

    got, body = anyio.run(run)
    assert got == version("hearth-home")
    assert body["code"] == "forbidden"
    message = str(body["message"])
    assert "this one is" not in message and "token" not in message, message
    assert "--scope read" in message and "--scope write" in message, message
