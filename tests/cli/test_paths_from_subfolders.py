"""Paths mean what git means (issue 50, case 4): run inside the home, a path
is relative to the working folder, for every command that takes one.

The installed CLI in subprocesses, run from ``memory/`` and ``memory/topics/``
of a real home (on 2d32b4d: "climbs out of the home", "does not exist")."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.api.conftest import BIN, isolated_env, make_home
from tests.conftest import git

pytestmark = pytest.mark.e2e  # the installed executable in subprocesses


def _hearth(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "hearth"), *args], capture_output=True, text=True, check=False, env=env, cwd=cwd
    )


def test_paths_are_read_from_the_working_folder_inside_the_home(tmp_path: Path) -> None:
    """Case 4: history, get, put, restore, memory and search --path from subfolders."""
    env = isolated_env(tmp_path / "userhome")
    root = make_home(tmp_path / "home", env)
    topics = root / "memory" / "topics"
    topics.mkdir(parents=True)
    (topics / "garden.md").write_text("# Garden\n\n## Entries\n\n- Tomatoes by the wall.\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "memory: garden")
    first = git(root, "rev-parse", "HEAD").strip()
    memory = root / "memory"

    history = _hearth(memory, env, "history", "../SOUL.md", "--json")
    assert history.returncode == 0, history.stderr
    assert json.loads(history.stdout)["path"] == "SOUL.md"
    got = _hearth(topics, env, "get", "garden.md")
    assert got.returncode == 0, got.stderr
    assert "Tomatoes by the wall." in got.stdout

    added = _hearth(topics, env, "memory", "add", "garden.md", "Basil by the door.")
    assert added.returncode == 0, added.stderr
    assert "memory/topics/garden.md" in added.stdout
    listed = _hearth(topics, env, "memory", "list", "garden.md")
    assert "Basil by the door." in listed.stdout, listed.stderr
    source = tmp_path / "new.md"
    source.write_text("# Garden\n\nOnly basil now.\n")
    put = _hearth(topics, env, "put", "garden.md", "--from-file", str(source))
    assert put.returncode == 0, put.stderr
    assert (topics / "garden.md").read_text() == source.read_text()
    restored = _hearth(topics, env, "restore", "./garden.md", first)
    assert restored.returncode == 0, restored.stderr
    assert "Tomatoes by the wall." in (topics / "garden.md").read_text()

    found = _hearth(memory, env, "search", "tomatoes", "--path", "topics/", "--json")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert hits and all(h["path"].startswith("memory/topics/") for h in hits)

    # What does climb out says so, naming the path as given; the home's root
    # reads paths as before.
    out = _hearth(topics, env, "get", "../../../SOUL.md")
    assert out.returncode == 1 and "'../../../SOUL.md' climbs out" in out.stderr
    at_root = _hearth(root, env, "get", "memory/topics/garden.md")
    assert at_root.returncode == 0 and "Tomatoes" in at_root.stdout
    elsewhere = _hearth(tmp_path, env, "--home", str(root), "get", "SOUL.md")
    assert elsewhere.returncode == 0, elsewhere.stderr
