"""One home served by one long-running process (``hearth serve``).

The API's request threads, the reconcile worker, the watcher and the
scheduler's jobs all reach the git repository and the index writer through
this object, and every operation that touches either holds ``owner``: one
re-entrant lock, so pygit2's repository object and Tantivy's single writer
only ever have one user at a time. Searches are the exception: they read
the current Tantivy searcher, which is safe to share, and never wait for a
pass or a write. What it starts and stops, and in which order, is
``lifecycle.py``'s; ``wiring.open_service`` builds every part it holds.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
from collections.abc import Callable, Iterable

from hearth.app.reflection import ReflectionRun, Reflector
from hearth.app.results import ActiveView, HomeStatus, ServedStatus
from hearth.app.served.jobs import RuntimeNotices, ScheduledJobs
from hearth.app.served.lifecycle import ServedLife
from hearth.app.served.precommit import StagedChecker
from hearth.app.served.runtime_writes import RuntimeWriteCommits
from hearth.app.status.progress import PassProgress
from hearth.app.status.snapshot import StatusBoard
from hearth.app.sync.branch import Syncer, SyncResult
from hearth.app.usecases import Hearth
from hearth.app.writes.home import HomeWrites
from hearth.index.semantic import Progress, VectorFiller
from hearth.reconcile import freshness
from hearth.reconcile.prepare import EarlyWorkers
from hearth.reconcile.reconciler import HEAD_MOVED, Reconciler
from hearth.reconcile.reports import PassReport
from hearth.reconcile.watcher import Watcher
from hearth.reconcile.worker import ReconcileWorker
from hearth.store import server_file
from hearth.store.tokens import TokenInfo, TokenStore


class OwnedPasses:
    """What the worker runs: reconcile passes taken under the owner lock, each
    tracked in ``passes`` while it runs (status shows how far it got)."""

    def __init__(
        self, reconciler: Reconciler, owner: threading.RLock, passes: PassProgress | None = None
    ) -> None:
        self._reconciler = reconciler
        self._owner = owner
        self._passes = passes or PassProgress()

    def reconcile(self, paths: Iterable[str] | None = None) -> PassReport:
        with self._owner, self._passes.running(full=paths is None) as progress:
            return self._reconciler.reconcile(paths, progress=progress)


class ChangeHints:
    """What the watcher tells of: a pass for the index, and a settle for
    runtimes' writes."""

    def __init__(
        self, worker: ReconcileWorker, runtime_writes: tuple[RuntimeWriteCommits, ...]
    ) -> None:
        self._worker = worker
        self._runtime_writes = runtime_writes

    def __call__(self, paths: set[str] | None) -> None:
        self._worker.request(paths)
        moved = paths is None or HEAD_MOVED in paths
        for writes in self._runtime_writes:
            writes.hint(None if moved else paths)


class ServedHearth(Hearth, ServedLife):
    """A served home: the use cases (``Hearth``) plus the reconcile worker, the
    watcher, the scheduled jobs and start-up recovery, all built by ``wiring``;
    started and stopped as ``ServedLife`` (``lifecycle.py``) says."""

    search_reopens = False

    def __init__(
        self,
        writes: HomeWrites,
        reconciler: Reconciler,
        syncer: Syncer,
        reflector: Reflector,
        owner: threading.RLock,
        *,
        tokens: TokenStore,
        worker: ReconcileWorker,
        notices: RuntimeNotices,
        filler: VectorFiller | None,
        board: StatusBoard,
        passes: PassProgress,
        runtime_writes: tuple[RuntimeWriteCommits, ...],
        watcher: Watcher,
        jobs: ScheduledJobs,
        staged: StagedChecker,
        local_socket: str | None = None,
        started_as: str = "serve",
    ) -> None:
        super().__init__(writes, reconciler, syncer, reflector, owner)
        self.tokens = tokens
        self.worker = worker
        self.notices = notices
        #: The status snapshot, taken after every pass (see app/status/snapshot.py).
        self.board = board
        #: The reconcile pass running now, if any (the worker's and ``reconcile``'s).
        self.passes = passes
        #: Fills semantic vectors in the background (None when semantic ranking is off).
        self.filler = filler
        #: Committing what runtimes' agents write themselves (``[runtimes.*]``).
        self.runtime_writes = runtime_writes
        #: The file watcher, telling the worker and runtimes' committers (``ChangeHints``).
        self.watcher = watcher
        #: The scheduled jobs (``lifecycle.schedule`` schedules them), their states
        #: shared with the notices.
        self.jobs = jobs
        self._staged = staged
        #: What the pre-commit hook sends to ``/v1/hooks/pre-commit``; new each run,
        #: published in server.json (readable only by the home's owner).
        self.hook_key = server_file.new_hook_key()
        #: The home's local socket when the server listens there, and how the
        #: server was started: ``serve`` or ``on-demand``.
        self.local_socket = local_socket
        self.started_as = started_as
        self._life_begins()

    def _freshen(self) -> None:
        """The worker and watcher keep the index fresh; a read waits only for the
        passes already asked for (each write asks for ACTIVE.md after it)."""
        self.settle_active()

    def caller(self, token: str) -> TokenInfo | None:
        """Who ``token`` is: an API token's holder, or a thin client's session
        (a local token made with this run's hook key); None for neither."""
        if token.startswith(server_file.LOCAL_TOKEN_PREFIX):
            local = server_file.parse_local_token(token, self.hook_key)
            if local is None:
                return None
            scope, actor = local
            return TokenInfo(actor, scope, "", local=True)  # type: ignore[arg-type]
        return self.tokens.check(token)

    # -- reading -----------------------------------------------------------------

    def index_freshness(self) -> tuple[bool, str | None]:
        """Whether search sees the files as they are, and if not why, without a scan.

        Cheap enough for every search (status' ``index.fresh`` compares every
        file's signature): fresh when the watcher runs, no reconcile pass is
        pending or running, and the last one succeeded. Writes through hearth
        are indexed before they return, so they are found either way.
        """
        if self.worker.state.last_error:
            return False, f"the last reconcile pass failed: {self.worker.state.last_error}"
        if not self.worker.running or not self.watcher.healthy():
            return (
                False,
                "the file watcher is not running, so edits made outside hearth may be missing",
            )
        if not self.worker.idle():
            return (
                False,
                "a reconcile pass is pending or running: edits of the last moment may be missing",
            )
        return True, None

    def active(self) -> ActiveView:
        """As ``Hearth.active``, with the served notion of a fresh index
        (``index_freshness``) instead of comparing every file with the manifest."""
        from hearth.app.reads import queries  # noqa: PLC0415  (as Hearth.active)

        self._freshen()
        fresh, _why = self.index_freshness()
        with self.owner:
            state = freshness.active_state(self.reconciler)
            return queries.active_view_of(self.writes.parts, state, fresh)

    def status(self) -> ServedStatus:
        """The snapshot (``snapshot.as_of``) with what must be live added; it is
        ``current`` while no pass is due or running and the watcher runs."""
        home, snapshot = self.board.view(self.worker.idle() and self.watcher.healthy())
        home = self._as_search_sees_it(home, snapshot.current)
        if home.index is not None and home.index.vectors is not None:
            # Live, not the snapshot's: vectors fill in the background after the
            # pass that asked for the snapshot, and no pass follows to renew it.
            live = self.reconciler.index.vector_coverage()
            if live is not None:
                home = dataclasses.replace(
                    home, index=dataclasses.replace(home.index, vectors=live)
                )
        worker = self.worker.state
        return ServedStatus(
            home=home,
            snapshot=snapshot,
            watcher=self.watcher.as_dict(),
            worker={
                "passes": worker.passes,
                "idle": self.worker.idle(),
                "last_error": worker.last_error,
            },
            vector_filler=(
                {"last_error": self.filler.last_error, "filling": self.filler.filling()}
                if self.filler is not None
                else None
            ),
            running_pass=self.passes.view(),
            runtime_writes=[w.as_dict() for w in self.runtime_writes],
            scheduler=self.jobs.as_dict(),
            started=self.started,
            locks={
                "index_lock": self.writes.store.index_lock(),
                "recovery_pending": self.recovery_error is not None,
                "recovery_error": self.recovery_error,
            },
        )

    def _as_search_sees_it(self, home: HomeStatus, current: bool) -> HomeStatus:
        """The snapshot's index freshness made to agree with a search's
        (``index_freshness``), and never stale without a reason: stale when a
        search would say so (its reason first), else as the snapshot compared
        the files when it covers every pass; a snapshot older than the last
        pass (a write's, a save's) compared files that pass has indexed since,
        so it says nothing a search would not."""
        index = home.index
        if index is None:
            return home
        fresh, why = self.index_freshness()
        if not fresh:
            earlier = index.stale_reasons if current else ()
            index = dataclasses.replace(
                index, fresh=False, stale_reasons=(why, *earlier) if why else earlier
            )
        elif not current:
            index = dataclasses.replace(index, fresh=True, stale_reasons=())
        return dataclasses.replace(home, index=index)

    # -- what changes the status snapshot asks for a new one ----------------------

    def reconcile(
        self, full: bool = False, reading: Progress | None = None, early: EarlyWorkers | None = None
    ) -> PassReport:
        try:
            with self.owned(), self.passes.running(full=True, rebuild=full) as tracked:
                return super().reconcile(full, _both(tracked, reading), early)
        finally:
            self.board.request()

    def sync(
        self, step: Callable[[str], None] | None = None, reading: Progress | None = None
    ) -> SyncResult:
        try:
            return super().sync(step, reading)
        finally:
            self.board.request()

    def reflect(self) -> ReflectionRun:
        try:
            return super().reflect()
        finally:
            self.board.request()

    def check_staged(self, listing: bytes) -> int:
        """The pre-commit hook's check of what a commit is about to hold (git's
        listing of the staged files): how many files the rules read, or
        ``ValidationFailed``. Reads blobs only, so it takes no lock."""
        return self._staged.check(listing)

    def settle_active(self, timeout: float = 5.0) -> None:
        """Wait for the passes already asked for (each write asks the worker to render
        ACTIVE.md after it), so a read right after a write sees it. Asks for nothing."""
        if self.worker.running:
            self.worker.wait_idle(timeout)

    def _now(self) -> str:
        return self.writes.clock().astimezone(dt.UTC).isoformat(timespec="seconds")


def _both(first: Progress, second: Progress | None) -> Progress:
    if second is None:
        return first

    def both(done: int, total: int) -> None:
        first(done, total)
        second(done, total)

    return both
