"""The reconciler against files changed behind hearth's back, in a real home."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hearth.index.schema import SCHEMA_VERSION
from hearth.reconcile import freshness, manifest
from hearth.reconcile.differ import PARK_AFTER
from hearth.reconcile.reconciler import Reconciler
from tests.conftest import Workspace


def age_tree(root: Path, seconds: float = 30.0) -> None:
    """Move every file's mtime into the past, out of the racy window."""
    past = time.time() - seconds
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            os.utime(Path(folder) / name, (past, past), follow_symlinks=False)


def paths_found(rec: Reconciler, query: str) -> set[str]:
    return {hit.path for hit in rec.catch_up().search(query, limit=200, everything=True).hits}


@pytest.fixture
def rec(workspace: Workspace) -> Reconciler:
    return workspace.app.reconciler


def test_files_written_replaced_and_deleted_behind_its_back(
    workspace: Workspace, rec: Reconciler
) -> None:
    ws = workspace
    rec.reconcile()
    ws.write("memory/topics/bees.md", "# Bees\n\nThe hives need a new queen in spring.\n")
    first = rec.reconcile()
    assert first.indexed == 1
    assert paths_found(rec, "queen") == {"memory/topics/bees.md"}

    # An editor's atomic save: write a temp file and rename it over the target.
    temp = ws.root / "memory/topics/.bees.md.tmp123"
    temp.write_text("# Bees\n\nSwarm season starts in May.\n")
    temp.replace(ws.root / "memory/topics/bees.md")
    rec.reconcile()
    assert paths_found(rec, "queen") == set()
    assert paths_found(rec, "swarm") == {"memory/topics/bees.md"}

    (ws.root / "memory/topics/bees.md").unlink()
    report = rec.reconcile()
    assert report.removed == 1
    assert paths_found(rec, "swarm") == set()
    assert freshness.status(rec).fresh


def test_folder_renamed_and_removed(workspace: Workspace, rec: Reconciler) -> None:
    ws = workspace
    for n in range(5):
        ws.write(f"projects/garden/plot-{n}.md", f"# Plot {n}\n\nPumpkins in plot {n}.\n")
    rec.reconcile()
    assert len(paths_found(rec, "pumpkins")) == 5

    (ws.root / "projects/garden").rename(ws.root / "projects/orchard")
    # A watcher reports only the folders for a rename: a targeted pass over them.
    rec.reconcile(["projects/garden", "projects/orchard"])
    assert paths_found(rec, "pumpkins") == {f"projects/orchard/plot-{n}.md" for n in range(5)}

    shutil.rmtree(ws.root / "projects")
    rec.reconcile(["projects"])
    assert paths_found(rec, "pumpkins") == set()
    assert freshness.status(rec).fresh


def test_bulk_create_and_delete_at_once(workspace: Workspace, rec: Reconciler) -> None:
    ws = workspace
    for n in range(200):
        ws.write(f"bulk/note-{n:03d}.md", f"# Note {n}\n\nzanzibar {n}\n")
    rec.reconcile()
    for n in range(0, 200, 2):
        (ws.root / f"bulk/note-{n:03d}.md").unlink()
    for n in range(200, 260):
        ws.write(f"bulk/note-{n:03d}.md", f"# Note {n}\n\nzanzibar {n}\n")
    rec.reconcile()
    expected = {f"bulk/note-{n:03d}.md" for n in [*range(1, 200, 2), *range(200, 260)]}
    assert paths_found(rec, "zanzibar") == expected
    status = freshness.status(rec)
    assert status.fresh
    assert status.files_on_disk == status.files_indexed


def test_a_pass_with_nothing_changed_reads_nothing(workspace: Workspace, rec: Reconciler) -> None:
    for n in range(30):
        workspace.write(f"memory/topics/t{n}.md", f"# Topic {n}\n\nbody {n}\n")
    age_tree(workspace.root)
    first = rec.reconcile()
    assert first.hashed > 30
    second = rec.reconcile()
    assert (second.hashed, second.indexed, second.removed) == (0, 0, 0)
    assert second.scanned == first.scanned


def test_touched_but_identical_file_is_hashed_not_reindexed(
    workspace: Workspace, rec: Reconciler
) -> None:
    age_tree(workspace.root)
    rec.reconcile()
    os.utime(workspace.root / "SOUL.md")
    report = rec.reconcile()
    assert (report.hashed, report.indexed) == (1, 0)


def test_recent_files_are_hashed_again_next_pass(workspace: Workspace, rec: Reconciler) -> None:
    """A file changed within the mtime tick of the read might change again unseen."""
    age_tree(workspace.root)
    rec.reconcile()
    workspace.write("memory/topics/fresh.md", "# Fresh\n\none\n")
    rec.reconcile()
    again = rec.reconcile()
    assert again.hashed == 1


def test_ignored_files_and_temporaries_are_not_indexed(
    workspace: Workspace, rec: Reconciler
) -> None:
    ws = workspace
    ws.write(".gitignore", ws.read(".gitignore") + "private/\n")
    ws.write("private/diary.md", "# Diary\n\nflamingo\n")
    ws.write("memory/topics/.hearth-tmp-abc", "flamingo")
    ws.write("memory/topics/notes.md.swp", "flamingo")
    rec.reconcile()
    assert paths_found(rec, "flamingo") == set()
    # Un-ignoring the folder brings its files in on the next full pass.
    ws.write(".gitignore", ws.read(".gitignore").replace("private/\n", ""))
    rec.reconcile()
    assert paths_found(rec, "flamingo") == {"private/diary.md"}
    assert "continuity/ACTIVE.md" not in {
        h.path for h in rec.catch_up().search("active", limit=200).hits
    }


def test_symlinks_fifos_and_bad_text_are_parked_with_reasons(
    workspace: Workspace, rec: Reconciler, tmp_path: Path
) -> None:
    ws = workspace
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n\nplatypus\n")
    (ws.root / "memory/topics").mkdir(parents=True, exist_ok=True)
    (ws.root / "memory/topics/link.md").symlink_to(outside)
    (ws.root / "linked-folder").symlink_to(tmp_path)
    os.mkfifo(ws.root / "memory/topics/pipe.md")
    (ws.root / "memory/topics/latin1.md").write_bytes(b"# Caf\xe9\n\nplatypus\n")
    report = rec.reconcile()
    assert report.parked == 4
    assert paths_found(rec, "platypus") == set()
    parked = {p["path"]: p["reason"] for p in freshness.status(rec).parked}
    assert "symlink" in parked["memory/topics/link.md"]
    assert "symlink" in parked["linked-folder"]
    assert "regular file" in parked["memory/topics/pipe.md"]
    assert "UTF-8" in parked["memory/topics/latin1.md"]
    # Parked files are not retried until they change...
    assert rec.reconcile().parked == 0
    # ...and come back as soon as they do.
    (ws.root / "memory/topics/latin1.md").write_text("# Café\n\nplatypus\n")
    rec.reconcile()
    assert paths_found(rec, "platypus") == {"memory/topics/latin1.md"}
    active = ws.read("continuity/ACTIVE.md")
    assert "not indexed: memory/topics/pipe.md" in active


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_is_retried_then_parked(workspace: Workspace, rec: Reconciler) -> None:
    target = workspace.root / "memory/topics/secret.md"
    workspace.write("memory/topics/secret.md", "# Secret\n\nokapi\n")
    target.chmod(0)
    for _ in range(PARK_AFTER):
        rec.reconcile()
    parked = {p["path"]: p["reason"] for p in freshness.status(rec).parked}
    assert "cannot be read" in parked["memory/topics/secret.md"]
    target.chmod(0o644)
    os.utime(target)
    rec.reconcile()
    assert paths_found(rec, "okapi") == {"memory/topics/secret.md"}


def test_a_file_vanishing_between_listing_and_reading_is_skipped(
    workspace: Workspace, rec: Reconciler, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = workspace
    rec.reconcile()
    ws.write("memory/topics/ghost.md", "# Ghost\n\nwraith\n")
    ws.write("memory/topics/solid.md", "# Solid\n\nwraith\n")
    real_reader = rec.files.batch_reader

    @contextmanager
    def vanishing_reader(limit: int | None = None) -> Iterator[Callable[[str], bytes | None]]:
        """The file goes away after the listing, just before it is read."""
        with real_reader(limit) as read:

            def vanishing_read(path: str) -> bytes | None:
                if path == "memory/topics/ghost.md":
                    (ws.root / path).unlink(missing_ok=True)
                return read(path)

            yield vanishing_read

    monkeypatch.setattr(rec.files, "batch_reader", vanishing_reader)
    report = rec.reconcile()
    assert not report.errors
    assert paths_found(rec, "wraith") == {"memory/topics/solid.md"}
    monkeypatch.undo()
    assert freshness.status(rec).fresh


def test_a_folder_it_may_not_enter_is_reported(workspace: Workspace, rec: Reconciler) -> None:
    if os.geteuid() == 0:
        pytest.skip("root enters every folder")
    locked = workspace.root / "locked"
    locked.mkdir()
    (locked / "a.md").write_text("# A\n")
    locked.chmod(0)
    try:
        report = rec.reconcile()
        assert any("locked" in e for e in report.errors)
        assert not freshness.status(rec).fresh
    finally:
        locked.chmod(0o755)


def test_corrupt_index_is_rebuilt_aside(workspace: Workspace, rec: Reconciler) -> None:
    ws = workspace
    ws.write("memory/topics/moth.md", "# Moth\n\nluna moth\n")
    rec.reconcile()
    rec.close()
    folder = ws.root / ".git/hearth/index"
    for item in (folder / "tantivy").iterdir():
        if item.is_file():
            # Replaced, not rewritten in place: a map of the old file that this
            # process still holds (the closed index is freed when Python collects
            # it) would fault on a truncated file, and only the test would crash.
            garbage = item.with_name(item.name + ".garbage")
            garbage.write_bytes(b"garbage")
            garbage.replace(item)
    fresh = ws.reopen().reconciler
    report = fresh.reconcile()
    assert report.rebuilt
    assert paths_found(fresh, "luna") == {"memory/topics/moth.md"}
    assert not list(folder.parent.glob("index.new-*"))
    assert not list(folder.parent.glob("index.old-*"))


def test_schema_mismatch_and_lost_manifest_rebuild(workspace: Workspace, rec: Reconciler) -> None:
    ws = workspace
    ws.write("memory/topics/moth.md", "# Moth\n\nluna moth\n")
    rec.reconcile()
    rec.close()
    meta = ws.root / ".git/hearth/index/meta.json"
    stale = meta.read_text().replace(f'"schema": {SCHEMA_VERSION}', '"schema": 0')
    assert stale != meta.read_text()
    meta.write_text(stale)
    again = ws.reopen().reconciler
    assert again.reconcile().rebuilt
    again.close()
    (ws.root / ".git/hearth/index/manifest.bin").unlink()
    third = ws.reopen().reconciler
    assert third.reconcile().rebuilt
    assert paths_found(third, "luna") == {"memory/topics/moth.md"}


def test_two_reconcilers_share_one_index(workspace: Workspace, rec: Reconciler) -> None:
    """The CLI and a server each hold a reconciler over the same home."""
    ws = workspace
    other = Reconciler(
        ws.root,
        ws.home.files,
        ws.home.store.repo,
        ws.home.store.state_dir,
        ws.home.settings.bounds,
        ws.home.clock,
    )
    ws.write("memory/topics/a.md", "# A\n\nnarwhal\n")
    rec.reconcile()
    assert paths_found(other, "narwhal") == {"memory/topics/a.md"}
    (ws.root / "memory/topics/a.md").unlink()
    other.reconcile()
    assert paths_found(rec, "narwhal") == set()
    rec.rebuild()
    ws.write("memory/topics/b.md", "# B\n\nnarwhal\n")
    other.reconcile()
    assert paths_found(rec, "narwhal") == {"memory/topics/b.md"}


def test_writes_are_searchable_when_they_return(workspace: Workspace) -> None:
    home = workspace.home
    home.note("The heron came back to the pond.", "Heron", "test")
    rec = workspace.app.reconciler
    hits = rec.catch_up().search("heron").hits
    assert [h.kind for h in hits] == ["daily"]
    key = home.propose("Heron facts", ["Herons nest in colonies"], "test").key or ""
    assert {h.path for h in rec.catch_up().search("colonies").hits} == {
        f"continuity/proposals/memory/{key}.md"
    }
    home.merge(key, "test")
    found = {h.path: h.kind for h in rec.catch_up().search("colonies").hits}
    assert found["MEMORY.md"] == "persona"
    # The merged proposal's archive copy is found when asked for, not beside its entry.
    assert [k for k in found.values() if k == "archive"] == []
    archived = rec.catch_up().search("colonies", "archive").hits
    assert [(h.kind, h.status) for h in archived] == [("archive", "merged")]
    assert not any(p.startswith("continuity/proposals/memory/heron") for p in found)


def test_a_writes_own_commit_is_indexed_at_head_without_comparing_trees(
    workspace: Workspace, rec: Reconciler, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hearth.store import tree_diff

    rec.reconcile()
    compared: list[str] = []
    real = tree_diff.changed_paths

    def counted(*args: object, **kwargs: object) -> list[str] | None:
        compared.append("trees")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("hearth.reconcile.reconciler.changed_paths", counted)
    workspace.home.note("The kingfisher dived.", "Kingfisher", "test")
    status = freshness.status(rec)
    assert status.fresh
    assert status.indexed_head == workspace.git("rev-parse", "HEAD").strip()
    assert compared == []  # its own commit, on the indexed HEAD: no tree walk
    assert paths_found(rec, "kingfisher")


def test_a_write_on_a_persons_unindexed_commit_leaves_the_index_behind_head(
    workspace: Workspace, rec: Reconciler
) -> None:
    """The shortcut holds only for a commit made on the HEAD the index reflects:
    a person's commit between (of a file the write does not touch) is not covered."""
    rec.reconcile()
    workspace.write("memory/topics/otter.md", "# Otter\n\nThe otter slid down the bank.\n")
    workspace.git("add", "memory/topics/otter.md")
    workspace.git("-c", "core.hooksPath=/dev/null", "commit", "-qm", "otter")
    person = workspace.git("rev-parse", "HEAD").strip()
    workspace.home.note("The kingfisher dived.", "Kingfisher", "test")
    status = freshness.status(rec)
    head = workspace.git("rev-parse", "HEAD").strip()
    assert head != person
    assert status.indexed_head != head
    assert not status.fresh
    assert paths_found(rec, "kingfisher")
    rec.reconcile()
    assert freshness.status(rec).indexed_head == head
    assert paths_found(rec, "otter") == {"memory/topics/otter.md"}


def test_status_is_stale_until_a_pass_sees_the_change(
    workspace: Workspace, rec: Reconciler
) -> None:
    rec.reconcile()
    assert freshness.status(rec).fresh
    workspace.write("memory/topics/new.md", "# New\n")
    status = freshness.status(rec)
    assert not status.fresh
    assert status.stale_files == 1
    workspace.git("commit", "--allow-empty", "-qm", "empty")
    rec.reconcile()
    status = freshness.status(rec)
    assert status.fresh
    assert status.indexed_head == workspace.git("rev-parse", "HEAD").strip()


def test_a_crash_between_index_commit_and_manifest_save_leaves_no_orphans(
    workspace: Workspace, rec: Reconciler, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hearth.reconcile import manifest

    ws = workspace
    rec.reconcile()

    def crash(*_args: object, **_kwargs: object) -> None:
        raise OSError("killed before the manifest was saved")

    monkeypatch.setattr(manifest, "save", crash)
    ws.write("memory/topics/orphan.md", "# Orphan\n\naardvark\n")
    with pytest.raises(OSError):
        rec.reconcile()
    monkeypatch.undo()
    (ws.root / "memory/topics/orphan.md").unlink()
    # A new process: the manifest on disk never heard of orphan.md.
    after = ws.reopen().reconciler
    assert after.reconcile().rebuilt
    assert paths_found(after, "aardvark") == set()
    assert freshness.status(after).fresh


def test_the_manifest_journal_survives_a_new_process_and_a_torn_record(
    workspace: Workspace, rec: Reconciler
) -> None:
    ws = workspace
    rec.reconcile()
    for n in range(5):
        ws.write(f"memory/topics/j{n}.md", f"# J{n}\n\nibis {n}\n")
        rec.reconcile([f"memory/topics/j{n}.md"])
    (ws.root / "memory/topics/j0.md").unlink()
    rec.reconcile(["memory/topics/j0.md"])
    journal = ws.root / ".git/hearth/index/manifest.log"
    assert journal.stat().st_size > 0
    age_tree(ws.root)
    fresh = ws.reopen().reconciler
    first = fresh.reconcile()
    assert not first.rebuilt and first.indexed == 0
    assert paths_found(fresh, "ibis") == {f"memory/topics/j{n}.md" for n in range(1, 5)}
    fresh.close()

    with journal.open("ab") as handle:
        handle.write(b"\x40\x00\x00\x00torn")  # a crash in the middle of an append
    torn = ws.reopen().reconciler
    report = torn.reconcile()
    assert not report.errors and not report.rebuilt
    assert paths_found(torn, "ibis") == {f"memory/topics/j{n}.md" for n in range(1, 5)}
    assert freshness.status(torn).fresh
    # Later records are not stranded behind the torn one.
    ws.write("memory/topics/j9.md", "# J9\n\nibis 9\n")
    torn.reconcile(["memory/topics/j9.md"])
    torn.close()
    later = ws.reopen().reconciler
    assert not later.reconcile().rebuilt
    assert "memory/topics/j9.md" in paths_found(later, "ibis")


def test_an_index_that_cannot_commit_is_rebuilt(
    workspace: Workspace, rec: Reconciler, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a process killed mid-commit can leave behind (Tantivy refuses to commit)."""
    from hearth.index import search_index

    rec.reconcile()
    real_commit = search_index.IndexUpdate.commit
    calls = 0

    def debris(self: search_index.IndexUpdate) -> bool:
        nonlocal calls
        calls += 1
        if calls == 1:
            self.rollback()
            raise search_index.IndexUnusable("Failed to open file for write: FileAlreadyExists")
        return real_commit(self)

    monkeypatch.setattr(search_index.IndexUpdate, "commit", debris)
    workspace.write("memory/topics/phoenix.md", "# Phoenix\n\nrises again\n")
    report = rec.reconcile()
    assert report.rebuilt
    assert paths_found(rec, "phoenix") == {"memory/topics/phoenix.md"}
    assert freshness.status(rec).fresh


def test_a_rebuild_saves_its_file_map_once_and_a_reopen_trusts_it(
    workspace: Workspace, rec: Reconciler, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = workspace
    for n in range(5):
        ws.write(f"memory/topics/moth{n}.md", f"# Moth {n}\n\nluna moth {n}\n")
    rec.reconcile()
    written: list[str] = []
    real_write = manifest._write_atomic

    def write_atomic(target: Path, data: bytes, *, durable: bool = True) -> None:
        written.append(target.name)
        real_write(target, data, durable=durable)

    monkeypatch.setattr(manifest, "_write_atomic", write_atomic)
    report = rec.rebuild()
    folder = ws.root / ".git/hearth/index"
    # The file map once, as a base (no journal record of every path after it).
    assert report.rebuilt and written.count(manifest.MANIFEST_NAME) == 1
    assert not (folder / manifest.JOURNAL_NAME).exists()
    assert written.count(manifest.PASS_NAME) == 2  # the rebuild's, then the pass's own
    # What is on disk is the pass's state: file map, last reconcile and ACTIVE.md's digest.
    state = rec.session.manifest
    loaded = manifest.load(folder)
    assert loaded is not None
    assert loaded.files == state.files and loaded.documents() == state.documents()
    assert (loaded.last_reconcile, loaded.active_digest) == (
        state.last_reconcile,
        state.active_digest,
    )
    assert loaded.active_digest is not None
    rec.close()
    again = ws.reopen().reconciler
    assert not again.reconcile().rebuilt
    assert paths_found(again, "luna") == {f"memory/topics/moth{n}.md" for n in range(5)}
    assert freshness.status(again).fresh
