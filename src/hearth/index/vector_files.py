"""The vector store's files on disk (``vectors.py``): a store made empty, a
store built aside and swapped in, and a torn tail cut.

A store is a folder of files (its meta, keys and rows); it is replaced
whole, never rewritten in place: a new one is built beside it and renamed
into its place, and the old one removed, so a reader that holds the old
rows file open keeps reading the rows its codes were made from.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import mmap
import os
import secrets
import shutil
import threading
from pathlib import Path

import numpy as np
import numpy.typing as npt

from hearth.index.ondisk import KEY_BYTES, KEYS_NAME

META = "meta.json"
ROWS = "rows"
LOCK = "append.lock"


def swap_in(new: Path, folder: Path) -> None:
    """``new`` renamed to ``folder``, whatever was there removed."""
    old = folder.with_name(f"{folder.name}.old-{secrets.token_hex(4)}")
    with contextlib.suppress(FileNotFoundError):
        folder.rename(old)
    new.rename(folder)
    shutil.rmtree(old, ignore_errors=True)


def fresh_folder(folder: Path, meta: dict[str, object]) -> None:
    """An empty store described by ``meta``, built aside and swapped in at ``folder``."""
    new = folder.with_name(f"{folder.name}.new-{secrets.token_hex(4)}")
    new.mkdir(parents=True)
    (new / KEYS_NAME).write_bytes(b"")
    (new / ROWS).write_bytes(b"")
    (new / META).write_text(json.dumps(meta))
    swap_in(new, folder)


def cut_torn_tail(folder: Path, dims: int) -> None:
    """Make both files hold the same whole number of rows, so appends stay aligned."""
    with (folder / LOCK).open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            cut_held(folder, dims)
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def cut_held(folder: Path, dims: int) -> None:
    """``cut_torn_tail`` by a caller holding the append lock already. In place:
    a reader's map of the rows file must not reach past the rows with keys."""
    try:
        keys, rows = folder / KEYS_NAME, folder / ROWS
        whole = min(keys.stat().st_size // KEY_BYTES, rows.stat().st_size // (dims * 4))
        for path, width in ((keys, KEY_BYTES), (rows, dims * 4)):
            if path.stat().st_size != whole * width:
                os.truncate(path, whole * width)
    except FileNotFoundError:
        pass


class RowsMap:
    """A read-only map of a store's rows file as ``[rows, dims]`` float32, made
    again when a reader needs rows past it (appends since): a map is never
    changed, so a reader holding the last one reads on while another replaces
    it. Its pages are the file's, which the kernel may drop and read again:
    not the process's private memory (docs/performance.md, "Exact rows
    through a kept map")."""

    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.view: npt.NDArray[np.float32] = np.empty((0, dims), dtype=np.float32)
        self._lock = threading.Lock()

    def rows(self, fd: int, need: int, taken: int, name: Path) -> npt.NDArray[np.float32]:
        """At least ``need`` rows of the file open as ``fd``, of which the store
        took ``taken`` (their keys were written)."""
        view = self.view
        if len(view) >= need:
            return view
        with self._lock:
            view = self.view
            if len(view) < need:
                whole = os.fstat(fd).st_size // (self.dims * 4)
                # Only rows the store took: a torn tail's cut (in place, by any
                # process opening the store) may shorten the file to those, and
                # a map's page past its file's end kills its reader (SIGBUS).
                whole = min(whole, max(need, taken))
                if whole < need:
                    raise OSError(f"{name}: shorter than it was")
                mapped = mmap.mmap(fd, whole * self.dims * 4, prot=mmap.PROT_READ)
                view = np.frombuffer(mapped, dtype=np.float32).reshape(whole, self.dims)
                self.view = view
        return view
