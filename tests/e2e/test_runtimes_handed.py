"""What each runtime is handed (issue 53): ``hearth status`` (its JSON, the human
lines, ``GET /v1/status`` and the Health page) and ``hearth context --explain``
say, per runtime, the characters and approximate tokens of its session-start
text and each file cut and where; the counts are those of the very text
``agent-hook`` prints. A real home, the real CLI in subprocesses, a real server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.api.conftest import isolated_env, make_home, start_server

pytestmark = pytest.mark.e2e

#: Two hundred distinct entries: MEMORY.md far over a hook's 9,000 characters.
ENTRIES = [f"- Entry {i}: the person mentions walnut number {i} in passing." for i in range(200)]


def hearth(root: Path, user: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hearth", "--home", str(root), *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        env={**isolated_env(user), "HEARTH_SERVER": "off"},
    )


@pytest.fixture
def lived_in(tmp_path: Path) -> tuple[Path, Path]:
    """A home with a long MEMORY.md and a topic note, and a person's folder
    (``$HOME``) in which Claude Code is wired to it."""
    user = tmp_path / "user"
    user.mkdir()
    root = make_home(tmp_path / "home", env=isolated_env(user))
    (root / "MEMORY.md").write_text(
        "# Memory\n\n## Entries\n\n" + "\n".join(ENTRIES) + "\n", encoding="utf-8"
    )
    topics = root / "memory" / "topics"
    topics.mkdir(parents=True, exist_ok=True)
    (topics / "lantern.md").write_text(
        "# Lantern\n\nThe garden lantern needs new wicks before the autumn party.\n",
        encoding="utf-8",
    )
    for git in (["add", "-A"], ["commit", "-qm", "a lived-in home"]):
        subprocess.run(
            ["git", "-C", str(root), *git], check=True, capture_output=True, env=isolated_env(user)
        )
    done = hearth(root, user, "setup", "claude-code")
    assert done.returncode == 0, done.stderr
    return root, user


def hook_context(root: Path, user: Path, event: str, stdin: str) -> str:
    done = hearth(root, user, "agent-hook", "claude-code", event, stdin=stdin)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


def test_status_says_what_each_runtime_is_handed_and_where_files_are_cut(
    lived_in: tuple[Path, Path],
) -> None:
    """Case: ``hearth status`` shows, per wired runtime, the characters and
    approximate tokens of its session-start bundle and which files are cut,
    where: the figures are those of the text the session-start hook prints."""
    root, user = lived_in
    done = hearth(root, user, "status", "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["runtime"]: r for r in json.loads(done.stdout)["runtimes"]}
    claude = rows["claude-code"]
    assert claude["wired"] is True and rows["codex"]["wired"] is False
    handed = hook_context(root, user, "session-start", "{}")
    assert claude["chars"] == len(handed) and claude["approx_tokens"] == -(-len(handed) // 4)
    memory = next(c for c in claude["cut"] if c["path"] == "MEMORY.md")
    text = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert memory["chars"] == len(text) and 0 < memory["kept"] < len(text)
    lines = text.splitlines()
    cut_at = memory["cut_line"]
    assert all(line in handed for line in lines[: cut_at - 1])  # whole lines before the cut
    assert lines[cut_at - 1] not in handed  # the line the cut falls in
    assert lines[cut_at] not in handed
    assert rows["cursor"]["handed_by"] == "MCP prompt session_start"
    human = hearth(root, user, "status").stdout
    assert "session start, what each wired runtime is handed:" in human
    assert (
        f"  claude-code: {len(handed):,} characters, about {-(-len(handed) // 4):,} tokens "
        "(session-start hook, limit 9,000)"
    ) in human
    assert (
        f"    MEMORY.md: {memory['kept']:,} of {len(text):,} characters, cut at line {cut_at}"
    ) in human
    assert "codex" not in human  # not wired


def test_context_explain_adds_the_recall_one_prompt_gets(lived_in: tuple[Path, Path]) -> None:
    """Case: ``hearth context --explain`` shows the same for one turn: the
    session start and the recall that prompt gets from the prompt hook."""
    root, user = lived_in
    prompt = "what about the garden lantern wicks?"
    done = hearth(root, user, "context", "--explain", "--query", prompt, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    claude = next(r for r in data["runtimes"] if r["runtime"] == "claude-code")
    recall = hook_context(root, user, "prompt", json.dumps({"prompt": prompt}))
    assert claude["recall"]["chars"] == len(recall)
    assert [p["path"] for p in claude["recall"]["passages"]] == ["memory/topics/lantern.md:1-3"]
    session = hook_context(root, user, "session-start", "{}")
    assert claude["chars"] == len(session)
    human = hearth(root, user, "context", "--explain", "--query", prompt).stdout
    assert f"    this prompt's recall: {len(recall):,} characters" in human
    assert "      memory/topics/lantern.md:1-3: whole (" in human


def test_the_served_status_and_the_health_page_say_it_too(lived_in: tuple[Path, Path]) -> None:
    """Case: the status API's answer and the review page's Health tab carry the
    same rows as the command's own status."""
    root, user = lived_in
    alone = json.loads(hearth(root, user, "status", "--json").stdout)["runtimes"]
    server = start_server(root, env=isolated_env(user))
    try:
        served = server.get("/v1/status")
        page = server.get("/ui/health")
    finally:
        assert server.stop() == 0
    assert served.status == 200 and served.body["runtimes"] == alone
    claude = next(r for r in alone if r["runtime"] == "claude-code")
    memory = next(c for c in claude["cut"] if c["path"] == "MEMORY.md")
    html = page.raw.decode()
    assert page.status == 200 and "What each runtime is handed at session start" in html
    assert f"{memory['kept']} of {memory['chars']} characters, cut at line" in html


def test_a_served_status_says_wired_from_the_persons_home_folder(
    lived_in: tuple[Path, Path], tmp_path: Path
) -> None:
    """Case (hostile follow-up 2): the server runs with another ``$HOME`` (another
    user's, /root) than the person who ran ``hearth setup claude-code``: the
    status it answered said no runtime was wired, where ``context --explain``
    said wired. The command reads ``wired`` from the person's own folder."""
    root, user = lived_in
    elsewhere = tmp_path / "server-user"
    elsewhere.mkdir()
    server = start_server(root, env=isolated_env(elsewhere))
    try:
        done = subprocess.run(
            [sys.executable, "-m", "hearth", "--home", str(root), "status", "--json", "-v"],
            capture_output=True,
            text=True,
            check=False,
            env={**isolated_env(user), "HEARTH_SERVER": "on"},
        )
    finally:
        assert server.stop() == 0
    assert done.returncode == 0 and "answered by the server" in done.stderr, done.stderr
    rows = {row["runtime"]: row for row in json.loads(done.stdout)["runtimes"]}
    assert rows["claude-code"]["wired"] is True and rows["codex"]["wired"] is False
