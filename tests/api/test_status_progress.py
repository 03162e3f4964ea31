"""A long reconcile pass, seen in ``/v1/status`` while it runs (``index.pass``)."""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Reply, make_home, start_server, wait_for

pytestmark = pytest.mark.e2e  # a real server

WORDS = ["heron", "shallows", "reed", "marsh", "tide", "willow", "alder", "sedge"]
#: Enough text that a rebuild takes seconds on a quiet 2-core machine, while
#: status answers in milliseconds: the pass is seen many times as it runs.
FILES = 1200

PHASES = ("listing", "reading", "finishing")


def write_notes(root: Path) -> None:
    rng = random.Random(3)
    for n in range(FILES):
        path = root / f"memory/topics/t{n // 200}/note-{n}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        parts = (" ".join(rng.choice(WORDS) for _ in range(250)) for _ in range(6))
        body = "\n\n".join(f"## Part {k}\n\n{text}" for k, text in enumerate(parts))
        path.write_text(f"# Note {n}\n\n{body}\n")


def test_status_shows_a_rebuild_while_it_runs_and_nothing_after(tmp_path: Path) -> None:
    root = make_home(tmp_path / "home")
    write_notes(root)
    server = start_server(root)
    try:
        assert server.get("/v1/status").body["index"]["pass"] is None

        replies: list[Reply] = []
        rebuild = threading.Thread(
            target=lambda: replies.append(server.post("/v1/reconcile?full=true"))
        )
        rebuild.start()
        seen: list[dict[str, Any]] = []
        while rebuild.is_alive():
            running = server.get("/v1/status").body["index"]["pass"]
            if running is not None and running["rebuild"]:
                seen.append(running)
        rebuild.join()
        assert replies and replies[0].status == 200, replies
        report = replies[0].body
        assert report["rebuilt"] is True and report["indexed"] >= FILES

        # Seen part-way through its reading, counting towards every file it read.
        assert any(p["phase"] == "reading" and 0 < p["files_done"] < p["files_total"] for p in seen)
        assert {p["files_total"] for p in seen if p["files_total"] is not None} == {
            report["hashed"]
        }
        assert all(p["full"] is True for p in seen)
        # It only moves forward.
        done = [p["files_done"] for p in seen]
        assert done == sorted(done)
        phases = [PHASES.index(p["phase"]) for p in seen]
        assert phases == sorted(phases)

        # Once the pass (and any pass its own ACTIVE.md write asked for) is over: none.
        assert wait_for(lambda: server.get("/v1/status").body["index"]["pass"] is None, 10.0)
    finally:
        assert server.stop() == 0
    assert "Traceback" not in server.stderr, server.stderr
