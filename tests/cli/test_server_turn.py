"""A server started on demand while the home's server lock is held and no
server serves yet (one is starting, or ``hearth reindex --full`` rebuilds in
its own process holding the lock): it waits for the lock instead of leaving,
so the client that started it gets a server once the holder lets go; it leaves
once a server serves, and when the home is removed meanwhile it makes nothing
there again."""

from __future__ import annotations

import json
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


def _later(seconds: float, action: object) -> threading.Thread:
    def run() -> None:
        time.sleep(seconds)
        action()  # type: ignore[operator]

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_server_started_on_demand_waits_for_the_lock_its_holder_lets_go(
    tmp_path: Path,
) -> None:
    """Case: the lock is held with no server record (as by a rebuilding
    command): the on-demand claim returns the lock once it is let go (it
    returned None at once before, and nothing served the home)."""
    state = _state(tmp_path)
    held = server_file.hold_lock(state)
    assert held is not None
    _later(0.3, lambda: os.close(held))
    fd = serving.claim(state, on_demand=True)
    assert fd is not None
    assert server_file.hold_lock(state) is None  # this claim holds it now
    os.close(fd)


def test_it_leaves_once_a_server_serves_the_home(tmp_path: Path) -> None:
    """Case: the holder was a server starting: once its record is published, the
    waiting one leaves (None), as one started beside a running server does."""
    state = _state(tmp_path)
    held = server_file.hold_lock(state)
    assert held is not None
    record = {"url": "http://127.0.0.1:1", "pid": os.getpid(), "state": os.path.realpath(state)}
    _later(0.3, lambda: (state / "server.json").write_text(json.dumps(record)))
    try:
        assert serving.claim(state, on_demand=True) is None
    finally:
        os.close(held)


def test_it_makes_nothing_in_a_home_removed_while_it_waits(tmp_path: Path) -> None:
    """Case: the home is deleted while the lock is held: the waiting one leaves
    without making ``.git/hearth`` again."""
    state = _state(tmp_path)
    held = server_file.hold_lock(state)
    assert held is not None
    _later(0.3, lambda: shutil.rmtree(tmp_path / "home"))
    try:
        assert serving.claim(state, on_demand=True) is None
        assert not (tmp_path / "home").exists()
    finally:
        os.close(held)
