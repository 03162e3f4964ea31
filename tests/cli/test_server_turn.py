"""A server started on demand while ``hearth reindex --full`` holds the home's
server lock to rebuild in its own process: it waits for the lock instead of
leaving, so the client that started it gets a server once the rebuild lets go;
it leaves at once when a server holds the lock (one starting, or one handing
over to a foreground ``hearth serve``, which must win it), and when the home
is removed meanwhile it makes nothing there again."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

from hearth.cli import serving
from hearth.store import server_file


def _state(tmp_path: Path) -> Path:
    state = tmp_path / "home/.git/hearth"
    state.mkdir(parents=True)
    return state


def _rebuilding(state: Path) -> int:
    """The lock held as ``reindex --full`` holds it (``delegate.claim_home``)."""
    held = server_file.hold_lock(state)
    assert held is not None
    server_file.say_holder(held, server_file.REBUILDING)
    return held


def _later(seconds: float, action: object) -> threading.Thread:
    def run() -> None:
        time.sleep(seconds)
        action()  # type: ignore[operator]

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_server_started_on_demand_waits_for_a_rebuilds_lock(tmp_path: Path) -> None:
    """Case: a rebuilding command holds the lock: the on-demand claim returns
    the lock once it is let go (it returned None at once before, and nothing
    served the home), and the lock's file no longer says a rebuild holds it."""
    state = _state(tmp_path)
    held = _rebuilding(state)
    _later(0.3, lambda: os.close(held))
    fd = serving.claim(state, on_demand=True)
    assert fd is not None
    assert server_file.hold_lock(state) is None  # this claim holds it now
    assert not server_file.held_to_rebuild(state)
    os.close(fd)


def test_it_leaves_at_once_when_a_server_holds_the_lock(tmp_path: Path) -> None:
    """Case: a server holds the lock (starting, or stopping to hand over to a
    foreground ``hearth serve`` that waits for the lock): the on-demand claim
    leaves at once, as before, and never races the foreground one for it."""
    state = _state(tmp_path)
    held = server_file.hold_lock(state)
    assert held is not None
    try:
        started = time.monotonic()
        assert serving.claim(state, on_demand=True) is None
        assert time.monotonic() - started < serving.TURN_POLL_SECONDS
    finally:
        os.close(held)


def test_it_makes_nothing_in_a_home_removed_while_it_waits(tmp_path: Path) -> None:
    """Case: the home is deleted while a rebuild holds the lock: the waiting
    one leaves without making ``.git/hearth`` again."""
    state = _state(tmp_path)
    held = _rebuilding(state)
    _later(0.3, lambda: shutil.rmtree(tmp_path / "home"))
    try:
        assert serving.claim(state, on_demand=True) is None
        assert not (tmp_path / "home").exists()
    finally:
        os.close(held)
