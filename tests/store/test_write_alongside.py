"""A write's index update runs while the store writes git's index entries
(``GitStore.commit``'s ``landed``): when the write returns, both are done; a
failure of one never leaves the other half-done; a process killed between
them leaves a home that the next start brings back."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hearth import wiring
from hearth.errors import StoreError
from hearth.store.git import GitStore
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
        status = ws.app.reconciler.status()
        assert status.fresh and status.indexed_head == ws.git("rev-parse", "HEAD").strip()


def test_the_index_update_runs_while_git_s_index_is_written(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two overlap: the index update starts before the index entries are saved."""
    ws = workspace
    ws.app.reconciler.reconcile()
    events: list[str] = []
    save = GitStore._save_index
    reconcile_paths = ws.app.reconciler.reconcile_paths

    def slow_save(self: GitStore, applies: object) -> None:
        events.append("save starts")
        time.sleep(0.3)
        save(self, applies)  # type: ignore[arg-type]
        events.append("save ends")

    def indexing(*args: object, **kwargs: object) -> object:
        events.append("index starts")
        return reconcile_paths(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(GitStore, "_save_index", slow_save)
    monkeypatch.setattr(ws.app.reconciler, "reconcile_paths", indexing)
    ws.app.note("the ibis waded", "Ibis", "test")
    assert events.index("index starts") < events.index("save ends")
    assert found(ws, "ibis")


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


def test_a_failed_index_save_undoes_the_commit_and_the_index_follows(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git's index cannot be written: the commit is taken back; the index update that
    ran beside it saw the undone text, and the next pass takes it out again."""
    ws = workspace
    ws.app.reconciler.reconcile()
    head = ws.git("rev-parse", "HEAD").strip()

    def full(self: GitStore, applies: object) -> None:
        time.sleep(0.2)  # the index update runs meanwhile
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(GitStore, "_save_index", full)
    with pytest.raises(StoreError, match="nothing was committed"):
        ws.app.note("the stork nested", "Stork", "test")
    monkeypatch.undo()
    assert ws.git("rev-parse", "HEAD").strip() == head
    assert ws.porcelain() == ""
    ws.app.reconciler.reconcile()
    assert found(ws, "stork") == set()
    status = ws.app.reconciler.status()
    assert status.fresh and status.indexed_head == head


# -- a real process killed between the two ---------------------------------------------

CHILD = textwrap.dedent(
    """
    import sys, threading, time
    from pathlib import Path
    from hearth import wiring
    from hearth.reconcile import manifest
    from hearth.store.git import GitStore

    root, point, marker = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    app = wiring.open_app(root)
    app.reconciler.reconcile()
    indexed = threading.Event()

    def hold() -> None:
        marker.write_text("here")
        time.sleep(120)  # SIGKILLed here

    if point == "before-index-entries":
        # The index update is done (the index committed, the manifest saved);
        # git's index entries are not written yet.
        reconcile_paths = app.reconciler.reconcile_paths

        def indexing(*args, **kwargs):
            try:
                return reconcile_paths(*args, **kwargs)
            finally:
                indexed.set()

        app.reconciler.reconcile_paths = indexing
        save = GitStore._save_index

        def waiting(self, applies):
            indexed.wait(60)
            hold()

        GitStore._save_index = waiting
    else:
        # Inside the index update: the index committed, the manifest not saved.
        real = manifest.save

        def saving(*args, **kwargs):
            if threading.current_thread().name == "hearth-landed":
                hold()
            return real(*args, **kwargs)

        manifest.save = saving
    app.note("the heron killed mid-write", "Heron", "child")
    """
)


@pytest.mark.parametrize("point", ["before-index-entries", "before-manifest-save"])
def test_a_process_killed_between_its_index_update_and_git_s_index_comes_back(
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
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    assert (root / ".git/index.lock").exists()  # it died holding git's index lock
    assert "Hearth-Actor: child" in git(root, "log", "-1", "--format=%B")
    (daily,) = git(root, "diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD").split()
    # The next start: a pass brings the index back, a write finishes git's index.
    app = wiring.open_app(root, clock)
    app.reconciler.reconcile()
    status = app.reconciler.status()
    assert status.fresh, status.stale_reasons
    assert {h.path for h in app.search("heron").hits} == {daily}
    app.note("after the crash", None, "test")
    assert not (root / ".git/index.lock").exists()
    assert git(root, "status", "--porcelain", "--untracked-files=no") == ""
    assert {h.path for h in app.search("heron").hits} == {daily}
    assert app.reconciler.status().fresh
    app.ops.files.close()
