"""``hearth agent-hook`` never fails a runtime's turn, and ``hearth setup`` refuses
a folder that is not a home (the runtimes themselves: tests/e2e/test_runtimes.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.run import hearth

pytestmark = pytest.mark.e2e  # the installed executable in subprocesses


@pytest.mark.parametrize(
    ("stdin", "home"),
    [("not json", "home"), ("[1, 2]", "home"), ('{"prompt": "otters"}', "nowhere")],
)
def test_agent_hook_prints_nothing_and_exits_0_on_any_error(
    tmp_path: Path, stdin: str, home: str
) -> None:
    assert hearth("init", str(tmp_path / "home")).returncode == 0
    done = hearth("--home", str(tmp_path / home), "agent-hook", "codex", "prompt", stdin=stdin)
    assert done.returncode == 0
    assert done.stdout == ""
    assert done.stderr.startswith("hearth agent-hook: ")


def test_agent_hook_answers_the_runtimes_json(tmp_path: Path) -> None:
    root = tmp_path / "home"
    assert hearth("init", str(root)).returncode == 0
    assert hearth("--home", str(root), "note", "Lanterns for the otter fundraiser").returncode == 0
    ask = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "otter lanterns?"})
    done = hearth("--home", str(root), "agent-hook", "claude-code", "prompt", stdin=ask)
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "UserPromptSubmit"
    assert "Lanterns for the otter fundraiser" in answer["additionalContext"]
    nothing = json.dumps({"prompt": "zyzzyva quux"})
    done = hearth("--home", str(root), "agent-hook", "claude-code", "prompt", stdin=nothing)
    assert (done.returncode, done.stdout) == (0, "")


def test_setup_refuses_a_folder_that_is_not_a_home(tmp_path: Path) -> None:
    done = hearth("--home", str(tmp_path / "nowhere"), "setup", "cursor")
    assert done.returncode == 1
    assert "hearth init" in done.stderr
    assert not (Path.home() / ".cursor").exists()
