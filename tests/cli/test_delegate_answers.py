"""What ``hearth search`` does with a server answer it cannot take: a 503 while the
server starts, a status that is not current, an answer without the fields the
command prints. The peer is a plain HTTP server on loopback standing in for
another hearth's ``hearth serve`` (its ``server.json`` written as serve writes
it); the command must answer by itself, the same as with no server at all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from hearth.store import state

pytestmark = pytest.mark.e2e  # the installed executable in subprocesses

BIN = Path(sys.executable).parent
KEY = "peer-key"


class Peer(ThreadingHTTPServer):
    #: path prefix -> (status, JSON body)
    answers: dict[str, tuple[int, Any]]
    asked: list[str]


class _Handler(BaseHTTPRequestHandler):
    server: Peer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self.server.asked.append(self.path)
        assert self.headers["Authorization"] == f"Bearer {KEY}"
        status, body = next(
            (
                answer
                for prefix, answer in self.server.answers.items()
                if self.path.startswith(prefix)
            ),
            (404, {}),
        )
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    subprocess.run([str(BIN / "hearth"), "init", str(root)], check=True, capture_output=True)
    (root / "memory/topics").mkdir(parents=True)
    (root / "memory/topics/otters.md").write_text("# Otters\n\nBack at the river.\n")
    return root


@pytest.fixture
def peer(home: Path) -> Iterator[Peer]:
    server = Peer(("127.0.0.1", 0), _Handler)
    server.answers, server.asked = {}, []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    record = {"pid": os.getpid(), "url": f"http://127.0.0.1:{server.server_port}", "hook_key": KEY}
    (home / ".git" / state.FOLDER / state.SERVER).write_text(json.dumps(record))
    yield server
    server.shutdown()
    server.server_close()


def search(home: Path) -> tuple[str, str]:
    proc = subprocess.run(
        [str(BIN / "hearth"), "--home", str(home), "search", "river", "--json", "--verbose"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout, proc.stderr


CURRENT = (200, {"snapshot": {"current": True}})
#: A search answer while the server's worker catches up with an edit...
PENDING = {"hits": [], "ranking": "keyword", "vectors": None, "fresh": False}
PENDING["stale_reason"] = "a reconcile pass is pending or running: edits may be missing"
#: ...and one from a server whose watcher stopped (it will not catch up by itself).
STOPPED = {**PENDING, "stale_reason": "the file watcher is not running"}


@pytest.mark.parametrize(
    ("answers", "asked_again"),
    [
        ({"/v1/search": (503, {"error": {"code": "starting"}})}, False),
        ({"/v1/search": (200, PENDING)}, True),
        ({"/v1/search": (200, STOPPED)}, False),
        ({"/v1/search": (200, {"hits": []})}, False),  # no ranking, vectors
    ],
    ids=["starting", "catching up", "watcher stopped", "fields missing"],
)
def test_an_answer_it_cannot_take_leaves_it_to_the_command(
    home: Path, peer: Peer, answers: dict[str, tuple[int, Any]], asked_again: bool
) -> None:
    peer.answers = answers
    found, how = search(home)
    # A search says itself whether it is fresh: asked again for a moment only
    # while the server's worker catches up (never its status).
    asked = [path.partition("?")[0] for path in peer.asked]
    assert set(asked) == {"/v1/search"}
    assert (len(asked) > 1) == asked_again, asked
    url = f"http://127.0.0.1:{peer.server_port}"
    assert (
        how
        == f"hearth: search after a reconcile pass (the server at {url} had no current answer)\n"
    )
    hits = json.loads(found)["hits"]
    assert [h["path"] for h in hits] == ["memory/topics/otters.md"]


def test_a_current_answer_is_printed_as_the_command_would(home: Path, peer: Peer) -> None:
    hit = {
        "path": "memory/topics/otters.md",
        "start_line": 1,
        "end_line": 3,
        "title": "Otters",
        "heading": "Otters",
        "kind": "topic",
        "date": "",
        "score": 1.5,
        "snippet": "Back at the **river**.",
    }
    # Fields in another order, and one this hearth does not print: taken in its order.
    served = {
        "hits": [hit],
        "extra": 1,
        "vectors": None,
        "left_out": 2,
        "nearest": None,
        "ranking": "keyword",
    }
    peer.answers = {"/v1/status": CURRENT, "/v1/search": (200, served)}
    found, how = search(home)
    assert how == f"hearth: search answered by the server at http://127.0.0.1:{peer.server_port}\n"
    assert peer.asked[-1] == "/v1/search?q=river&limit=10"
    assert (
        found
        == json.dumps(
            {"ranking": "keyword", "vectors": None, "left_out": 2, "nearest": None, "hits": [hit]},
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )
