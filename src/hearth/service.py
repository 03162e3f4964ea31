"""One home served by one long-running process (``hearth serve``).

The API's request threads, the reconcile worker, the watcher and the
scheduler's jobs all reach the git repository and the index writer through
this object, and every operation that touches either holds ``owner``: one
re-entrant lock, so pygit2's repository object and Tantivy's single writer
only ever have one user at a time. Searches are the exception: they read
the current Tantivy searcher, which is safe to share, and never wait for a
pass or a write.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from hearth import queries
from hearth.domain import context, layout
from hearth.domain.text import decode_text
from hearth.errors import HearthError, NotFound
from hearth.home import Home
from hearth.index.hybrid import SearchResult
from hearth.reconcile.reconciler import Reconciler
from hearth.reconcile.reports import PassReport
from hearth.reconcile.semantic import VectorFiller
from hearth.reconcile.watcher import Watcher
from hearth.reconcile.worker import ReconcileWorker
from hearth.store.tokens import TokenStore
from hearth.sync import Syncer


@dataclass
class JobState:
    name: str
    runs: int = 0
    failures: int = 0
    last_run: str | None = None
    last_error: str | None = None

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


class _OwnedPasses:
    """What the worker runs: reconcile passes taken under the owner lock."""

    def __init__(self, service: HomeService) -> None:
        self._service = service

    def reconcile(self, paths: Iterable[str] | None = None) -> PassReport:
        with self._service.owned():
            return self._service.reconciler.reconcile(paths)


class HomeService:
    def __init__(
        self, home: Home, reconciler: Reconciler, tokens: TokenStore, syncer: Syncer
    ) -> None:
        self.home = home
        self.reconciler = reconciler
        self.tokens = tokens
        self.syncer = syncer
        self.owner = threading.RLock()
        self.worker = ReconcileWorker(_OwnedPasses(self))
        #: Fills semantic vectors in the background (None when semantic ranking is off).
        self.filler = (
            VectorFiller(lambda stop: reconciler.fill_vectors(stop=stop), reconciler.semantic.wake)
            if reconciler.semantic is not None
            else None
        )
        self.watcher = Watcher(home.root, self.worker.request)
        self.jobs: dict[str, JobState] = {}
        self.scheduler_running = False
        self.started: str | None = None
        reconciler.attention = self.attention
        # The worker's next pass renders ACTIVE.md after each API write.
        home.defer_active = lambda: self.worker.request([])

    @contextmanager
    def owned(self) -> Iterator[None]:
        with self.owner:
            yield

    # -- life cycle ------------------------------------------------------------

    def start(self) -> PassReport:
        """Start-up pass (rebuilding the index if needed), then the worker and watcher."""
        with self.owned():
            self.home.store.recover()  # a write cut short by a crash is finished first
            report = self.reconciler.reconcile()
        self.worker.start()
        self.watcher.start()
        if self.filler is not None:
            self.filler.start()
        self.started = self._now()
        return report

    def stop(self) -> None:
        self.watcher.stop()
        if self.filler is not None:
            self.filler.stop()
        self.worker.stop()
        self.forget_address()
        with self.owned():
            self.reconciler.close()

    def publish_address(self, url: str) -> None:
        """Tell hooks and the CLI where this home's server listens."""
        path = self.home.store.state_dir / layout.SERVER_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{layout.SERVER_FILE}.tmp")
        temp.write_text(json.dumps({"url": url, "pid": os.getpid(), "started": self.started}))
        temp.replace(path)

    def forget_address(self) -> None:
        path = self.home.store.state_dir / layout.SERVER_FILE
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return
        if isinstance(data, dict) and data.get("pid") == os.getpid():
            path.unlink(missing_ok=True)

    # -- scheduled jobs ----------------------------------------------------------

    def run_job(self, name: str, job: Callable[[], object]) -> None:
        """Run a scheduled job, recording its outcome for status and ACTIVE.md."""
        state = self.jobs.setdefault(name, JobState(name))
        state.runs += 1
        state.last_run = self._now()
        try:
            job()
        except Exception as exc:  # the job's boundary: whatever failed is recorded, not lost
            state.failures += 1
            state.last_error = getattr(exc, "message", None) or str(exc)
            self.worker.request([])  # refresh ACTIVE.md's Needs attention
            return
        if state.last_error is not None:
            state.last_error = None
            self.worker.request([])

    def job_reconcile(self) -> None:
        ticket = self.worker.request(None)
        self.worker.wait(ticket, timeout=600)
        if self.worker.state.last_error:
            raise HearthError(self.worker.state.last_error)

    def job_rollup(self) -> None:
        try:
            with self.owned():
                self.home.rollup(None, "scheduler")
        except NotFound:
            return  # no notes last week: nothing to digest

    def job_watcher(self) -> None:
        if self.watcher.ensure_running():
            why = self.watcher.last_error or "it stopped delivering events"
            raise HearthError(f"the file watcher had stopped and was re-armed ({why})")

    def attention(self) -> list[str]:
        jobs = [
            f"scheduled job {s.name} failed at {s.last_run}: {s.last_error}"
            for s in self.jobs.values()
            if s.last_error
        ]
        return jobs + self.syncer.attention()

    def job_sync(self) -> None:
        """Sync with the upstream, when the branch has one."""
        if self.syncer.upstream() is None:
            return
        self.sync()

    # -- reading -----------------------------------------------------------------

    def search(self, text: str, kind: str | None, path: str | None, limit: int) -> SearchResult:
        return self.reconciler.search_ranked(text, kind, path, limit, reopen=False)

    def status(self) -> dict[str, Any]:
        with self.owned():
            data = queries.status(self.home, self.reconciler.status(), self.syncer)
        worker = self.worker.state
        data["watcher"] = self.watcher.as_dict()
        data["worker"] = {
            "passes": worker.passes,
            "idle": self.worker.idle(),
            "last_error": worker.last_error,
        }
        if self.filler is not None:
            data["vector_filler"] = {"last_error": self.filler.last_error}
        data["scheduler"] = {
            "running": self.scheduler_running,
            "jobs": [s.as_dict() for s in self.jobs.values()],
        }
        data["started"] = self.started
        return data

    def settle_active(self, timeout: float = 5.0) -> None:
        """Wait for the passes already asked for (each write asks the worker to render
        ACTIVE.md after it), so a read right after a write sees it. Asks for nothing."""
        if self.worker.running:
            self.worker.wait_idle(timeout)

    def context(self, session: context.Session) -> context.ContextBundle:
        if layout.ACTIVE_PATH in context.hot_files(session):
            self.settle_active()
        texts: list[tuple[str, str | None]] = []
        with self.owned():
            for path in context.hot_files(session):
                data = self.home.files.read(path)
                texts.append((path, None if data is None else decode_text(data, path)))
        bounds = self.home.settings.context
        return context.bundle(session, texts, bounds.file_chars, bounds.total_chars)

    def active(self) -> dict[str, Any]:
        self.settle_active()
        with self.owned():
            return queries.active_view(self.home, self.reconciler.status())

    def reconcile(self, full: bool) -> PassReport:
        with self.owned():
            return self.reconciler.rebuild() if full else self.reconciler.reconcile()

    def sync(self) -> dict[str, object]:
        """Sync with the upstream, then reconcile what came in before answering."""
        with self.owned():
            result = self.syncer.sync()
            self.reconciler.reconcile()
        return result.as_dict()

    def _now(self) -> str:
        return self.home.clock().astimezone(dt.UTC).isoformat(timespec="seconds")
