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
from hearth.errors import ValidationFailed
from hearth.hooks.staged import GITLINK, parse_listing, staged_failures
from hearth.store.objects import GitObjects

#: One handle on each served repository's objects, opened on its first check.
_objects: dict[Path, GitObjects] = {}
_objects_lock = threading.Lock()


def check_staged(root: Path, listing: bytes) -> int:
    """How many added or changed files the rules read; raises ``ValidationFailed``
    (or ``InvalidInput`` for a listing that is not one)."""
    staged = parse_listing(listing)
    with _objects_lock:
        objects = _objects.get(root)
        if objects is None:
            objects = _objects[root] = GitObjects(root)
    failures = staged_failures(
        staged, objects.blob, lambda: objects.head_file(layout.SETTINGS_PATH)
    )
    if failures:
        raise ValidationFailed(failures)
    return sum(1 for s in staged if not s.deleted and s.mode != GITLINK)
