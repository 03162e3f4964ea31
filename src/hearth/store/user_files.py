"""A person's own configuration files outside the home (``~/.claude.json``,
``~/.codex/config.toml``...): read whole, replaced whole.

A runtime may read its file at any moment, so a write goes to a temp file in
the same folder, keeps the old file's permissions (``~/.claude.json`` holds
credentials and is private), is fsynced and renamed over the target: the
runtime sees the old bytes or the new, never half.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def read(path: Path) -> str | None:
    """The file's text, or None when there is none."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o600
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        Path(temp).chmod(mode)
        Path(temp).replace(path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def remove(path: Path) -> None:
    path.unlink(missing_ok=True)
