"""``hearth reindex --full`` with no server running (issue 52, "Full reindex:
2.5x FTS5 stands").

The command starts the home's server on demand, as every write does. Before,
that server's start-up pass built the index of a home never indexed, and the
request then rebuilt it at once: two whole builds for one command, most of why
the workload's ``reindex --full`` stood at 9x FTS5. Now the server it starts
rebuilds as it starts, and that rebuild is the command's answer. Counted from
outside: each build is made in a folder of its own beside the live index
(``index.new-*``), which a real file watcher sees made.
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

from tests.api.conftest import BIN, make_home

pytestmark = pytest.mark.e2e

NOTES = 30


def _builds_seen(state: Path, stop: threading.Event, seen: set[str]) -> None:
    # No filter: the default one leaves out everything under .git.
    for changes in watchfiles.watch(
        state, watch_filter=None, stop_event=stop, debounce=50, step=20
    ):
        for change, path in changes:
            name = Path(path).name
            if change == watchfiles.Change.added and name.startswith("index.new-"):
                seen.add(name)


def test_reindex_full_with_no_server_builds_the_index_once(tmp_path: Path) -> None:
    """Case: a new home, never indexed, no server: ``reindex --full`` answers a
    rebuild of every file from the server it started, which built one index
    (it built two before), and that server then answers searches from it."""
    root = make_home(tmp_path / "home")
    for n in range(NOTES):
        note = root / f"memory/topics/heron-{n}.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(f"# Heron {n}\n\nHeron {n} stood in the millrace.\n")
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "herons"], check=True)
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
            [str(BIN / "hearth"), "--home", str(root), "reindex", "--full", "--json"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        pid = int(json.loads((state / "server.json").read_text())["pid"])
        done = json.loads(run.stdout)
        assert done["rebuilt"] and done["full"]
        assert done["indexed"] == done["scanned"] >= NOTES
        found = subprocess.run(
            [str(BIN / "hearth"), "--home", str(root), "search", "millrace", "--json"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        assert "memory/topics/heron-" in found.stdout
        time.sleep(0.5)  # the watcher's last events
    finally:
        stop.set()
        watching.join(5)
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
    assert len(seen) == 1, sorted(seen)
