"""git's index file as hearth updates it.

libgit2 takes ``.git/index.lock`` only while it writes, which would leave a
window for a person's ``git add`` between hearth's read of the index and its
write. So hearth holds git's own lock across a whole commit and its index
update (taking it with its mark, see ``lock.py``), edits a scratch copy of the
index in ``.git/hearth/``, and renames that copy into place: git sees either
the old index or the new one, never a half-written file.

While hearth holds the lock it also keeps an *owner record* beside its own
state. The record outlives only a hearth that died holding the lock: whoever
takes the lock next finds it and knows a write may be unfinished
(``recovery.py``).
"""

from __future__ import annotations

import os
import shutil
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pygit2
from pygit2.ffi import ffi

from hearth.errors import Busy
from hearth.store import state
from hearth.store.lock import backoff, clear_if_orphaned, held_lock, lock_mark, take_marked

#: A file changed this recently before hearth read it may change again unseen by a
#: stat comparison: git compares whole seconds of mtime and ctime unless it was
#: built with ``USE_NSEC`` (Debian's git is not), so an edit in the same second
#: as the recorded mtime, with the same size, would look unchanged once git's
#: index is written in a later second. Such a file's entry gets no stat data and
#: git compares its content. Past this window, any edit after the read lands in
#: a later second than the recorded mtime.
RACY_WINDOW_NS = 2_000_000_000
_U32 = 0xFFFFFFFF


#: The stat data an index entry keeps: ctime and mtime (ns), dev, ino, uid, gid, size.
_STAT = struct.Struct("<qqQQQQQ")


def stat_data(seen: os.stat_result | None, read_at_ns: int) -> bytes | None:
    """What git's index entry keeps of ``seen``, the ``fstat`` of a work-tree file
    whose bytes hearth read at ``read_at_ns``; None when the file changed within
    the racy window before the read (or was not seen). Packed: an adopted folder
    keeps one per file until its commit lands (a ``stat_result`` is ten times
    the size)."""
    if seen is None or seen.st_mtime_ns >= read_at_ns - RACY_WINDOW_NS:
        return None
    return _STAT.pack(
        seen.st_ctime_ns,
        seen.st_mtime_ns,
        seen.st_dev,
        seen.st_ino,
        seen.st_uid,
        seen.st_gid,
        seen.st_size,
    )


def index_entry(
    path: str, oid: pygit2.Oid, mode: pygit2.enums.FileMode, stat: bytes | None = None
) -> pygit2.IndexEntry:
    """git's index entry for ``path``; with ``stat`` (``stat_data`` of the work-tree
    file whose bytes hearth read and found to be ``oid``), the entry carries that
    file's stat data as ``git add`` records it.

    Without stat data (what ``pygit2.IndexEntry`` writes: every field zero), git
    and libgit2 cannot tell the file is unchanged without reading and hashing
    it, on every ``git status`` and every status snapshot of a served home, until
    a git command refreshes the index: after ``hearth init`` adopted a big
    folder of notes, seconds of CPU a snapshot."""
    if stat is None:
        return pygit2.IndexEntry(path, oid, mode)
    return _StatEntry(path, oid, mode, stat)


class _StatEntry(pygit2.IndexEntry):
    """An index entry with the stat data of the file it describes.

    pygit2's ``IndexEntry`` has no stat fields; ``Index.add`` hands libgit2 the
    C structure ``_to_c`` builds, so this fills them in there (libgit2 copies
    the whole structure). tests/store/test_index_stat.py checks that git
    reads them back."""

    def __init__(
        self, path: str, oid: pygit2.Oid, mode: pygit2.enums.FileMode, stat: bytes
    ) -> None:
        super().__init__(path, oid, mode)
        self.stat = stat

    def _to_c(self) -> tuple[ffi.GitIndexEntryC, ffi.ArrayC[ffi.char]]:
        centry, path = super()._to_c()
        ctime, mtime, dev, ino, uid, gid, size = _STAT.unpack(self.stat)
        centry.ctime.seconds = ctime // 1_000_000_000 & 0x7FFFFFFF
        centry.ctime.nanoseconds = ctime % 1_000_000_000
        centry.mtime.seconds = mtime // 1_000_000_000 & 0x7FFFFFFF
        centry.mtime.nanoseconds = mtime % 1_000_000_000
        centry.dev = dev & _U32
        centry.ino = ino & _U32
        centry.uid = uid & _U32
        centry.gid = gid & _U32
        centry.file_size = size & _U32
        return centry, path


class GitIndexFile:
    def __init__(self, git_dir: Path, state_dir: Path) -> None:
        self.path = git_dir / "index"
        self.lock = git_dir / "index.lock"
        self.scratch = state_dir / state.SCRATCH_INDEX
        self.owner = state_dir / state.LOCK_OWNER
        self._index: pygit2.Index | None = None
        self._stamp: tuple[int, int, int, bytes] | None = None

    def current(self) -> pygit2.Index:
        """git's index as an object bound to our scratch copy.

        Re-read only when the index file is not the one we last wrote (git
        replaces it by rename, so its inode changes whenever anyone writes it;
        ``_stamp`` also compares its checksum, as an inode can be reused).
        """
        stamp = _stamp(self.path)
        if self._index is None or stamp != self._stamp:
            self.scratch.parent.mkdir(parents=True, exist_ok=True)
            self.scratch.unlink(missing_ok=True)
            if stamp is not None:
                shutil.copyfile(self.path, self.scratch)
            self._index = pygit2.Index(str(self.scratch))
            self._stamp = stamp
        return self._index

    def staged_oid(self, path: str) -> str | None:
        """The blob id git's index holds for ``path`` (None: no entry)."""
        index = self.current()
        return str(index[path].id) if path in index else None

    def save(self, index: pygit2.Index) -> None:
        """Write ``index`` (from ``current``) and put it in place of git's index."""
        index.write()
        self.scratch.replace(self.path)
        self._stamp = _stamp(self.path)

    def forget(self) -> None:
        """Drop the in-memory copy (it may hold entries that never reached disk)."""
        self._index, self._stamp = None, None

    @contextmanager
    def locked(self, timeout: float) -> Iterator[float | None]:
        """Hold git's ``index.lock``; yields when a dead hearth's owner record was
        found (its mtime: that hearth's write may be unfinished), else None.

        A lock a dead hearth left is cleared; one a running git holds is waited
        for, up to ``timeout`` seconds, then Busy.
        """
        for _ in backoff(timeout):
            if take_marked(self.lock):
                break
            clear_if_orphaned(self.lock)
        else:
            raise Busy(
                f"git's index stayed locked for over {timeout:.0f} s; if no git "
                "command is running, remove the stale .git/index.lock and try again"
            )
        try:
            # libgit2 writes the scratch copy through its own lock file; a hearth
            # killed in that write leaves it, and every later write would fail.
            # Only a holder of git's index lock (under hearth's write lock) ever
            # writes the scratch copy, so one found now is debris.
            self.scratch.with_name(self.scratch.name + ".lock").unlink(missing_ok=True)
            interrupted = _mtime(self.owner)
            self.owner.parent.mkdir(parents=True, exist_ok=True)
            self.owner.write_text(lock_mark())
            yield interrupted
        finally:
            # The owner record goes first: whoever takes the lock next must not
            # find a record of ours and think we died holding it.
            self.owner.unlink(missing_ok=True)
            self.lock.unlink(missing_ok=True)

    def recovery_pending(self) -> bool:
        """True while a dead hearth's owner record waits for the next lock holder."""
        return self.owner.exists()

    def held(self) -> dict[str, object] | None:
        """Who holds git's index lock and since when; None when it is free."""
        return held_lock(self.lock)


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


#: The length of the checksum that ends git's index file (SHA-1 of the rest).
_TRAILER = 20


def _stamp(path: Path) -> tuple[int, int, int, bytes] | None:
    """What tells one index file from another: its inode, size and mtime, and
    the checksum git ends it with. The stat fields alone can match a file
    another process wrote: a freed inode is handed out again, and the kernel's
    timestamps are as coarse as its clock tick; the checksum differs whenever
    the entries do (unless ``index.skipHash`` writes zeros there)."""
    try:
        with path.open("rb") as handle:
            st = os.fstat(handle.fileno())
            tail = b""
            if st.st_size >= _TRAILER:
                handle.seek(-_TRAILER, os.SEEK_END)
                tail = handle.read(_TRAILER)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, tail)
