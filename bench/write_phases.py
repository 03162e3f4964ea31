"""Where a served daily write's time goes, in-process: ``ServedHearth.note`` on
a home bench/api_write.py made, each phase's end timed from the call's start.

    .venv/bin/python bench/write_phases.py --home /tmp/me-write-home [--writes 25]
    PYTHONPATH=OTHER/src .venv/bin/python bench/write_phases.py --home ... --plain

Today's daily note is removed first (one commit, hooks off), so the writes
append to a new note, as bench/api_write.py's rounds do. Prints the wall time
and the writing thread's CPU (``time.thread_time``) of each write, min and
p50; with this checkout's code (not ``--plain``), also when the index update
beside the commit (``reconcile/ahead.py``) starts and ends, when git's
commit is done and when the write answers. ``--plain`` times only the calls,
so another checkout's code (``PYTHONPATH``) can be run in turns with this
one. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from measure import NO_HOOKS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="made by bench/api_write.py")
    parser.add_argument("--writes", type=int, default=25)
    parser.add_argument("--plain", action="store_true", help="time the calls only")
    args = parser.parse_args()
    root = args.home.resolve()
    today = f"memory/{dt.datetime.now(dt.UTC).date().isoformat()}.md"
    if (root / today).exists():
        subprocess.run(["git", "rm", "-q", today], cwd=root, check=True)
        subprocess.run(
            ["git", *NO_HOOKS, "commit", "-qm", "bench: a new day"], cwd=root, check=True
        )

    from hearth import wiring

    served = wiring.open_service(root)
    served.start()
    marks: dict[str, float] = {}
    if not args.plain:
        _mark_phases(served, marks)
    rows: list[dict[str, float]] = []
    try:
        time.sleep(1.0)
        for n in range(args.writes + 1):  # the first is a warm-up
            time.sleep(0.3)
            marks.clear()
            start, cpu = time.perf_counter(), time.thread_time()
            served.note(f"saw zq{n}x{time.time_ns()} today", "bench", "bench")
            row = {key: (at - start) * 1000 for key, at in marks.items()}
            row["answered"] = (time.perf_counter() - start) * 1000
            row["thread CPU"] = (time.thread_time() - cpu) * 1000
            if n:
                rows.append(row)
    finally:
        served.stop()
    for key in rows[0]:
        values = [row[key] for row in rows if key in row]
        print(f"{key:<20} min {min(values):6.1f} ms  p50 {statistics.median(values):6.1f} ms")


def _mark_phases(served: Any, marks: dict[str, float]) -> None:
    """Record when the index update starts and ends and when git's commit is done."""
    from hearth.reconcile import ahead

    def timed(method: Callable[..., Any], before: str | None, after: str) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            if before is not None:
                marks[before] = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                marks[after] = time.perf_counter()

        return run

    index_planned = timed(ahead.IndexAhead.index_planned, "index started", "index committed")
    ahead.IndexAhead.index_planned = index_planned  # type: ignore[method-assign]
    store = served.writes.store
    store.commit = timed(store.commit, None, "git committed")


if __name__ == "__main__":
    main()
