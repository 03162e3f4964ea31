"""``hearth status`` without a pass (app/status/lean.py): the same answer as the status after
a pass whenever that pass would change nothing, and no answer whenever it would."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from hearth import wiring
from hearth.reconcile import manifest
from hearth.store import state
from tests.conftest import Workspace

ACTOR = "test"


def settled(ws: Workspace) -> dict[str, object]:
    """The status after a pass that reads every file again, each last changed a
    minute ago: no file is then too fresh to trust its signature (git's racy files)."""
    past = time.time() - 60
    for path in ws.root.rglob("*"):
        if ".git" not in path.relative_to(ws.root).parts:
            os.utime(path, (past, past), follow_symlinks=False)
    ws.reopen()
    return ws.app.status().as_dict()


def glance(ws: Workspace) -> dict[str, object] | None:
    return wiring.open_lean(ws.root).status()


def test_a_settled_home_gives_the_status_a_pass_gives(workspace: Workspace) -> None:
    full = settled(workspace)
    assert glance(workspace) == full
    assert full["index"]["fresh"] is True  # type: ignore[index]


def test_records_changes_parked_and_ignored_files(workspace: Workspace) -> None:
    ws = workspace
    ws.app.add_loop("Call Sam", ACTOR, next_step="find the number")
    ws.app.propose("Garden", ["Sam grows tomatoes"], ACTOR)
    ws.write("continuity/open-loops/broken.md", "not a record\n")  # listed, with its error
    ws.write("notes.txt", "untracked, and not markdown\n")
    ws.write("data.json", "{}\n")
    ws.git("add", "data.json")
    ws.write("SOUL.md", ws.read("SOUL.md") + "\nEdited, not committed.\n")
    ws.write("memory/topics/herons.md", "# Herons\n\nGrey herons.\n")
    os.mkfifo(ws.root / "memory/topics/pipe.md")  # parked
    (ws.root / "memory/topics/link.md").symlink_to("herons.md")  # parked: a symlink
    ws.write(".gitignore", ws.read(".gitignore") + "drafts/\n")
    ws.write("drafts/secret.md", "# Ignored\n")  # listed, but git ignores it
    ws.write(
        "continuity/conflicts/MEMORY.md--abc123.md", "# A conflict copy\n"
    )  # listed in conflicts
    full = settled(ws)
    assert full["dirty"] and full["open_loops"] == 2 and full["pending_proposals"] == 1
    assert len(full["index"]["parked"]) == 2  # type: ignore[index]
    assert glance(ws) == full


def test_sync_and_reflection_records_older_than_the_pass(workspace: Workspace) -> None:
    folder = workspace.root / ".git" / state.FOLDER
    (folder / state.SYNC_RECORD).write_text(
        json.dumps({"result": "failed", "time": "2026-11-22T09:00:00+00:00", "error": "offline"})
    )
    (folder / state.REFLECTION_RECORD).write_text(
        json.dumps({"time": "2026-11-22T08:00:00+00:00", "proposed": [], "error": None})
    )
    full = settled(workspace)
    assert full["sync"]["last_result"] == "failed"  # type: ignore[index]
    assert glance(workspace) == full


def test_semantic_ranking_on_reports_the_same_coverage(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HEARTH_SEMANTIC")
    full = settled(workspace)
    assert full["index"]["ranking"] == "hybrid"  # type: ignore[index]
    assert glance(workspace) == full


def test_a_detached_head(workspace: Workspace) -> None:
    workspace.git("checkout", "-q", "--detach")
    full = settled(workspace)
    assert full["branch"] is None
    assert glance(workspace) == full


@pytest.mark.parametrize(
    "change",
    [
        "edit a file",
        "add a file",
        "remove a file",
        "commit with git",
        "edit ACTIVE.md",
        "remove ACTIVE.md",
        "change the ignore rules",
        "a sync since the pass",
        "a reflection run since the pass",
        "no index yet",
    ],
)
def test_anything_a_pass_would_change_gets_no_answer(workspace: Workspace, change: str) -> None:
    ws = workspace
    settled(ws)
    assert glance(ws) is not None
    folder = ws.root / ".git" / state.FOLDER
    if change == "edit a file":
        ws.write("MEMORY.md", ws.read("MEMORY.md") + "\n- a new line\n")
    elif change == "add a file":
        ws.write("memory/topics/new.md", "# New\n")
    elif change == "remove a file":
        (ws.root / "TOOLS.md").unlink()
    elif change == "commit with git":
        ws.git("commit", "-q", "--allow-empty", "-m", "moved on")
    elif change == "edit ACTIVE.md":
        ws.write("continuity/ACTIVE.md", "edited by hand\n")
    elif change == "remove ACTIVE.md":
        (ws.root / "continuity/ACTIVE.md").unlink()
    elif change == "change the ignore rules":
        ws.write(".gitignore", ws.read(".gitignore") + "*.draft\n")
    elif change == "a sync since the pass":
        (folder / state.SYNC_RECORD).write_text(json.dumps({"result": "up-to-date"}))
    elif change == "a reflection run since the pass":
        (folder / state.REFLECTION_RECORD).write_text(json.dumps({"error": "crashed"}))
    else:
        import shutil

        shutil.rmtree(folder / state.INDEX_DIR)
    assert glance(ws) is None
    # The pass the CLI then runs settles it again.
    full = settled(ws)
    assert glance(ws) == full


def test_a_file_read_right_after_its_change_is_read_again(workspace: Workspace) -> None:
    settled(workspace)
    workspace.write("memory/topics/fresh.md", "# Fresh\n")
    workspace.app.status()  # reads it within git's racy window: the next pass hashes it again
    saved = manifest.load(workspace.root / ".git" / state.FOLDER / state.INDEX_DIR)
    assert saved is not None and saved.files["memory/topics/fresh.md"].racy
    assert glance(workspace) is None


def test_a_linked_work_tree_goes_to_the_full_status(workspace: Workspace, tmp_path: Path) -> None:
    settled(workspace)
    other = tmp_path / "linked"
    workspace.git("worktree", "add", "-q", str(other))
    assert (other / ".git").is_file()
    assert wiring.open_lean(other).status() is None
