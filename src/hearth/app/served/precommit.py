"""The pre-commit hook's check, answered by a running server (``POST /v1/hooks/pre-commit``).

The hook sends git's listing of what is staged (:mod:`hearth.hooks.staged`);
the blobs are read by id from the repository (``git add`` wrote them there),
so nothing here depends on the work tree or on which index file git staged
into. No lock: objects are addressed by content.
"""

from __future__ import annotations

import threading
from pathlib import Path

from hearth.domain import layout
from hearth.errors import Conflict, ValidationFailed
from hearth.hooks.staged import GITLINK, StagedFiles, parse_listing, staged_failures
from hearth.store.objects import GitObjects


class StagedChecker:
    """The served home's pre-commit check, with one handle on the repository's
    objects, opened on the first check and shared by the request threads."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._objects: GitObjects | None = None
        self._lock = threading.Lock()

    def check(self, listing: bytes) -> int:
        """How many added or changed files the rules read; raises ``ValidationFailed``
        (or ``InvalidInput`` for a listing that is not one)."""
        staged = parse_listing(listing)
        stale = StagedFiles(self._root).stale_copies(staged)
        if stale:
            # The hook's own path repairs the index git staged into (which only
            # the hook knows: GIT_INDEX_FILE); any answer but 200 sends it there.
            raise Conflict(
                "the index holds an older copy of a file than hearth's commit "
                f"({', '.join(s.path for s in stale)}): the hook puts HEAD's back"
            )
        with self._lock:
            if self._objects is None:
                self._objects = GitObjects(self._root)
            objects = self._objects
        failures = staged_failures(
            staged, objects.blob, lambda: objects.head_file(layout.SETTINGS_PATH)
        )
        if failures:
            raise ValidationFailed(failures)
        return sum(1 for s in staged if not s.deleted and s.mode != GITLINK)
