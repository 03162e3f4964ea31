"""The file watcher: turns file-system events into reconcile requests.

Events are hints (see ``reconciler.py``): a batch becomes a targeted pass
over the paths it names, and nothing depends on the events being complete,
ordered or unique. watchfiles reports a renamed or removed folder only as
the folder, so folder paths are passed on too; the pass scans them. A
change to a ``.gitignore`` asks for a full pass.

A watcher can stop delivering without failing loudly (the folder was
replaced, inotify ran out of watches, the thread died). So the watch loop
wakes at least every ``HEARTBEAT_MS`` even when nothing happens and stamps a
heartbeat; ``healthy()`` checks the stamp, the thread and the home folder's
identity, and ``ensure_running()`` re-arms a dead watcher and asks for a full
pass to catch what it missed while down.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import watchfiles

from hearth.domain import layout
from hearth.domain.paths import is_temporary
from hearth.reconcile.reconciler import HEAD_MOVED

#: The loop's longest sleep. Its first wake-up also tells ``wait_armed`` that
#: watchfiles has set its watches: a server's start-up pass waits for that.
HEARTBEAT_MS = 250
_REF_FILES = (".git/HEAD", ".git/packed-refs")
#: A heartbeat older than this means the watcher stopped.
STALE_AFTER = 5.0

#: Receives the changed home-relative paths, or None for "look at everything".
OnChange = Callable[[set[str] | None], object]


def relevant(root: Path, absolute: str) -> str | None:
    """The home-relative path to reconcile for an event, or None to drop it."""
    rel = os.path.relpath(absolute, root)
    if rel.startswith("..") or rel == ".":
        return None
    rel = rel.replace(os.sep, "/")
    parts = rel.split("/")
    if parts[0] == ".git":
        if rel == layout.NUDGE_PATH:
            return layout.NUDGE_PATH  # a git hook asks for a full pass
        if rel == layout.COMMIT_NUDGE_PATH:
            # A commit moved HEAD and changed no work-tree file: the pass looks
            # at what differs between the HEAD indexed and the new one.
            return HEAD_MOVED
        # A commit, checkout, pull or reset moves a ref: ACTIVE.md's persona
        # history and the indexed HEAD follow it.
        moved = rel in _REF_FILES or (
            rel.startswith(".git/refs/heads/") and not rel.endswith(".lock")
        )
        return HEAD_MOVED if moved else None
    if rel == layout.ACTIVE_PATH:
        # hearth's own output: deleted or edited by hand, the pass writes it again
        # (its own writes come back here too, and find nothing to do).
        return rel
    if ".git" in parts or any(is_temporary(p) for p in parts):
        return None
    name = parts[-1]
    if name.endswith(".md") or name == ".gitignore" or "." not in name:
        return rel
    return rel if Path(absolute).is_dir() else None


def paths_of(root: Path, changes: Iterable[tuple[object, str]]) -> set[str] | None:
    found: set[str] = set()
    for _change, absolute in changes:
        rel = relevant(root, absolute)
        if rel is None:
            continue
        if rel == layout.NUDGE_PATH or rel.rsplit("/", 1)[-1] == ".gitignore":
            return None
        found.add(rel)
    return found


class Watcher:
    def __init__(
        self,
        root: Path,
        on_change: OnChange,
        *,
        step_ms: int = 10,
        debounce_ms: int = 100,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.root = root
        self.on_change = on_change
        self.step_ms = step_ms
        self.debounce_ms = debounce_ms
        self.monotonic = monotonic
        self.last_beat: float | None = None
        self.batches = 0
        self.rearms = 0
        self.last_error: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._root_id: tuple[int, int] | None = None
        self._armed = threading.Event()

    def start(self) -> None:
        self._stop = threading.Event()
        self._armed = threading.Event()
        self._root_id = _identity(self.root)
        self.last_beat = self.monotonic()
        self._thread = threading.Thread(target=self._run, name="hearth-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def wait_armed(self, timeout: float) -> bool:
        """Wait until the watches are set (the loop woke once), so that any change
        made from now on is reported; False when that took over ``timeout``
        seconds or the watcher failed (``last_error`` says why)."""
        thread = self._thread
        deadline = time.monotonic() + timeout
        while thread is not None and thread.is_alive():
            if self._armed.wait(min(0.05, max(0.0, deadline - time.monotonic()))):
                return True
            if time.monotonic() >= deadline:
                return False
        return self._armed.is_set()

    def healthy(self) -> bool:
        return (
            self._thread is not None
            and self._thread.is_alive()
            and self.last_beat is not None
            and self.monotonic() - self.last_beat < STALE_AFTER
            and _identity(self.root) == self._root_id
        )

    def ensure_running(self) -> bool:
        """Re-arm the watcher when it stopped delivering; True when it was re-armed."""
        if self.healthy():
            return False
        self.stop(timeout=1.0)
        self.rearms += 1
        self.start()
        self.on_change(None)  # events were missed while it was down
        return True

    def as_dict(self) -> dict[str, object]:
        beat = None if self.last_beat is None else round(self.monotonic() - self.last_beat, 3)
        return {
            "running": self.healthy(),
            "seconds_since_heartbeat": beat,
            "batches": self.batches,
            "rearms": self.rearms,
            "last_error": self.last_error,
        }

    def _run(self) -> None:
        root = self.root
        try:
            for changes in watchfiles.watch(
                root,
                watch_filter=lambda _change, path: relevant(root, path) is not None,
                step=self.step_ms,
                debounce=self.debounce_ms,
                rust_timeout=HEARTBEAT_MS,
                yield_on_timeout=True,
                stop_event=self._stop,
                raise_interrupt=False,
            ):
                self.last_beat = self.monotonic()
                self._armed.set()
                if not changes:
                    continue
                self.batches += 1
                paths = paths_of(root, changes)
                if paths is None or paths:
                    self.on_change(paths)
        except Exception as exc:  # the thread must record why it stopped, whatever it was
            self.last_error = f"{type(exc).__name__}: {exc}"


def _identity(root: Path) -> tuple[int, int] | None:
    try:
        st = root.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino
