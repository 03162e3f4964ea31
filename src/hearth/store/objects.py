"""Read-only access to a repository's objects by id, shared between threads.

The server's pre-commit check reads the blobs a person staged (``git add``
wrote them into the object database already) and HEAD's copy of one file.
Objects are addressed by content, so nothing here can be stale.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pygit2


class GitObjects:
    def __init__(self, root: Path) -> None:
        self._repo = pygit2.Repository(str(root))
        self._lock = threading.Lock()  # one pygit2 call at a time on this handle

    def blob(self, oid: str) -> bytes | None:
        """The blob ``oid`` (hex), or None when the object is missing or not a blob."""
        with self._lock:
            try:
                found = self._repo.get(oid)
            except (ValueError, pygit2.GitError):
                return None
            return found.data if isinstance(found, pygit2.Blob) else None

    def head_file(self, path: str) -> bytes | None:
        """``path`` as HEAD holds it; None without a commit or without that file."""
        with self._lock:
            try:
                if self._repo.head_is_unborn:
                    return None
                tree = self._repo.head.peel(pygit2.Commit).tree
                entry = tree[path]
            except (KeyError, pygit2.GitError):
                return None
            found = self._repo.get(entry.id)
            return found.data if isinstance(found, pygit2.Blob) else None
