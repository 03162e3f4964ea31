"""One worker that coalesces requests; a watcher that feeds it and notices when it stops."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hearth.errors import Busy
from hearth.reconcile import freshness
from hearth.reconcile.reconciler import HEAD_MOVED
from hearth.reconcile.reports import PassReport
from hearth.reconcile.watcher import Watcher, paths_of, relevant
from hearth.reconcile.worker import ReconcileWorker
from tests.conftest import Workspace


class GatedReconciler:
    """A reconciler seam: records each pass and holds it until released."""

    def __init__(self) -> None:
        self.calls: list[list[str] | None] = []
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.fail_next = 0
        self.bug_next = 0

    def reconcile(self, paths: list[str] | None = None) -> PassReport:
        self.calls.append(None if paths is None else sorted(paths))
        self.entered.set()
        self.gate.wait(5)
        if self.fail_next:
            self.fail_next -= 1
            raise Busy("held")
        if self.bug_next:
            self.bug_next -= 1
            raise ValueError("a library's own error")
        return PassReport(full=paths is None)


def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


def test_requests_during_a_pass_coalesce_into_exactly_one_more() -> None:
    fake = GatedReconciler()
    worker = ReconcileWorker(fake)  # type: ignore[arg-type]
    worker.start()
    try:
        first = worker.request(["a.md"])
        assert fake.entered.wait(5)
        tickets = [worker.request([f"n{i}.md"]) for i in range(5)]
        fake.gate.set()
        assert worker.wait(tickets[-1], timeout=5)
        assert worker.wait(first, timeout=0)
        assert fake.calls == [["a.md"], [f"n{i}.md" for i in range(5)]]
        assert worker.idle()
    finally:
        worker.stop()


def test_a_full_request_absorbs_path_requests() -> None:
    fake = GatedReconciler()
    worker = ReconcileWorker(fake)  # type: ignore[arg-type]
    worker.start()
    try:
        worker.request(["a.md"])
        assert fake.entered.wait(5)
        worker.request(["b.md"])
        last = worker.request(None)
        fake.gate.set()
        assert worker.wait(last, timeout=5)
        assert fake.calls == [["a.md"], None]
    finally:
        worker.stop()


def test_a_failed_pass_is_retried_and_recorded() -> None:
    fake = GatedReconciler()
    fake.gate.set()
    fake.fail_next = 1
    worker = ReconcileWorker(fake)  # type: ignore[arg-type]
    worker.start()
    try:
        ticket = worker.request(["a.md"])
        assert worker.wait(ticket, timeout=5)
        assert fake.calls == [["a.md"], ["a.md"]]
        assert worker.state.passes == 1
    finally:
        worker.stop()


def test_a_pass_failing_on_a_bug_is_logged_and_retried(caplog: pytest.LogCaptureFixture) -> None:
    """An error that is neither hearth's nor the system's does not end the worker's
    thread (its passes would stop for good): it is logged and the pass retried."""
    fake = GatedReconciler()
    fake.gate.set()
    fake.bug_next = 1
    worker = ReconcileWorker(fake)  # type: ignore[arg-type]
    worker.start()
    try:
        ticket = worker.request(["a.md"])
        assert worker.wait(ticket, timeout=5)
        assert worker.running
        assert fake.calls == [["a.md"], ["a.md"]]
        assert worker.state.passes == 1
        assert "a library's own error" in caplog.text
    finally:
        worker.stop()


@pytest.mark.parametrize(
    ("rel", "kept"),
    [
        ("memory/2026-11-22.md", True),
        ("memory/topics", True),
        (".gitignore", True),
        (".git/index", False),
        ("continuity/ACTIVE.md", True),  # hearth's output: rewritten when touched
        ("memory/.hearth-tmp-1234", False),
        ("memory/notes.md.swp", False),
        ("photo.jpg", False),
        ("4913", False),
    ],
)
def test_watch_filter(tmp_path: Path, rel: str, kept: bool) -> None:
    assert (relevant(tmp_path, str(tmp_path / rel)) is not None) is kept


def test_a_commit_nudge_asks_for_the_commit_and_other_nudges_for_everything(
    tmp_path: Path,
) -> None:
    """The post-commit hook's nudge asks for a pass over what the commit changed
    (a commit changes no file in the work tree); a merge's, checkout's or
    rewrite's asks for a full pass."""
    (tmp_path / ".git/hearth").mkdir(parents=True)
    commit = str(tmp_path / ".git/hearth/nudge-commit")
    assert relevant(tmp_path, commit) == HEAD_MOVED
    assert paths_of(tmp_path, [(1, commit)]) == {HEAD_MOVED}
    assert paths_of(tmp_path, [(1, commit), (1, str(tmp_path / ".git/hearth/nudge"))]) is None


@pytest.fixture
def live(workspace: Workspace):
    rec = workspace.app.reconciler
    rec.reconcile()
    worker = ReconcileWorker(rec)
    watcher = Watcher(workspace.root, worker.request)
    worker.start()
    watcher.start()
    yield workspace, rec, watcher
    watcher.stop()
    worker.stop()


def found(rec, word: str) -> set[str]:
    return {h.path for h in rec.catch_up().search(word, limit=200, everything=True).hits}


def test_changes_behind_its_back_reach_search_within_a_second(live) -> None:
    ws, rec, _watcher = live
    ws.write("memory/topics/owl.md", "# Owl\n\nThe barn owl hunts at dusk.\n")
    assert wait_for(lambda: found(rec, "dusk") == {"memory/topics/owl.md"}, 1.0)

    tmp = ws.root / "memory/topics/.owl.md.hearth-save"
    tmp.write_text("# Owl\n\nThe tawny owl calls at night.\n")
    tmp.replace(ws.root / "memory/topics/owl.md")
    assert wait_for(lambda: found(rec, "tawny") == {"memory/topics/owl.md"}, 1.0)
    assert found(rec, "dusk") == set()

    (ws.root / "memory/topics").rename(ws.root / "memory/birds")
    assert wait_for(lambda: found(rec, "tawny") == {"memory/birds/owl.md"}, 1.0)

    (ws.root / "memory/birds/owl.md").unlink()
    assert wait_for(lambda: found(rec, "tawny") == set(), 1.0)
    assert wait_for(
        lambda: freshness.status(rec).files_on_disk == freshness.status(rec).files_indexed, 2.0
    )


def test_heartbeat_and_rearm(live) -> None:
    ws, rec, watcher = live
    assert watcher.healthy()
    time.sleep(1.3)  # one quiet heartbeat interval
    assert watcher.healthy()
    watcher.stop()
    assert not watcher.healthy()
    ws.write("memory/topics/missed.md", "# Missed\n\nbittern\n")
    assert watcher.ensure_running()
    assert watcher.rearms == 1
    # The re-arm asks for a full pass, which finds what happened while it was down.
    assert wait_for(lambda: found(rec, "bittern") == {"memory/topics/missed.md"}, 2.0)
    assert not watcher.ensure_running()


def test_bursts_of_create_and_delete_converge(live) -> None:
    """Files created and deleted within one watcher batch, and bulk deletes, settle right."""
    ws, rec, _watcher = live
    burst = ws.root / "burst"
    burst.mkdir()
    for n in range(400):
        (burst / f"f{n:03d}.md").write_text(f"# F{n}\n\nquokka {n}\n")
        if n % 2:
            (burst / f"f{n:03d}.md").unlink()
    expected = {f"burst/f{n:03d}.md" for n in range(0, 400, 2)}
    assert wait_for(lambda: found(rec, "quokka") == expected, 5.0)
    for n in range(0, 400, 4):
        (burst / f"f{n:03d}.md").unlink()
    expected = {f"burst/f{n:03d}.md" for n in range(2, 400, 4)}
    assert wait_for(lambda: found(rec, "quokka") == expected, 5.0)
    status = freshness.status(rec)
    assert status.files_on_disk == status.files_indexed
