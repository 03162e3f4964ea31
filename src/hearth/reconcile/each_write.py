"""A write's way to the index: each commit's files indexed before it answers.

The write class (``app/writes/home.py``) is handed an ``AfterWrite``
(``app/writes/plumbing.py``) and tells it of each commit; this is the one the
composition root hands it. Unserved (a CLI command), ``written`` runs a
targeted pass over the commit's paths, ACTIVE.md included. Served (a
reconcile worker given), the files are indexed from their planned bytes
while git commits them (``ahead.py``): the store calls ``planned`` as soon as
it has a plan, then exactly one of ``written`` or ``abandoned``; ACTIVE.md
is left to the worker's next pass, so the write answers as soon as it is
committed and searchable.
"""

from __future__ import annotations

import contextlib

from hearth.errors import HearthError
from hearth.reconcile.ahead import IndexAhead
from hearth.reconcile.reconciler import Reconciler
from hearth.reconcile.worker import ReconcileWorker
from hearth.store.git import Planned


class IndexEachWrite:
    """After each commit: index its paths before the write returns (read-your-writes).

    ACTIVE.md is rendered in the same call, or, given the served home's worker,
    by the worker's next pass, so an API write returns as soon as it is
    committed and indexed. A served home indexes a write's files while git
    commits them (``reconcile/ahead.py``), not after.
    """

    def __init__(self, reconciler: Reconciler, worker: ReconcileWorker | None = None) -> None:
        self._reconciler = reconciler
        self._worker = worker
        self._ahead = IndexAhead(reconciler) if worker is not None else None

    def planned(self, files: Planned) -> None:
        if self._ahead is not None:
            self._ahead.begin(files)

    def written(self, paths: tuple[str, ...], commit: str | None = None) -> None:
        # The commit stands whatever happens here: status shows the index as
        # stale (those files' signatures differ) until the next pass repairs it.
        ahead = self._ahead
        indexed = False
        if ahead is not None:
            with contextlib.suppress(HearthError, OSError):
                indexed = ahead.landed(paths, commit)
        if not indexed:
            # The paths of a plan made before the branch moved, too.
            pending = (*paths, *sorted(ahead.pending - set(paths))) if ahead else paths
            with contextlib.suppress(HearthError, OSError):
                self._reconciler.reconcile_paths(
                    pending, refresh_active=self._worker is None, commit=commit
                )
        if ahead is not None:
            ahead.reset()
        if self._worker is not None:
            self._worker.request([])

    def abandoned(self) -> None:
        ahead = self._ahead
        if ahead is None:
            return
        ahead.abandoned()
        # The index may hold what was planned: a pass over those paths reads
        # the files as they are (the store put them back), before the write's
        # error is answered.
        with contextlib.suppress(HearthError, OSError):
            if ahead.pending:
                self._reconciler.reconcile_paths(sorted(ahead.pending), refresh_active=False)
                if self._worker is not None:
                    self._worker.request([])
        ahead.reset()
