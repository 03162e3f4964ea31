"""Start and stop of a served process, in one place, in order.

A served home (``ServedHearth``, built whole by ``wiring.open_service``) is
started and stopped here, whatever runs it:

- ``hearth serve`` (and a server a client starts on demand): the ASGI
  lifespan (``api/app.py``) enters ``serving``, which starts the service
  beside serving (requests get 503 with the start-up pass's progress until it
  is done, ``api/starting.py``), then APScheduler with the home's
  ``[schedule]`` jobs (``schedule``), then publishes the address in
  server.json and says it is ready; leaving it undoes those in the reverse
  order. The server lock and sockets around it are ``cli/serving.py``'s.
- ``hearth watch``: ``watch`` starts the service, checks the watcher and the
  home until told to stop, then stops it.
- tests and benchmarks: ``start`` and ``stop`` themselves.

``start``: the watcher, a killed write's recovery, the start-up pass
(rebuilding the index if needed), the status board, the worker, runtimes'
committers, background recovery when git's index lock is held, the vector
filler. ``stop``: the same in the reverse order, then the index closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio.to_thread

from hearth.errors import HearthError, Interrupted
from hearth.index.semantic import Progress
from hearth.store import server_file

if TYPE_CHECKING:
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    from hearth.app.served.jobs import RuntimeNotices, ScheduledJobs
    from hearth.app.served.runtime_writes import RuntimeWriteCommits
    from hearth.app.status.progress import PassProgress
    from hearth.app.status.snapshot import StatusBoard
    from hearth.app.writes.home import HomeWrites
    from hearth.index.semantic import VectorFiller
    from hearth.reconcile.reconciler import Reconciler
    from hearth.reconcile.reports import PassReport
    from hearth.reconcile.watcher import Watcher
    from hearth.reconcile.worker import ReconcileWorker

#: Seconds a start-up (or background) attempt waits for git's index lock.
RECOVERY_TRY_SECONDS = 0.5
#: Seconds between background attempts while the lock stays held.
RECOVERY_RETRY_SECONDS = 1.0
#: Seconds start-up waits for the watcher's watches before its first pass (a
#: watcher that fails or takes longer is re-armed by the scheduler's check,
#: which asks for a full pass).
WATCHER_ARM_SECONDS = 10.0
#: Seconds between watcher health checks in ``hearth watch``.
HEALTH_CHECK_SECONDS = 2.0


class ServedLife:
    """The start and stop of a served home: ``ServedHearth``'s life cycle, kept
    here so that everything a served process starts and stops reads in one
    module. The attributes are ``ServedHearth``'s, set by its constructor."""

    writes: HomeWrites
    reconciler: Reconciler
    watcher: Watcher
    worker: ReconcileWorker
    board: StatusBoard
    filler: VectorFiller | None
    runtime_writes: tuple[RuntimeWriteCommits, ...]
    notices: RuntimeNotices
    passes: PassProgress
    jobs: ScheduledJobs
    hook_key: str
    local_socket: str | None
    started_as: str
    owned: Callable[[], contextlib.AbstractContextManager[None]]
    consolidate: Callable[[], object]
    _now: Callable[[], str]

    def _life_begins(self) -> None:
        #: When ``start`` ended (None before).
        self.started: str | None = None
        #: Set once ``start`` ended and the address is published: until then
        #: the API answers 503 with the start-up pass's progress (api/starting.py).
        self.ready = threading.Event()
        #: Why ``start`` failed, when it did (shown in those 503 answers).
        self.start_error: str | None = None
        self._recovery: threading.Thread | None = None
        self._stopping = threading.Event()

    @property
    def recovery_error(self) -> str | None:
        return self.notices.recovery_error

    # -- the service -----------------------------------------------------------

    def start(self) -> PassReport | None:
        """The watcher, the start-up pass (rebuilding the index if needed), then the worker.

        Serving never waits on a lock: when a killed hearth's write cannot be
        finished yet because git's index lock is held by a running process (a
        person's ``git commit`` with its editor open, say), the server starts
        anyway, says so in status and ACTIVE.md, and finishes the write in the
        background as soon as the lock is free; writes answer 409 busy until then.
        """
        report: PassReport | None = None
        # The watcher is armed before the start-up pass lists the files: a file
        # changed after the listing saw it (or before the watcher would have been
        # armed after the pass) is reported and gets a pass of its own, instead of
        # waiting for the scheduler's full pass while status calls the index fresh.
        self.watcher.start()
        self.watcher.wait_armed(WATCHER_ARM_SECONDS)
        with self.owned():
            self._try_recover(RECOVERY_TRY_SECONDS)
            with (
                contextlib.suppress(HearthError, OSError),
                self.passes.running(full=True) as tracked,
            ):
                # A failed start-up pass is the worker's to retry (on its backoff
                # table, visible in status as the worker's last error); so is
                # one cut short by ``interrupt_start``.
                report = self.reconciler.reconcile(progress=self._unless_stopping(tracked))
        if self._stopping.is_set():
            self.watcher.stop()
            return None  # ``stop`` follows: nothing more to start
        self.board.start()
        self.board.request()
        self.worker.start()
        for writes in self.runtime_writes:
            writes.start()
        if report is None:
            self.worker.request(None)
        if self.recovery_error is not None:
            self._recovery = threading.Thread(
                target=self._recover_in_background, name="hearth-recover", daemon=True
            )
            self._recovery.start()
        if self.filler is not None:
            self.filler.start()
        self.started = self._now()
        return report

    def interrupt_start(self) -> None:
        """Cut a running start-up pass short (the server is asked to stop while a
        long first build runs): it stops at its next file, leaving the index as
        it was (a rebuild's folder aside is removed by the next start)."""
        self._stopping.set()

    def _unless_stopping(self, progress: Progress) -> Progress:
        def reading(done: int, total: int) -> None:
            if self._stopping.is_set():
                raise Interrupted("the server is stopping")
            progress(done, total)

        return reading

    def _try_recover(self, timeout: float) -> bool:
        """Finish a killed hearth's write, if one is pending; False while it must wait."""
        try:
            self.writes.store.recover(timeout)
        except HearthError as exc:
            self.notices.recovery_error = exc.message
            return False
        self.notices.recovery_error = None
        return True

    def _recover_in_background(self) -> None:
        while not self._stopping.wait(RECOVERY_RETRY_SECONDS):
            with self.owned():
                done = self._try_recover(RECOVERY_TRY_SECONDS)
            if done:
                self.worker.request(None)  # a full pass, and ACTIVE.md loses the notice
                return

    def stop(self) -> None:
        self._stopping.set()
        if self._recovery is not None:
            self._recovery.join(RECOVERY_TRY_SECONDS + 1)
        self.watcher.stop()
        for writes in self.runtime_writes:
            writes.stop()
        if self.filler is not None:
            self.filler.stop()
        self.worker.stop()
        self.board.stop()
        self.forget_address()
        with self.owned():
            self.reconciler.close()

    def publish_address(self, url: str) -> None:
        """Tell hooks and the CLI where this home's server listens (and, when it
        listens on the home's socket, that too, and how it was started)."""
        server_file.publish(
            self.writes.store.state_dir,
            url,
            self.started,
            self.hook_key,
            uds=self.local_socket,
            mode=self.started_as,
        )

    def forget_address(self) -> None:
        server_file.forget(self.writes.store.state_dir)

    # -- a served process: the HTTP server's lifespan, ``hearth watch`` ---------

    @asynccontextmanager
    async def serving(self, url: str | None) -> AsyncIterator[None]:
        """The HTTP server's lifespan: serving starts at once; the start-up pass
        (a whole index build on a home never indexed) runs beside it, then the
        scheduler, then ``url`` is published for hooks and the CLI and the
        service says it is ready. Leaving: the reverse order."""
        scheduler: list[AsyncIOScheduler] = []
        starting = asyncio.create_task(self._start_serving(url, scheduler))
        try:
            yield
        finally:
            self.interrupt_start()
            with contextlib.suppress(Exception):
                await starting
            if scheduler:
                scheduler[0].shutdown(wait=False)
                self.jobs.scheduled(False)
            await anyio.to_thread.run_sync(self.stop)

    async def _start_serving(self, url: str | None, scheduler: list[AsyncIOScheduler]) -> None:
        try:
            await anyio.to_thread.run_sync(self.start)
        except Exception as exc:
            # Not a bad home (those are reported in status): a bug. Every answer
            # says so rather than "starting" forever, and so does the log.
            self.start_error = f"{type(exc).__name__}: {exc}"
            logging.getLogger("uvicorn.error").exception("hearth failed to start")
            raise
        scheduler.append(schedule(self.writes, self.jobs, self.consolidate))
        scheduler[0].start()
        self.jobs.scheduled(True)
        if url is not None:
            self.publish_address(url)
        self.ready.set()

    def watch(
        self,
        stop: threading.Event,
        tell: Callable[[str, bool], None],
        first_pass: Callable[[PassReport], None],
    ) -> None:
        """``hearth watch``: start (``first_pass`` told of the start-up pass), keep
        the watcher running until ``stop`` is set or the home is gone (``tell``
        says what happens, and whether it is trouble), then stop."""
        first = self.start()
        if first is not None:
            first_pass(first)
        tell(f"watching {self.writes.root} (Ctrl-C to stop)", False)
        try:
            while not stop.wait(HEALTH_CHECK_SECONDS):
                if self.reconciler.presence.gone():
                    tell("the home folder is gone; stopping", True)
                    break
                if self.watcher.ensure_running():
                    why = self.watcher.last_error or "it stopped delivering"
                    tell(f"watcher re-armed: {why}", False)
        finally:
            self.stop()


def schedule(
    home: HomeWrites, jobs: ScheduledJobs, consolidate: Callable[[], object]
) -> AsyncIOScheduler:
    """APScheduler 3's ``AsyncIOScheduler`` with the jobs of the home's
        ``[schedule]`` settings: a full reconcile pass, the weekly rollup of daily
        notes, the watcher's health check, sync with the git remote (when the
        branch has an upstream), the look for consolidations of the hot files
    (``consolidate``, app/consolidate.py), and reflection when it is on. Jobs coalesce and
        never run two instances at once; each runs on the event loop's thread pool
        and records its outcome (``jobs.run``), so a failing job shows in status
        and in ACTIVE.md."""
    # APScheduler: imported only by a served process.
    from apscheduler.schedulers.asyncio import AsyncIOScheduler  # noqa: PLC0415
    from apscheduler.triggers.cron import CronTrigger  # noqa: PLC0415
    from apscheduler.triggers.interval import IntervalTrigger  # noqa: PLC0415

    settings = home.settings.schedule
    scheduler = AsyncIOScheduler(
        timezone="UTC",
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 300},
    )
    planned: list[tuple[str, Any, Any]] = [
        ("reconcile", jobs.reconcile, IntervalTrigger(minutes=settings.reconcile_minutes)),
        (
            "rollup",
            jobs.rollup,
            CronTrigger(day_of_week=settings.rollup_day, hour=settings.rollup_hour, minute=0),
        ),
        ("watcher", jobs.watcher, IntervalTrigger(seconds=settings.watcher_check_seconds)),
        ("sync", jobs.sync, IntervalTrigger(minutes=settings.sync_minutes)),
        (
            "consolidate",
            consolidate,
            IntervalTrigger(minutes=home.settings.consolidation.every_minutes),
        ),
    ]
    reflection = home.settings.reflection
    if reflection.enabled:
        planned.append(
            ("reflection", jobs.reflection, IntervalTrigger(seconds=reflection.every_seconds))
        )
    for name, job, trigger in planned:
        scheduler.add_job(jobs.run, trigger, args=(name, job), id=name, name=name)
    return scheduler
