"""Unified diffs of a file's text between two versions (either may be absent)."""

from __future__ import annotations

import difflib


def unified(path: str, old: str | None, new: str | None) -> str:
    """``git diff``-like text; an absent side is ``/dev/null``."""
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        (new or "").splitlines(keepends=True),
        fromfile=f"a/{path}" if old is not None else "/dev/null",
        tofile=f"b/{path}" if new is not None else "/dev/null",
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
