"""One worker thread per home that runs reconcile passes on request.

Requests only raise pressure: any number of them that arrive while a pass
runs are folded into exactly one more pass, which covers the union of their
paths (or the whole home if any of them asked for that). A caller that must
see its change applied (an API write, for read-your-writes) waits for the
first pass that *started* after its request.

A pass that fails is recorded and retried on a backoff table when the
failure may be temporary (a lock held too long, an I/O error); the worker
itself never dies of it. A failure that is not one of hearth's or the
system's is a bug: it is logged with its traceback and retried the same way.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from hearth.errors import HearthError
from hearth.reconcile.reports import PassReport

#: Seconds to wait before retrying after the n-th consecutive failed pass.
RETRY_BACKOFF = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)

log = logging.getLogger(__name__)


class Passes(Protocol):
    """What the worker drives: a reconciler, or one wrapped in a lock."""

    def reconcile(self, paths: Iterable[str] | None = None) -> PassReport: ...


@dataclass
class WorkerState:
    passes: int = 0
    failures: int = 0
    last_error: str | None = None


class ReconcileWorker:
    def __init__(
        self,
        reconciler: Passes,
        *,
        on_pass: Callable[[PassReport], object] | None = None,
    ) -> None:
        self.reconciler = reconciler
        self.on_pass = on_pass
        self.state = WorkerState()
        self._cond = threading.Condition()
        self._full = False
        self._paths: set[str] = set()
        self._requested = 0  # requests made so far
        self._started = 0  # requests covered by the pass that is running or ran last
        self._finished = 0  # requests covered by finished passes
        self._stopping = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="hearth-reconcile", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)

    def request(self, paths: Iterable[str] | None = None) -> int:
        """Ask for a pass over ``paths`` (None: the whole home); returns a ticket."""
        with self._cond:
            if paths is None:
                self._full = True
            else:
                self._paths.update(paths)
            self._requested += 1
            self._cond.notify_all()
            return self._requested

    def wait(self, ticket: int, timeout: float | None = None) -> bool:
        """Block until a pass covering ``ticket`` finished; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self._finished >= ticket, timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every request made so far is covered by a finished pass."""
        with self._cond:
            target = self._requested
            return self._cond.wait_for(lambda: self._finished >= target, timeout)

    def idle(self) -> bool:
        with self._cond:
            return self._finished >= self._requested

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._stopping or self._requested > self._started)
                if self._stopping:
                    return
                full, paths = self._full, sorted(self._paths)
                self._full, self._paths = False, set()
                self._started = covered = self._requested
            if self._pass(None if full else paths):
                with self._cond:
                    self._finished = max(self._finished, covered)
                    self._cond.notify_all()
            else:
                with self._cond:
                    # Put the work back so the retry covers it, after a pause.
                    self._full = self._full or full
                    self._paths.update(paths)
                    self._started = covered - 1
                delay = RETRY_BACKOFF[min(self.state.failures - 1, len(RETRY_BACKOFF) - 1)]
                with self._cond:
                    self._cond.wait_for(lambda: self._stopping, delay)

    def _pass(self, paths: list[str] | None) -> bool:
        try:
            report = self.reconciler.reconcile(paths)
        except (HearthError, OSError) as exc:
            self.state.failures += 1
            self.state.last_error = str(exc)
            return False
        except Exception as exc:
            log.exception("a reconcile pass failed; it is retried")
            self.state.failures += 1
            self.state.last_error = f"{type(exc).__name__}: {exc}"
            return False
        self.state.passes += 1
        self.state.failures = 0
        self.state.last_error = None
        if self.on_pass is not None:
            self.on_pass(report)
        return True
