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
import os
import secrets
import shutil
from pathlib import Path

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
