"""How far a served home's running reconcile pass has got, for status.

A pass over a large home (a rebuild, the first pass after a ``git pull`` of
thousands of files) takes seconds to minutes, and the status snapshot is taken
only after a pass ends. So the served home tracks the pass that is running, and
``/v1/status`` shows it live as ``index.pass``. The reconciler already tells a
``progress(done, total)`` of the files it reads (the same callback that draws
``hearth reindex``'s progress line on a terminal); the phases around the reading
are known from where that count stands:

- ``listing``: the tree is listed and compared with the manifest (no count yet);
- ``reading``: the files that changed are read, sectioned and indexed;
- ``finishing``: every file is read; the index is committed, the manifest saved
  and ACTIVE.md written.

A pass that finds nothing to read stays in ``listing`` until it ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Literal

from hearth.index.semantic import Progress

Phase = Literal["listing", "reading", "finishing"]


@dataclass(frozen=True)
class RunningPass:
    full: bool
    rebuild: bool
    started: float
    phase: Phase = "listing"
    files_done: int = 0
    files_total: int | None = None


class PassProgress:
    """The running pass of one served home (passes never overlap: they hold the
    home's lock), read by status threads while the pass thread updates it."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._running: RunningPass | None = None

    @contextmanager
    def running(self, *, full: bool, rebuild: bool = False) -> Iterator[Progress]:
        """Track a pass for as long as the block runs; yields its ``progress``."""
        with self._lock:
            self._running = RunningPass(full, rebuild, self._monotonic())
        try:
            yield self._reading
        finally:
            with self._lock:
                self._running = None

    def _reading(self, done: int, total: int) -> None:
        with self._lock:
            if self._running is not None:
                phase: Phase = "reading" if done < total else "finishing"
                self._running = replace(
                    self._running, phase=phase, files_done=done, files_total=total
                )

    def view(self) -> dict[str, Any] | None:
        """The running pass as status shows it, or None when none runs."""
        with self._lock:
            running = self._running
        if running is None:
            return None
        return {
            "full": running.full,
            "rebuild": running.rebuild,
            "phase": running.phase,
            "files_done": running.files_done,
            "files_total": running.files_total,
            "seconds": round(self._monotonic() - running.started, 3),
        }
