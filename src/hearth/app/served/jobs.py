"""The scheduled jobs of a served home (reconcile, rollup, watcher check, sync,
reflection) and the record of how each went, which status and ACTIVE.md's
Needs attention show. The served process's life cycle
(``app/served/lifecycle.py``) hands them to APScheduler; every run goes
through ``run``, the jobs' one boundary. ``RuntimeNotices`` turns their failures
(and a write still waiting for git's index lock) into Needs attention lines."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

from hearth.app.reflection import Reflector
from hearth.app.status.snapshot import StatusBoard
from hearth.app.sync.branch import Syncer
from hearth.app.writes.home import HomeWrites
from hearth.domain.clock import Clock
from hearth.errors import HearthError, NotFound
from hearth.reconcile.watcher import Watcher
from hearth.reconcile.worker import ReconcileWorker

#: Seconds the reconcile job waits for its pass.
RECONCILE_JOB_SECONDS = 600


@dataclass
class JobState:
    name: str
    runs: int = 0
    failures: int = 0
    last_run: str | None = None
    last_error: str | None = None

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


class ScheduledJobs:
    """What the scheduler runs, given the served home's parts; ``states`` is
    shared with the runtime notices (a failed job is a line in ACTIVE.md)."""

    def __init__(
        self,
        states: dict[str, JobState],
        *,
        home: HomeWrites,
        worker: ReconcileWorker,
        watcher: Watcher,
        board: StatusBoard,
        reflector: Reflector,
        syncer: Syncer,
        owned: Callable[[], AbstractContextManager[object]],
        reconcile: Callable[[], object],
        clock: Clock,
    ) -> None:
        self.states = states
        #: Whether the scheduler runs them (``scheduled``).
        self.running = False
        self._home = home
        self._worker = worker
        self._watcher = watcher
        self._board = board
        self._reflector = reflector
        self._syncer = syncer
        self._owned = owned
        self._reconcile = reconcile
        self._clock = clock

    def scheduled(self, running: bool) -> None:
        """The scheduler started (or stopped) running them."""
        self.running = running

    def run(self, name: str, job: Callable[[], object]) -> None:
        """Run a scheduled job, recording its outcome for status and ACTIVE.md."""
        state = self.states.setdefault(name, JobState(name))
        state.runs += 1
        state.last_run = self._clock().astimezone(dt.UTC).isoformat(timespec="seconds")
        try:
            job()
        except Exception as exc:  # the job's boundary: whatever failed is recorded, not lost
            state.failures += 1
            state.last_error = getattr(exc, "message", None) or str(exc)
            self._worker.request([])  # refresh ACTIVE.md's Needs attention
            return
        if state.last_error is not None:
            state.last_error = None
            self._worker.request([])

    def reconcile(self) -> None:
        ticket = self._worker.request(None)
        self._worker.wait(ticket, timeout=RECONCILE_JOB_SECONDS)
        if self._worker.state.last_error:
            raise HearthError(self._worker.state.last_error)

    def rollup(self) -> None:
        try:
            with self._owned():
                self._home.rollup(None, "scheduler")
        except NotFound:
            return  # no notes last week: nothing to digest

    def watcher(self) -> None:
        if self._watcher.ensure_running():
            why = self._watcher.last_error or "it stopped delivering events"
            raise HearthError(f"the file watcher had stopped and was re-armed ({why})")

    def reflection(self) -> None:
        """Run the reflection command; a failed run raises, so the job records it.
        A command this machine has not approved never runs (hearth.toml comes by
        sync): status and ACTIVE.md say it waits, and the job does nothing."""
        if not self._reflector.log.approved():
            return
        with self._owned():
            run = self._reflector.run()
        self._board.request()  # the reflection state is in the snapshot
        if run.error is not None:
            raise HearthError(run.error)

    def sync(self) -> None:
        """Sync with the upstream, when the branch has one, then a pass over what
        came in (as ``Hearth.sync``); the status snapshot is taken again after."""
        if self._syncer.upstream() is None:
            return
        try:
            with self._owned():
                self._syncer.sync()
                self._reconcile()
        finally:
            self._board.request()

    def as_dict(self) -> dict[str, object]:
        return {"running": self.running, "jobs": [s.as_dict() for s in self.states.values()]}


@dataclass
class RuntimeNotices:
    """What a served home has to say in ACTIVE.md's Needs attention beyond the
    files: failed scheduled jobs and an interrupted write still waiting for git's
    index lock. The reconciler reads it as one of its attention sources."""

    index_lock: Callable[[], dict[str, object] | None]
    jobs: dict[str, JobState] = field(default_factory=dict)
    #: Why a killed hearth's write could not be finished yet, while it waits.
    recovery_error: str | None = None
    #: More to say (a runtime's write that could not be committed).
    sources: list[Callable[[], list[str]]] = field(default_factory=list)

    def attention(self) -> list[str]:
        notes = []
        if self.recovery_error is not None:
            held = self.index_lock()
            who = f"{held['holder']} since {held['since']}" if held else "someone"
            notes.append(
                f"git's index lock (.git/index.lock) is held by {who}; hearth finishes an "
                "interrupted write and takes writes again as soon as it is released (if no "
                "git command is running, remove the stale lock)"
            )
        notes += [
            f"scheduled job {s.name} failed at {s.last_run}: {s.last_error}"
            for s in self.jobs.values()
            if s.last_error
        ]
        for source in self.sources:
            notes += source()
        return notes
