"""git's index entries that hearth writes carry the work-tree file's stat data
when hearth read that file's bytes itself (``git_index.index_entry``), so git
and libgit2 can tell an adopted file is unchanged without reading it, and never
take a file that changed for an unchanged one."""

from __future__ import annotations

import os
from pathlib import Path

import pygit2
import pytest

from hearth import wiring
from hearth.store.git_index import RACY_WINDOW_NS, index_entry, stat_data
from hearth.store.repository import open_repository, worktree_changes
from hearth.store.rooted import RootedFiles
from tests.conftest import git

OLD_NS = 1_700_000_000_123_456_789  # a settled mtime, long before the test ran


def _debug_entries(root: Path) -> dict[str, dict[str, str]]:
    """``git ls-files --debug``, parsed: path -> {"mtime": "s:ns", "size": ..., "ino": ...}."""
    entries: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in git(root, "ls-files", "--debug").splitlines():
        if not line.startswith(" "):
            current = entries.setdefault(line, {})
            continue
        words = line.split()
        for key, value in zip(words[::2], words[1::2], strict=False):
            current[key.rstrip(":")] = value
    return entries


def _adopted_folder(root: Path, count: int = 5) -> list[str]:
    paths = []
    for i in range(count):
        path = root / "memory" / "topics" / f"t{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Topic {i}\n\nabout the garden, part {i}\n")
        os.utime(path, ns=(OLD_NS, OLD_NS + i))
        paths.append(f"memory/topics/t{i}.md")
    return paths


def test_init_records_the_stat_data_of_every_adopted_file(tmp_path: Path) -> None:
    """Failed on 9930d26: every entry had size 0 and mtime 0:0, so each status
    of the home (hearth's snapshot after every pass, a person's ``git status``)
    read and hashed all its files: 8 s of CPU a snapshot at 100,000 files."""
    root = tmp_path / "home"
    adopted = _adopted_folder(root)
    wiring.initialize(root)
    entries = _debug_entries(root)
    for path in adopted:
        st = os.lstat(root / path)
        entry = entries[path]
        assert entry["size"] == str(st.st_size), (path, entry)
        assert entry["mtime"] == f"{st.st_mtime_ns // 10**9}:{st.st_mtime_ns % 10**9}", entry
        assert entry["ino"] == str(st.st_ino), entry
    assert git(root, "status", "--porcelain") == ""
    assert worktree_changes(open_repository(root)) == []


def test_an_edit_right_after_init_is_seen_though_its_size_is_kept(tmp_path: Path) -> None:
    """Files written just before init are racy: a same-size edit right after it
    falls in the same second as the mtime hearth saw, which git (comparing whole
    seconds) would take for unchanged if the entry held that stat data. Their
    entries get none, and git and libgit2 see the edit."""
    root = tmp_path / "home"
    fresh = []
    for i in range(3):
        path = root / "memory" / f"fresh{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Fresh {i}\n\nthe kettle is on\n")
        fresh.append(f"memory/fresh{i}.md")
    wiring.initialize(root)
    entries = _debug_entries(root)
    assert all(entries[path]["size"] == "0" for path in fresh), entries
    target = root / fresh[1]
    size = os.lstat(target).st_size
    target.write_text(target.read_text().replace("kettle", "ladder"))
    assert os.lstat(target).st_size == size
    assert git(root, "status", "--porcelain") == f" M {fresh[1]}\n"
    assert worktree_changes(open_repository(root)) == [(fresh[1], "modified")]


def test_a_file_changed_within_the_window_before_its_read_gets_no_stat_data(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    pygit2.init_repository(str(root))
    note = root / "n.md"
    note.write_text("hello\n")
    oid = pygit2.hash(note.read_bytes())
    mode = pygit2.enums.FileMode.BLOB
    mtime = os.lstat(note).st_mtime_ns
    cases = {
        "settled.md": (mtime + RACY_WINDOW_NS + 1_000_000, True),
        "racy.md": (mtime + RACY_WINDOW_NS // 2, False),
        "unread.md": (0, False),
    }
    index = pygit2.Index(str(root / ".git" / "index"))
    for path, (read_at, _) in cases.items():
        index.add(index_entry(path, oid, mode, stat_data(os.lstat(note), read_at)))
    index.add(index_entry("no-stat.md", oid, mode, stat_data(None, mtime + 10 * RACY_WINDOW_NS)))
    index.write()
    entries = _debug_entries(root)
    for path, (_, recorded) in cases.items():
        assert (entries[path]["size"] == str(len("hello\n"))) is recorded, (path, entries[path])
    assert entries["no-stat.md"]["size"] == "0"
    assert entries["no-stat.md"]["mtime"] == "0:0"


def test_read_stat_describes_the_bytes_it_read(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b.md").write_bytes(b"twelve bytes")
    files = RootedFiles(tmp_path)
    try:
        data, seen = files.read_stat("a/b.md")
        assert data == b"twelve bytes"
        assert seen is not None
        on_disk = os.lstat(tmp_path / "a" / "b.md")
        assert (seen.st_ino, seen.st_size, seen.st_mtime_ns) == (
            on_disk.st_ino,
            on_disk.st_size,
            on_disk.st_mtime_ns,
        )
        assert files.read_stat("a/missing.md") == (None, None)
        assert files.read_stat("nowhere/b.md") == (None, None)
    finally:
        files.close()


def test_init_reads_in_chunks_and_never_adopts_a_symlink_fifo_or_refused_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hearth.app import init_home as setup

    monkeypatch.setattr(setup, "READ_CHUNK", 3)
    root = tmp_path / "home"
    notes = [f"memory/f{i % 3}/n{i}.md" for i in range(8)]
    for rel in notes:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"note {rel}\n")
    (root / "memory/f0/link.md").symlink_to(root / notes[0])
    os.mkfifo(root / "memory/f1/pipe.md")
    (root / "memory/f2/back\\slash.md").write_text("refused name\n")
    result = wiring.initialize(root)
    assert sorted(result.adopted) == sorted(notes)
    tracked = set(git(root, "ls-files").splitlines())
    assert set(notes) <= tracked
    assert not {"memory/f0/link.md", "memory/f1/pipe.md"} & tracked
    assert not [p for p in tracked if "slash" in p]
