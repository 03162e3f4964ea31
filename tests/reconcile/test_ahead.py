"""A served write indexed beside its git commit (``reconcile/ahead.py``): real
home, real git, real index; what a failed commit or a crash leaves is in step."""

from __future__ import annotations

import hashlib
import os

import pytest

from hearth import wiring
from hearth.errors import Busy, DirtyFile
from hearth.reconcile import freshness, manifest
from hearth.reconcile.ahead import IndexAhead
from hearth.reconcile.reconciler import Reconciler
from hearth.store.plans import FileChange, Plan, Snapshot, Trailers
from tests.conftest import Workspace

HERON = "memory/topics/heron.md"


def found(rec: Reconciler, word: str) -> set[str]:
    """Paths a search finds (the open index, without the reconcile lock)."""
    return {hit.path for hit in rec.index.search(word, limit=50, everything=True).hits}


def commit_file(ws: Workspace, path: str, data: bytes, ahead: IndexAhead) -> str:
    """The store's commit of one file, telling ``ahead`` of the plan as a served write does."""

    def planner(_snap: Snapshot) -> Plan:
        return Plan(f"files: {path}", (FileChange(path, data),))

    trailers = Trailers(op="file.put", actor="test")
    result = ws.home.store.commit(planner, trailers, planned=ahead.begin)
    assert result.changed and result.commit is not None
    assert ahead.landed(result.paths, result.commit)  # indexed here: no pass after
    ahead.reset()
    return result.commit


def test_a_write_indexed_beside_its_commit_needs_no_pass_after(workspace: Workspace) -> None:
    ws = workspace
    rec = ws.app.reconciler
    rec.reconcile()
    ahead = IndexAhead(rec)
    data = b"# Heron\n\nThe heron waited by the weir.\n"
    head = commit_file(ws, HERON, data, ahead)

    assert found(rec, "weir") == {HERON}
    status = freshness.status(rec)
    assert status.fresh and status.indexed_head == head == ws.git("rev-parse", "HEAD").strip()
    entry = manifest.load(rec.folder).files[HERON]  # type: ignore[union-attr]
    st = os.lstat(ws.root / HERON)
    assert (entry.size, entry.mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert entry.digest == hashlib.blake2b(data, digest_size=16).digest()
    assert rec.reconcile([HERON]).indexed == 0  # hashed again at most (racy), not re-indexed

    # The store planned twice (the branch moved under the first plan): the
    # second plan's bytes are what the index keeps.
    ahead.begin(((HERON, b"# Heron\n\nThe heron flew off.\n"),))
    second = b"# Heron\n\nThe heron came back at dusk.\n"
    commit_file(ws, HERON, second, ahead)
    assert found(rec, "flew") == set()
    assert found(rec, "dusk") == {HERON}
    assert freshness.status(rec).fresh


def test_a_commit_that_fails_after_the_index_took_the_write_leaves_it_in_step(
    workspace: Workspace,
) -> None:
    """The branch's ref stays locked (a real ``.lock`` file, as git's own writers
    leave it): the served write fails after its file went to the index; the
    index is back in step before the error is answered, and the next write works."""
    ws = workspace
    ws.home.note("The heron waited by the weir.", "Heron", "test")
    served = wiring.open_service(ws.root, ws.home.clock)
    served.start()
    try:
        note = served.note("The otter slid down the bank.", "Otter", "test")
        assert found(served.reconciler, "otter") == {note.path}
        before, head = ws.read(note.path), ws.git("rev-parse", "HEAD").strip()
        branch = ws.git("symbolic-ref", "HEAD").strip()
        lock = ws.root / ".git" / f"{branch}.lock"
        lock.write_text(head + "\n")
        served.writes.store.lock_timeout = 0.3
        try:
            with pytest.raises(Busy):
                served.note("A kingfisher dived for minnows.", "Kingfisher", "test")
        finally:
            lock.unlink()
        assert ws.git("rev-parse", "HEAD").strip() == head
        assert ws.read(note.path) == before
        assert found(served.reconciler, "kingfisher") == set()
        assert found(served.reconciler, "otter") == {note.path}
        status = freshness.status(served.reconciler)
        assert status.fresh, status.stale_reasons

        again = served.note("A kingfisher dived for minnows.", "Kingfisher", "test")
        assert found(served.reconciler, "kingfisher") == {again.path}
        assert freshness.status(served.reconciler).fresh
    finally:
        served.stop()


def test_a_process_killed_after_the_index_took_the_write_but_before_git_is_repaired(
    workspace: Workspace,
) -> None:
    """Killed between the index commit and git's commit: the file keeps its old
    bytes, size and mtime, and the section count is the same, so only the
    unknown manifest entry written first tells the next process to read it again."""
    ws = workspace
    ws.home.put(HERON, b"# Heron\n\nThe heron waited by the weir.\n", "test")
    rec = ws.app.reconciler
    rec.reconcile()
    ahead = IndexAhead(rec)
    ahead.begin(((HERON, b"# Heron\n\nA kingfisher dived for minnows.\n"),))
    ahead.abandoned()  # its thread joined and the lock let go; no pass: "killed"
    assert found(rec, "kingfisher") == {HERON}  # the index took the planned bytes

    again = ws.reopen().reconciler  # the next process
    again.reconcile()
    assert found(again, "kingfisher") == set()
    assert found(again, "weir") == {HERON}
    assert freshness.status(again).fresh


def test_a_served_move_drops_one_path_and_indexes_the_other(workspace: Workspace) -> None:
    """A rejected proposal moves to the archive: one path removed, one added, in
    one commit; both reach the index beside it and the index reflects HEAD."""
    served = wiring.open_service(workspace.root, workspace.home.clock)
    served.start()
    try:
        key = served.propose("Garden", ["Sam grows parsnips"], "test").key or ""
        proposed = {hit.path for hit in served.search("parsnips").hits}
        served.reject(key, "not true", "test")
        moved = {hit.path for hit in served.search("parsnips", "archive").hits}
        assert len(proposed) == len(moved) == 1 and proposed != moved
        assert not (workspace.root / next(iter(proposed))).exists()
        status = freshness.status(served.reconciler)
        assert status.fresh, status.stale_reasons
        assert status.indexed_head == workspace.git("rev-parse", "HEAD").strip()
    finally:
        served.stop()


def test_a_write_refused_for_a_persons_edit_leaves_the_index_on_that_edit(
    workspace: Workspace,
) -> None:
    """The plan went to the index before the work tree was checked; the file
    holds a person's uncommitted edit, so the write is refused, and the index
    holds the person's text again, not the refused plan."""
    served = wiring.open_service(workspace.root, workspace.home.clock)
    served.start()
    try:
        served.put(HERON, b"# Heron\n\nThe heron waited by the weir.\n", "test")
        workspace.write(HERON, "# Heron\n\nThe heron caught an eel.\n")
        with pytest.raises(DirtyFile):
            served.put(HERON, b"# Heron\n\nA kingfisher dived for minnows.\n", "test")
        assert found(served.reconciler, "kingfisher") == set()
        assert found(served.reconciler, "eel") == {HERON}
        assert freshness.status(served.reconciler).fresh
    finally:
        served.stop()
