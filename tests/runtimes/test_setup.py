"""``hearth setup`` when the runtime's own CLI is not installed: hearth writes the
runtime's file itself (the real CLIs: tests/e2e/test_runtimes.py)."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest

from hearth.errors import InvalidInput, NotAHome
from hearth.runtimes.setup import RuntimeSetup


def _no_cli(argv: list[str]) -> subprocess.CompletedProcess[str]:
    raise AssertionError(f"ran {argv} though no CLI is installed")


@pytest.fixture
def setup(tmp_path: Path) -> RuntimeSetup:
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)
    (home / "hearth.toml").write_text("")  # what init writes: the mark of a home
    return RuntimeSetup(tmp_path / "user", "/opt/bin/hearth", home, lambda _: None, _no_cli)


def test_without_the_cli_the_file_is_written_and_taken_back(setup: RuntimeSetup) -> None:
    config = setup.user_home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    mine = '# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "x"\n'
    config.write_text(mine)
    report = setup.setup("codex", "read", trust=True)
    assert report.changed and "not on PATH" in report.changes[0].what
    parsed = tomllib.loads(config.read_text())
    assert parsed["mcp_servers"]["hearth"] == {
        "command": "/opt/bin/hearth",
        "args": ["--home", str(setup.home), "mcp", "--scope", "read"],
    }
    assert len(parsed["hooks"]["state"]) == 2
    assert not any("/hooks" in t for t in report.todo)  # --trust did that part
    assert not setup.setup("codex", "read", trust=True).changed
    assert not setup.setup("codex", "read", trust=True, dry_run=True).changed
    removed = setup.remove("codex")
    assert removed.changed
    assert config.read_text() == mine
    assert not (setup.user_home / ".codex" / "hooks.json").exists()


def test_dry_run_writes_nothing(setup: RuntimeSetup) -> None:
    report = setup.setup("claude-code", dry_run=True)
    assert report.changed and report.dry_run
    assert not setup.user_home.exists()


def test_dry_run_shows_each_change_in_the_future_tense(setup: RuntimeSetup) -> None:
    """Issue 35: a dry run listed file names only and said "registered"."""
    config = setup.user_home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    mine = 'model = "o3"\n'
    config.write_text(mine)
    report = setup.setup("codex", dry_run=True, trust=True)
    assert config.read_text() == mine
    assert not (setup.user_home / ".codex" / "hooks.json").exists()
    for change in report.changes:
        assert change.what.startswith("would "), change.what
        assert change.diff, change
    register, hooks, trust = report.changes
    assert "+[mcp_servers.hearth]" in register.diff and ' model = "o3"' in register.diff
    assert "+args = [" in register.diff
    assert hooks.diff.startswith("--- /dev/null") and "agent-hook codex prompt" in hooks.diff
    assert "+trusted_hash = " in trust.diff
    done = setup.setup("codex", trust=True)
    assert [c.what.split(" ", 1)[0] for c in done.changes] == ["registered", "added", "trusted"]
    taking_out = setup.remove("codex", dry_run=True)
    assert all(c.what.startswith("would remove") for c in taking_out.changes if c.changed)
    assert any("-[mcp_servers.hearth]" in c.diff for c in taking_out.changes)


def test_claude_code_without_its_cli(setup: RuntimeSetup) -> None:
    setup.setup("claude-code")
    servers = json.loads((setup.user_home / ".claude.json").read_text())["mcpServers"]
    assert servers["hearth"]["type"] == "stdio" and servers["hearth"]["env"] == {}
    assert (setup.user_home / ".claude.json").stat().st_mode & 0o077 == 0  # private by default
    setup.remove("claude-code")
    assert json.loads((setup.user_home / ".claude.json").read_text()) == {"mcpServers": {}}


def test_opencode_with_comments_is_not_rewritten(setup: RuntimeSetup) -> None:
    path = setup.user_home / ".config" / "opencode" / "opencode.jsonc"
    path.parent.mkdir(parents=True)
    path.write_text('{\n  // my theme\n  "theme": "x",\n}\n')
    with pytest.raises(InvalidInput, match="comments"):
        setup.setup("opencode")
    path.write_text('{"theme": "x",}\n')
    setup.setup("opencode")
    assert json.loads(path.read_text())["mcp"]["hearth"]["type"] == "local"


def test_a_broken_file_is_refused_untouched(setup: RuntimeSetup) -> None:
    path = setup.user_home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text("{broken")
    with pytest.raises(InvalidInput, match="not valid json"):
        setup.setup("gemini")
    assert path.read_text() == "{broken"


def test_setup_needs_a_home(tmp_path: Path) -> None:
    setup = RuntimeSetup(tmp_path, "/opt/bin/hearth", tmp_path / "none", lambda _: None, _no_cli)
    with pytest.raises(NotAHome, match="hearth init"):
        setup.setup("cursor")
    plain = tmp_path / "plain"
    (plain / ".git").mkdir(parents=True)
    setup = RuntimeSetup(tmp_path, "/opt/bin/hearth", plain, lambda _: None, _no_cli)
    with pytest.raises(NotAHome, match=f"hearth init {plain}"):
        setup.setup("cursor")
