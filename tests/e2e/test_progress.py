"""Progress lines of long commands: on a terminal only, never into a pipe or with --json.

The real ``hearth`` executable runs on a pseudo-terminal (``pty``), as a person
sees it, and into pipes, as a script sees it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import git
from tests.e2e.run import hearth as piped
from tests.e2e.run import on_terminal


def folder_of_notes(root: Path, count: int) -> None:
    for n in range(count):
        path = root / f"notes/n{n // 100}/note-{n}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {n}\n\nThe heron stood in the shallows, day {n}.\n")


def test_init_of_a_folder_counts_the_files_it_checks_and_stores(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder_of_notes(folder, 250)
    code, shown = on_terminal("init", str(folder))
    assert code == 0, shown
    assert "checking files: 250/250" in shown
    stored = re.findall(r"storing files in git: (\d+)/(\d+)", shown)
    assert stored and stored[-1][0] == stored[-1][1]
    committed = git(folder, "ls-files").split()
    assert int(stored[-1][1]) == len(committed) >= 250
    assert "adopted 250 files" in shown
    # Every file kept its bytes, and git sees the work tree as committed.
    assert (folder / "notes/n1/note-137.md").read_text().endswith("day 137.\n")
    assert git(folder, "status", "--porcelain") == ""


def test_init_into_a_pipe_or_with_json_prints_no_progress(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder_of_notes(folder, 120)
    done = piped("init", str(folder))
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and "checking files" not in done.stdout
    assert "adopted 120 files" in done.stdout

    other = tmp_path / "other"
    folder_of_notes(other, 120)
    code, shown = on_terminal("init", str(other), "--json")
    assert code == 0, shown
    assert "checking files" not in shown and "storing files" not in shown
    assert len(json.loads(shown)["adopted"]) == 120


def test_sync_names_its_steps_and_counts_what_it_indexes(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    first, second = tmp_path / "first", tmp_path / "second"
    assert piped("init", str(first)).returncode == 0
    git(first, "remote", "add", "origin", str(remote))
    git(first, "push", "-q", "-u", "origin", "main")
    git(tmp_path, "clone", "-q", str(remote), str(second))
    assert piped("--home", str(second), "reindex").returncode == 0

    folder_of_notes(first, 60)
    git(first, "add", "notes")
    git(first, "commit", "-qm", "notes: sixty")
    pushed = piped("--home", str(first), "sync")
    assert pushed.returncode == 0, pushed.stderr
    assert pushed.stderr == "" and pushed.stdout.startswith("pushed with origin/main")

    code, shown = on_terminal("--home", str(second), "sync")
    assert code == 0, shown
    assert "sync: fetching origin" in shown
    assert "sync: fast-forwarding to origin/main (1 commit)" in shown
    read = re.findall(r"reading files: (\d+)/(\d+)", shown)
    assert read and read[-1][0] == read[-1][1] and int(read[-1][1]) >= 60
    assert "fast-forward with origin/main" in shown
    assert (second / "notes/n0/note-42.md").is_file()

    # Into a pipe: the answer alone.
    git(first, "commit", "-q", "--allow-empty", "-m", "empty")
    assert piped("--home", str(first), "sync").returncode == 0
    quiet = piped("--home", str(second), "sync")
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr == "" and "sync:" not in quiet.stdout
    assert quiet.stdout.startswith("fast-forward with origin/main")
