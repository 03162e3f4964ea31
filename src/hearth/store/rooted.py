"""Rooted file I/O: every read and write is relative to a descriptor of the home.

Each folder on the way is opened with ``O_NOFOLLOW | O_DIRECTORY`` from its
parent's descriptor, so a symlink anywhere inside the home (or swapped in
while we work) is refused rather than followed out of it. Writes go to a
temp file in the same folder, are fsynced, renamed over the target, and the
folder is fsynced: a reader sees the old bytes or the new, never half.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from hearth.domain.paths import MAX_PATH_CHARS, TEMP_PREFIX, is_temporary, normalize
from hearth.errors import Conflict, PathRefused, StoreError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_MODE = 0o644
#: A batch read opens before it checks (``_read_listed``): without following a
#: symlink, and without waiting on a FIFO swapped in since the listing.
_LISTED_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
#: Paths that ``normalize`` returns unchanged, recognized by one match: names
#: of ASCII letters, digits, ``_``, ``.``, ``-`` and spaces that start with a
#: letter, a digit or ``_`` (so no ``.``, ``..`` or ``.git``), at most 255 long.
#: Any other path (with its length over ``MAX_PATH_CHARS``) goes through ``normalize``.
_PLAIN_PATH = re.compile(
    r"[A-Za-z0-9_][A-Za-z0-9._ -]{0,254}(?:/[A-Za-z0-9_][A-Za-z0-9._ -]{0,254})*"
)


class RootedFiles:
    def __init__(self, root: Path) -> None:
        self.root = root
        try:
            self._root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            raise StoreError(f"cannot open the home {root}: {exc.strerror}") from exc

    def close(self) -> None:
        if self._root_fd >= 0:
            os.close(self._root_fd)
            self._root_fd = -1

    @contextmanager
    def _parent(self, path: str, *, create: bool) -> Iterator[tuple[int, str] | None]:
        """Yield ``(folder fd, file name)`` for ``path``, or None when a folder is missing."""
        parts = normalize(path).split("/")
        fd = os.dup(self._root_fd)
        try:
            for i, part in enumerate(parts[:-1]):
                where = "/".join(parts[: i + 1])
                next_fd = _open_folder(part, fd, where, create=create)
                if next_fd is None:
                    if not create:
                        yield None
                        return
                    with suppress(FileExistsError):
                        os.mkdir(part, 0o755, dir_fd=fd)
                    next_fd = _open_folder(part, fd, where)
                    if next_fd is None:
                        raise StoreError(f"{where!r} vanished while hearth created it")
                os.close(fd)
                fd = next_fd
            yield fd, parts[-1]
        finally:
            os.close(fd)

    @staticmethod
    def _refuse_non_regular(folder: int, name: str, path: str) -> bool:
        """True when the file exists; raise PathRefused if it is not a regular file."""
        try:
            st = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            return False
        if stat.S_ISLNK(st.st_mode):
            raise PathRefused(f"{path!r} is a symlink; hearth does not follow symlinks")
        if not stat.S_ISREG(st.st_mode):
            raise PathRefused(f"{path!r} is not a regular file")
        return True

    def signature(self, path: str) -> tuple[int, ...] | None:
        """What changes whenever the regular file ``path`` does (its device,
        inode, size, mode, and modification and change times, of one ``lstat``
        from the home's folder); None when there is no regular file there.

        A search keeps the text of files it read under it (``bodies.Kept``):
        the same signature is the same inode, unchanged since, so the same
        bytes a rooted read gave; a symlink or another file put in its place
        has another."""
        if len(path) > MAX_PATH_CHARS or _PLAIN_PATH.fullmatch(path) is None:
            return None  # a path ``read`` would normalize first: its file is never kept
        try:
            st = os.stat(path, dir_fd=self._root_fd, follow_symlinks=False)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        return (st.st_dev, st.st_ino, st.st_size, st.st_mode, st.st_mtime_ns, st.st_ctime_ns)

    def read(self, path: str) -> bytes | None:
        """The file's bytes, or None when it does not exist."""
        with self._parent(path, create=False) as parent:
            if parent is None:
                return None
            return self._read_at(parent[0], parent[1], path)

    def read_many(
        self, paths: Iterable[str], *, limit: int | None = None
    ) -> dict[str, bytes | None]:
        """Each of ``paths``' bytes, through one ``batch_reader`` (each folder opened
        once): None for a file that does not exist or cannot be read (refused, more
        than ``limit`` bytes, an error)."""
        found: dict[str, bytes | None] = {}
        with self.batch_reader(limit) as read:
            for path in paths:
                try:
                    found[path] = read(path)
                except (PathRefused, OSError):
                    found[path] = None
        return found

    @contextmanager
    def batch_reader(self, limit: int | None = None) -> Iterator[Callable[[str], bytes | None]]:
        """``read`` for many files at once, the files a listing just found: each folder
        is opened once, not once per file, and each file is opened before it is checked
        (``limit``: a file of more bytes is refused).

        The same refusals apply: every folder is opened ``O_NOFOLLOW`` from its
        parent's descriptor, every file ``O_NOFOLLOW`` from its folder's, and
        what is not a regular file is refused. A pass lists with ``lstat``
        first, so what it reads was a regular file a moment before; a FIFO or
        device swapped in since is opened non-blocking, refused and never read
        (``read`` checks with a ``stat`` before it opens anything).
        """
        folders: dict[str, int | None] = {}

        def folder_fd(folder: str) -> int | None:
            if folder not in folders:
                parent, _, name = folder.rpartition("/")
                base = folder_fd(parent) if parent else self._root_fd
                folders[folder] = None if base is None else _open_folder(name, base, folder)
            return folders[folder]

        def read(path: str) -> bytes | None:
            plain = len(path) <= MAX_PATH_CHARS and _PLAIN_PATH.fullmatch(path) is not None
            folder, _, name = (path if plain else normalize(path)).rpartition("/")
            fd = folder_fd(folder) if folder else self._root_fd
            return None if fd is None else _read_listed(fd, name, path, limit)

        try:
            yield read
        finally:
            for fd in folders.values():
                if fd is not None:
                    os.close(fd)

    def read_stat(self, path: str) -> tuple[bytes | None, os.stat_result | None]:
        """The file's bytes (None when it does not exist) and its ``fstat``, taken
        before the read and unchanged after it, so it describes these bytes
        (None when the file changed while it was read)."""
        with self._parent(path, create=False) as parent:
            if parent is None or not self._refuse_non_regular(parent[0], parent[1], path):
                return None, None
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = _open_at(parent[0], parent[1], path, flags)
            if fd is None:
                return None, None
            with os.fdopen(fd, "rb") as handle:
                before = os.fstat(fd)
                data = handle.read()
                after = os.fstat(fd)
        same = _identity(before) == _identity(after) and len(data) == before.st_size
        return data, before if same else None

    def _read_at(self, folder: int, name: str, path: str) -> bytes | None:
        if not self._refuse_non_regular(folder, name, path):
            return None
        fd = _open_at(folder, name, path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        if fd is None:
            return None
        with os.fdopen(fd, "rb") as handle:
            return handle.read()

    def write(self, path: str, data: bytes) -> None:
        """Atomically replace (or create) the file with ``data``."""
        with self._parent(path, create=True) as parent:
            assert parent is not None
            folder, name = parent
            exists = self._refuse_non_regular(folder, name, path)
            mode = _FILE_MODE
            if exists:
                mode = stat.S_IMODE(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
            temp = f"{TEMP_PREFIX}{secrets.token_hex(6)}"
            fd = os.open(
                temp,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                mode,
                dir_fd=folder,
            )
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            except BaseException:
                with suppress(FileNotFoundError):
                    os.unlink(temp, dir_fd=folder)
                raise
            os.fsync(folder)

    def delete(self, path: str) -> None:
        """Remove the file; a missing file is fine. Empty folders stay (git ignores them)."""
        with self._parent(path, create=False) as parent:
            if parent is None:
                return
            folder, name = parent
            if not self._refuse_non_regular(folder, name, path):
                return
            os.unlink(name, dir_fd=folder)
            os.fsync(folder)

    def list_files(self, folder: str) -> list[str]:
        """Names of the regular, non-temporary files directly inside ``folder``."""
        try:
            with self._parent(f"{folder}/x", create=False) as parent:
                if parent is None:
                    return []
                fd = parent[0]
                names = []
                for entry in os.scandir(fd):
                    if entry.is_file(follow_symlinks=False) and not is_temporary(entry.name):
                        names.append(entry.name)
                return sorted(names)
        except FileNotFoundError:
            return []
        except PathRefused:
            # A folder on the way is a symlink (a pulled commit can make one):
            # never entered, so nothing is in it; check and status name the link.
            return []

    def walk(self) -> list[str]:
        """Every non-folder entry of the work tree (symlinks included, so callers can
        refuse them by name), outside ``.git`` and without temporary files."""
        found = []
        for folder, dirs, names in os.walk(self.root):
            rel = os.path.relpath(folder, self.root)
            prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
            # A symlink to a folder is listed (os.walk does not enter it), never entered.
            links = {d for d in dirs if (Path(folder) / d).is_symlink()}
            dirs[:] = sorted(d for d in dirs if d != ".git" and d not in links)
            found += [prefix + n for n in sorted([*names, *links]) if not is_temporary(n)]
        return found

    def symlink_target(self, path: str) -> str | None:
        """Where the symlink at ``path`` points (as written), None when it is no symlink."""
        try:
            return str((self.root / path).readlink())
        except OSError:
            return None


def _identity(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _open_at(folder: int, name: str, path: str, flags: int) -> int | None:
    """``name`` in ``folder`` opened with ``flags`` (which hold ``O_NOFOLLOW``);
    None when it does not exist; a symlink is refused."""
    try:
        return os.open(name, flags, dir_fd=folder)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathRefused(f"{path!r} is a symlink; hearth does not follow symlinks") from exc
        raise


def _read_listed(folder: int, name: str, path: str, limit: int | None = None) -> bytes | None:
    """The bytes of regular file ``name`` in ``folder``, None when it does not exist:
    opened first, then checked (one ``fstat``; ``limit``: its size at most), then
    read to its end."""
    fd = _open_at(folder, name, path, _LISTED_READ_FLAGS)
    if fd is None:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise PathRefused(f"{path!r} is not a regular file")
        if limit is not None and st.st_size > limit:
            raise PathRefused(f"{path!r} is larger than {limit} bytes")
        # Read to the end (an empty read), whatever the size said: a file may
        # grow meanwhile, and a read may return less than was asked.
        data = os.read(fd, st.st_size + 1)
        more = os.read(fd, 65536) if data else b""
        if not more:
            return data
        chunks = [data, more]
        while chunks[-1]:
            chunks.append(os.read(fd, 65536))
        return b"".join(chunks)
    finally:
        os.close(fd)


def _open_folder(name: str, parent_fd: int, where: str, *, create: bool = False) -> int | None:
    """A descriptor of folder ``name`` inside ``parent_fd``, None when it does not exist.

    A symlink (or anything but a folder or a regular file) where a folder should be
    is refused, never followed; a regular file there is as if nothing were there
    for a read (None), and a conflict for a write (``create``).
    """
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ENOTDIR and _is_plain_file(name, parent_fd):
            # Not a refusal of the path: the home holds a file where it has a folder.
            # Nothing lies under it (a read finds nothing); a write conflicts with it.
            if not create:
                return None
            raise Conflict(
                f"{where!r} is a file, not a folder: nothing can be written under it"
            ) from exc
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise PathRefused(
                f"{where!r} is a symlink or not a folder; "
                "hearth does not follow symlinks inside the home"
            ) from exc
        raise


def _is_plain_file(name: str, parent_fd: int) -> bool:
    try:
        st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode)
