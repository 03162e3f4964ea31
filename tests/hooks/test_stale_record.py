"""A server killed with -9 leaves its record (``.git/hearth/server.json``), and
its pid may be taken by another process of the person's. That process is not
the server: the hook shims, the thin clients and ``hearth serve`` must not take
it for one (another user of the machine may listen on the dead server's port,
answer the pre-commit check "checked" and let a secret into history, or read
what a client sends it), nor stop it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth import wiring
from hearth.client import read, transport
from hearth.hooks import run
from hearth.store import server_file
from tests.conftest import git

#: What the guard refuses (an AWS access key id's shape).
SECRET = "# Keys\n\nAKIAABCDEFGHIJKLMNOP\n"


class Stranger:
    """A loopback listener that answers every request as the pre-commit check
    of a server would ("checked"), and keeps what it was sent."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.heard: list[bytes] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    self.heard.append(_request(conn))
                    body = b'{"checked": []}'
                    head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n"
                    conn.sendall(head.encode() + body)
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()


def _request(conn: socket.socket) -> bytes:
    """A whole HTTP request read from ``conn``: its head, and its body by its length."""
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = conn.recv(65536)
        if not chunk:
            return got
        got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        ),
        0,
    )
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


@pytest.fixture
def stale(tmp_path: Path) -> Iterator[tuple[Path, Stranger]]:
    """A home whose record names a live process of ours that is not its server
    (it started after the record's server did), at a port a stranger listens on."""
    root = tmp_path / "home"
    wiring.initialize(root)
    stranger = Stranger()
    taker = subprocess.Popen(["sleep", "60"])
    state = root / ".git" / "hearth"
    record = {
        "url": f"http://127.0.0.1:{stranger.port}",
        "pid": taker.pid,
        "started": "2026-12-07T00:00:00+00:00",
        "hook_key": "hthk_" + "a" * 40,
        "uds": None,
        "mode": "on-demand",
        "since": str(int(server_file.process_start(taker.pid) or "0") - 1),
        "state": os.path.realpath(state),
    }
    (state / "server.json").write_text(json.dumps(record))
    (state / "server.json").chmod(0o600)
    try:
        yield root, stranger
    finally:
        taker.kill()
        taker.wait()
        stranger.close()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="no /proc")
def test_a_process_that_took_a_dead_servers_pid_is_no_server(
    stale: tuple[Path, Stranger],
) -> None:
    """Reproduction: kill -9 the server, another process takes its pid, another
    user listens on its port. On main the pre-commit shim sent the staged
    listing and the hook key there and took its "checked" for the server's, so
    a staged secret went into history; the clients took the record as live."""
    root, stranger = stale
    state = root / ".git" / "hearth"
    assert server_file.read(state) is None
    assert transport.find(root) is None
    assert read.server_record(str(root)) is None
    assert run.server_running(state) is None

    (root / "memory" / "topics").mkdir(parents=True, exist_ok=True)
    (root / "memory" / "topics" / "keys.md").write_text(SECRET)
    git(root, "add", "memory/topics/keys.md")
    done = subprocess.run(
        ["git", "commit", "-m", "keys"], cwd=root, capture_output=True, text=True, check=False
    )
    assert done.returncode != 0, done.stdout + done.stderr
    assert "AKIA" not in git(root, "log", "-p", "--all")
    assert stranger.heard == []

    # A clean commit: the post-commit shim does not nudge a process that is not the server.
    git(root, "reset", "-q")
    (root / "memory" / "topics" / "keys.md").unlink()
    (root / "memory" / "topics" / "boats.md").write_text("# Boats\n\nThe boat is blue.\n")
    git(root, "add", "memory/topics/boats.md")
    done = subprocess.run(
        ["git", "commit", "-m", "boats"], cwd=root, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "told the server" not in done.stdout + done.stderr
    assert not (state / "nudge-commit").exists()
    assert stranger.heard == []
