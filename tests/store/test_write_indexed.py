"""A write is committed (git's index entries too) and indexed when it returns;
a failure of the index update never undoes the commit; a process killed in
the index update leaves a home that the next start brings back."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hearth import wiring
from hearth.reconcile import freshness
from tests.conftest import FakeClock, Workspace, git


def found(ws: Workspace, word: str) -> set[str]:
    return {h.path for h in ws.app.search(word).hits}


def test_when_a_write_returns_it_is_found_and_git_status_is_clean(workspace: Workspace) -> None:
    ws = workspace
    ws.app.reconciler.reconcile()
    for n in range(3):
        written = ws.app.note(f"the pelican{n} flew over", "Pelican", "test")
        assert found(ws, f"pelican{n}") == {written.path}
        assert ws.porcelain() == ""
        # git's index holds the committed blob for the path (not an older one)
        staged = ws.git("rev-parse", f":{written.path}").strip()
        assert staged == ws.git("rev-parse", f"HEAD:{written.path}").strip()
        status = freshness.status(ws.app.reconciler)
        assert status.fresh and status.indexed_head == ws.git("rev-parse", "HEAD").strip()


def test_an_index_update_that_fails_leaves_the_commit_whole(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = workspace
    ws.app.reconciler.reconcile()
    head = ws.git("rev-parse", "HEAD").strip()

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("a bug in the index update")

    monkeypatch.setattr(ws.app.reconciler, "reconcile_paths", broken)
    with pytest.raises(RuntimeError, match="a bug"):
        ws.app.note("the crane stood still", "Crane", "test")
    monkeypatch.undo()
    assert ws.git("rev-parse", "HEAD~1").strip() == head  # committed, not undone
    assert ws.porcelain() == ""  # its index entries were written all the same
    ws.app.reconciler.reconcile()
    assert found(ws, "crane")


# -- a real process killed in the index update ---------------------------------------------

CHILD = textwrap.dedent(
    """
    import sys, threading, time
    from pathlib import Path
    from hearth import wiring
    from hearth.reconcile import manifest

    root, point, marker = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    app = wiring.open_app(root)
    app.reconciler.reconcile()
    writing = threading.Event()

    def hold() -> None:
        marker.write_text("here")
        time.sleep(120)  # SIGKILLed here

    reconcile_paths = app.reconciler.reconcile_paths

    def indexing(*args, **kwargs):
        # The commit, the work tree and git's index entries are done.
        if point == "before-index-update":
            hold()
        writing.set()
        return reconcile_paths(*args, **kwargs)

    app.reconciler.reconcile_paths = indexing
    real = manifest.save

    def saving(*args, **kwargs):
        # Inside the index update: Tantivy committed, the manifest not saved.
        if writing.is_set():
            hold()
        return real(*args, **kwargs)

    manifest.save = saving
    app.note("the heron killed mid-write", "Heron", "child")
    """
)


@pytest.mark.parametrize("point", ["before-index-update", "before-manifest-save"])
def test_a_process_killed_in_a_writes_index_update_comes_back(
    tmp_path: Path, clock: FakeClock, point: str
) -> None:
    root = tmp_path / "home"
    wiring.initialize(root, clock)
    marker = tmp_path / "marker"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(root), point, str(marker)])
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, "the child ended before the point"
            assert time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        if child.poll() is None:
            child.send_signal(signal.SIGKILL)  # at the point, or a failed wait: never left running
        child.wait(timeout=30)
    assert not (root / ".git/index.lock").exists()  # git's part was complete
    assert git(root, "status", "--porcelain", "--untracked-files=no") == ""
    assert "Hearth-Actor: child" in git(root, "log", "-1", "--format=%B")
    (daily,) = git(root, "diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD").split()
    # The next start: a pass brings the index back.
    app = wiring.open_app(root, clock)
    app.reconciler.reconcile()
    status = freshness.status(app.reconciler)
    assert status.fresh, status.stale_reasons
    assert {h.path for h in app.search("heron").hits} == {daily}
    app.note("after the crash", None, "test")
    assert not (root / ".git/index.lock").exists()
    assert git(root, "status", "--porcelain", "--untracked-files=no") == ""
    assert {h.path for h in app.search("heron").hits} == {daily}
    assert freshness.status(app.reconciler).fresh
    app.writes.files.close()
