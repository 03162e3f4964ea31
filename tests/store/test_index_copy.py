"""hearth's in-memory copy of git's index (``git_index.GitIndexFile``) is read
again whenever the index file is not the one hearth last wrote, even when
another process's file has the same inode, size and mtime (a freed inode handed
out again within one tick of the kernel's coarse clock)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pygit2

from hearth.store.git_index import GitIndexFile
from tests.conftest import git

#: Where the first entry's blob id sits in a version 2 index: the 12-byte header,
#: then ctime, mtime (8 bytes each) and six 4-byte stat and mode fields.
FIRST_OID = 12 + 40


def test_a_same_stamp_index_another_process_wrote_is_read_again(tmp_path: Path) -> None:
    """Failed before the index's checksum was part of its stamp: hearth kept its
    own copy and would have written it back over the other process's entries."""
    root = tmp_path / "home"
    git(tmp_path, "init", "-q", str(root))
    (root / "a.md").write_text("first\n")
    git(root, "add", "a.md")
    (root / "b.md").write_text("second\n")
    other = git(root, "hash-object", "-w", "b.md").strip()
    git_dir = root / ".git"
    index_file = GitIndexFile(git_dir, git_dir / "hearth")
    index_file.save(index_file.current())  # hearth's own write: its stamp is kept
    path = git_dir / "index"
    before = path.stat()
    data = bytearray(path.read_bytes())
    assert data[:4] == b"DIRC" and int.from_bytes(data[4:8], "big") == 2
    # Another process's index: other entries, same inode, size and mtime.
    data[FIRST_OID : FIRST_OID + 20] = bytes.fromhex(other)
    data[-20:] = hashlib.sha1(data[:-20]).digest()  # git's own checksum
    with path.open("r+b") as handle:
        handle.write(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )
    assert index_file.current()["a.md"].id == pygit2.Oid(hex=other)
