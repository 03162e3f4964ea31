"""Facts that know when they were replaced (issue 53), with the installed
executable: ``hearth proposals`` says what a proposal replaces, ``hearth merge``
puts the new value in place, ``hearth search --kind archive`` finds the old one."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.api.conftest import BIN, isolated_env, make_home

pytestmark = pytest.mark.e2e  # the installed executable in subprocesses


def _hearth(root: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_proposals_say_what_they_replace_and_merge_replaces(tmp_path: Path) -> None:
    """Case: shown as a replacement ("replaces ...") and merged as one by the
    person's CLI; the old version is findable among the archives, marked superseded."""
    env = isolated_env(tmp_path / "userhome")
    root = make_home(tmp_path / "home", env)
    _hearth(root, env, "memory", "add", "MEMORY.md", "Sam lives in Braga")
    made = json.loads(
        _hearth(
            root, env, "propose", "--title", "Moved", "--entry", "Sam lives in Lisbon", "--json"
        )
    )
    listed = _hearth(root, env, "proposals")
    assert "'Sam lives in Lisbon' replaces line" in listed
    assert "'Sam lives in Braga' (Braga -> Lisbon)" in listed
    _hearth(root, env, "merge", made["key"])
    memory = (root / "MEMORY.md").read_text()
    assert "- Sam lives in Lisbon" in memory and "Braga" not in memory
    found = json.loads(_hearth(root, env, "search", "Braga", "--kind", "archive", "--json"))
    assert [h["status"] for h in found["hits"]] == ["superseded"]
