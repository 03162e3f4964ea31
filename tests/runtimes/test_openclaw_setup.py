"""``hearth setup openclaw`` refuses bad states before it writes anything (a real
home; OpenClaw's CLI answered at the project's ``run`` seam for the read-only
questions setup asks first: ``--version`` and ``config file``; the real OpenClaw:
tests/e2e/test_openclaw.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hearth.errors import InvalidInput
from hearth.runtimes.openclaw_setup import STATE_FILE, OpenClawSetup
from hearth.store.state import state_dir_of
from hearth.wiring.runtimes import openclaw_plugin_dir
from tests.conftest import Workspace


class OpenClawAnswers:
    """What ``openclaw --version`` and ``openclaw config file --json`` say; any other
    command (a write) fails the test."""

    def __init__(self, config: Path, version: str = "OpenClaw 2026.9.6 (eb377ac)") -> None:
        self.config = config
        self.version = version
        self.ran: list[list[str]] = []

    def __call__(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        self.ran.append(argv)
        if argv[1:] == ["--version"]:
            return subprocess.CompletedProcess(argv, 0, self.version + "\n", "")
        if argv[1:] == ["config", "file", "--json"]:
            return subprocess.CompletedProcess(argv, 0, json.dumps({"path": str(self.config)}), "")
        raise AssertionError(f"setup ran {argv} though it should have refused first")


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "user" / ".openclaw" / "openclaw.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"plugins": {"slots": {"memory": "memory-lancedb"}}}, indent=2))
    return path


def _setup(workspace: Workspace, run: OpenClawAnswers, found: bool = True) -> OpenClawSetup:
    return OpenClawSetup(
        workspace.root,
        "/opt/bin/hearth",
        openclaw_plugin_dir(),
        run.config.parent / "extensions",
        lambda name: f"/opt/bin/{name}" if found else None,
        run,
        lambda text, message: pytest.fail("hearth.toml was written"),
    )


def _untouched(workspace: Workspace, config: Path, text: str, commits: list[str]) -> None:
    assert config.read_text() == text
    assert workspace.commits() == commits
    assert not (state_dir_of(workspace.root) / STATE_FILE).exists()
    assert not (config.parent / "extensions").exists()


def test_not_installed(workspace: Workspace, config: Path) -> None:
    run, text, commits = OpenClawAnswers(config), config.read_text(), workspace.commits()
    with pytest.raises(InvalidInput, match="OpenClaw is not installed"):
        _setup(workspace, run, found=False).setup()
    with pytest.raises(InvalidInput, match="OpenClaw is not installed"):
        _setup(workspace, run, found=False).remove()
    assert run.ran == []
    _untouched(workspace, config, text, commits)


def test_too_old(workspace: Workspace, config: Path) -> None:
    run = OpenClawAnswers(config, "OpenClaw 2026.3.24 (0123abc)")
    text, commits = config.read_text(), workspace.commits()
    with pytest.raises(InvalidInput, match=r"2026\.3\.24 is too old.*2026\.9\.6 or newer"):
        _setup(workspace, run).setup()
    run.version = "openclaw: command not understood"
    with pytest.raises(InvalidInput, match="did not say which OpenClaw"):
        _setup(workspace, run).setup()
    _untouched(workspace, config, text, commits)


def test_another_memory_plugin_holds_the_slot(workspace: Workspace, config: Path) -> None:
    run, text, commits = OpenClawAnswers(config), config.read_text(), workspace.commits()
    for dry_run in (True, False):
        with pytest.raises(InvalidInput, match="holds 'memory-lancedb'"):
            _setup(workspace, run).setup(dry_run=dry_run)
    _untouched(workspace, config, text, commits)


def test_uncommitted_settings_are_not_swept(workspace: Workspace, config: Path) -> None:
    config.write_text("{}")
    workspace.write("hearth.toml", workspace.read("hearth.toml") + "\n# my edit\n")
    run, commits = OpenClawAnswers(config), workspace.commits()
    with pytest.raises(InvalidInput, match=r"hearth\.toml has uncommitted edits"):
        _setup(workspace, run).setup()
    _untouched(workspace, config, "{}", commits)
    assert workspace.read("hearth.toml").endswith("# my edit\n")


def test_a_config_hearth_cannot_read_is_refused(workspace: Workspace, config: Path) -> None:
    config.write_text("{ plugins: { slots: { memory: 'memory-core' } } }")  # JSON5
    run, commits = OpenClawAnswers(config), workspace.commits()
    with pytest.raises(InvalidInput, match="not JSON that hearth can read"):
        _setup(workspace, run).setup()
    _untouched(workspace, config, "{ plugins: { slots: { memory: 'memory-core' } } }", commits)


def test_dry_run_says_what_would_change_and_writes_nothing(
    workspace: Workspace, config: Path
) -> None:
    config.write_text('{\n  // mine\n  "gateway": {"port": 18789},\n}\n')
    run, commits = OpenClawAnswers(config), workspace.commits()
    report = _setup(workspace, run).setup("read", dry_run=True)
    assert report.changed and report.dry_run
    shown = "\n".join(c.what for c in report.changes)
    assert "plugins install" in shown and "plugins.slots.memory: hearth-memory" in shown
    assert "--scope read" in shown and "commit_writes = true" in shown
    _untouched(workspace, config, '{\n  // mine\n  "gateway": {"port": 18789},\n}\n', commits)
