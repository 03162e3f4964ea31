"""Which listed files git ignores, asked of libgit2 as rarely as possible.

Asking ``path_is_ignored`` for every file on every pass would cost more than
the rest of a no-change pass, so answers are cached per *signature* of the
ignore rules: the ``.gitignore`` files the scan saw (path, size, mtime) plus
``.git/info/exclude``. A pass asks only about files it has not indexed yet;
when the signature moves, it asks about every file again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # libgit2's binding is imported when a question is asked: a status read without
    # it (app/status/lean.py) computes the signature alone.
    from hearth.store.repository import Repository


def rules_signature(ignore_files: Iterable[tuple[str, int, int]], git_dir: Path) -> str:
    """The signature of the rules: ``.gitignore`` files (path, size, mtime) and
    ``info/exclude`` of ``git_dir``."""
    parts = sorted(f"{path}:{size}:{mtime}" for path, size, mtime in ignore_files)
    try:
        st = (git_dir / "info" / "exclude").stat()
        parts.append(f"info/exclude:{st.st_size}:{st.st_mtime_ns}")
    except OSError:
        pass
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=12).hexdigest()


class IgnoreRules:
    def __init__(self, repo: Repository, git_dir: Path) -> None:
        self._repo = repo
        self._git_dir = git_dir
        self._answers: dict[str, bool] = {}
        self._signature: str | None = None

    def signature(self, ignore_files: Iterable[tuple[str, int, int]]) -> str:
        return rules_signature(ignore_files, self._git_dir)

    def ignored(self, paths: Iterable[str], signature: str) -> set[str]:
        """Those of ``paths`` that git ignores under the rules of ``signature``."""
        from hearth.store.repository import is_ignored  # noqa: PLC0415  (see the imports)

        if signature != self._signature:
            self._answers.clear()
            self._signature = signature
        found = set()
        for path in paths:
            answer = self._answers.get(path)
            if answer is None:
                answer = is_ignored(self._repo, path)
                self._answers[path] = answer
            if answer:
                found.add(path)
        return found
