"""``hearth reindex --full`` with no server running (issue 52, "Full reindex:
2.5x FTS5 stands").

The command rebuilds the index in its own process, holding the home's server
lock as a server would: one build, with no server's start-up (its imports, its
watcher, its scheduler: about a second of CPU) before it. While it holds the
lock no server starts: a client arriving meanwhile starts one on demand, which
waits for the lock and then serves, so that client gets its answer from the
rebuilt index. Counted from outside: each build is made in a folder of its own
beside the live index (``index.new-*``), which a real file watcher sees made.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
import watchfiles

from hearth.store import server_file
from tests.api.conftest import BIN, make_home

pytestmark = pytest.mark.e2e

NOTES = 30
#: Seconds a client waiting for a server may take here (it waited 60 s before).
PATIENCE = 20


def _builds_seen(state: Path, stop: threading.Event, seen: set[str]) -> None:
    # No filter: the default one leaves out everything under .git.
    for changes in watchfiles.watch(
        state, watch_filter=None, stop_event=stop, debounce=50, step=20
    ):
        for change, path in changes:
            name = Path(path).name
            if change == watchfiles.Change.added and name.startswith("index.new-"):
                seen.add(name)


def _herons(root: Path) -> None:
    for n in range(NOTES):
        note = root / f"memory/topics/heron-{n}.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(f"# Heron {n}\n\nHeron {n} stood in the millrace.\n")
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "herons"], check=True)


def _hearth(root: Path, *args: str) -> list[str]:
    return [str(BIN / "hearth"), "--home", str(root), *args]


def _served_by(state: Path) -> int | None:
    record = server_file.read(state)
    return None if record is None else int(str(record["pid"]))


def test_reindex_full_with_no_server_builds_once_in_the_command(tmp_path: Path) -> None:
    """Case: a new home, never indexed, no server: ``reindex --full`` rebuilds
    every file in its own process (one index built) and leaves no server
    behind; the next client starts one, whose start-up pass finds the rebuilt
    index whole (no second build) and answers from it."""
    root = make_home(tmp_path / "home")
    _herons(root)
    state = root / ".git/hearth"
    state.mkdir(exist_ok=True)
    stop, seen = threading.Event(), set[str]()
    watching = threading.Thread(target=_builds_seen, args=(state, stop, seen), daemon=True)
    watching.start()
    time.sleep(0.3)  # the watch is armed
    env = {**os.environ, "HEARTH_SERVER": "on"}
    pid = None
    try:
        run = subprocess.run(
            _hearth(root, "reindex", "--full", "--json"),
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        done = json.loads(run.stdout)
        assert done["rebuilt"] and done["full"]
        assert done["indexed"] == done["scanned"] >= NOTES
        assert (done["embedded"], done["to_embed"]) == (0, None)
        assert _served_by(state) is None and not (state / "server.json").exists()
        assert not server_file.held_to_rebuild(state)  # the lock let go, and its note
        found = subprocess.run(
            _hearth(root, "search", "millrace", "--json", "--verbose"),
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        pid = _served_by(state)
        assert pid is not None and "answered by the server" in found.stderr
        assert "memory/topics/heron-" in found.stdout
        time.sleep(0.5)  # the watcher's last events
    finally:
        stop.set()
        watching.join(5)
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
    assert len(seen) == 1, sorted(seen)


def test_a_client_arriving_during_the_rebuild_is_answered_once_it_is_done(
    tmp_path: Path,
) -> None:
    """Case: the home's server lock is held as ``reindex --full`` holds it while
    it rebuilds (saying so in the lock's file), and a note is written
    meanwhile; a search arriving then starts a server on demand, which waits
    for the lock (it left at once before, and
    the search waited a minute for a server that never came, then worked
    alone): no server serves while the lock is held, and once it is let go the
    search is answered by the one server it started, with the new note."""
    root = make_home(tmp_path / "home")
    _herons(root)
    state = root / ".git/hearth"
    env = {**os.environ, "HEARTH_SERVER": "on"}
    held = server_file.hold_lock(state)
    assert held is not None
    server_file.say_holder(held, server_file.REBUILDING)  # as ``delegate.claim_home`` does
    pid, search = None, None
    try:
        (root / "memory/topics/egret.md").write_text("# Egret\n\nAn egret by the millrace.\n")
        search = subprocess.Popen(
            _hearth(root, "search", "egret", "--json", "--verbose"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        time.sleep(1.5)
        assert search.poll() is None and _served_by(state) is None
        os.close(held)
        held = None
        out, err = search.communicate(timeout=PATIENCE)
        assert search.returncode == 0, err
        pid = _served_by(state)
        assert pid is not None and "answered by the server" in err
        assert [hit["path"] for hit in json.loads(out)["hits"]] == ["memory/topics/egret.md"]
    finally:
        if search is not None and search.poll() is None:
            search.kill()
            search.wait()
        if held is not None:
            os.close(held)
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
