"""The server answers while its start-up pass runs: 503 with the pass's progress.

The start-up pass is held at its first step by taking the home's reconcile
lock in the test (the lock a second hearth process would hold), so the
starting state lasts exactly as long as the test wants it to.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hearth.store import state
from hearth.store.lock import write_lock
from tests.api.conftest import BIN, Server, free_port, isolated_env, make_home

pytestmark = pytest.mark.e2e  # real servers started and stopped


def raw_get(port: int, path: str, token: str | None = None) -> tuple[int, dict[str, str], Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        body = response.read()
        return (
            response.status,
            {k.lower(): v for k, v in response.getheaders()},
            json.loads(body) if body else None,
        )
    finally:
        conn.close()


def answering(port: int, path: str, deadline: float = 30) -> tuple[int, dict[str, str], Any]:
    """The first answer to ``path`` once the server listens."""
    until = time.monotonic() + deadline
    while True:
        try:
            return raw_get(port, path)
        except OSError:
            if time.monotonic() > until:
                raise
            time.sleep(0.05)


@contextlib.contextmanager
def held_start_up(root: Path, env: dict[str, str], port: int) -> Iterator[subprocess.Popen[bytes]]:
    """``hearth serve`` started while the test holds the home's reconcile lock:
    its start-up pass waits at its first step until the block ends."""
    with write_lock(root / ".git" / "hearth" / state.RECONCILE_LOCK, timeout=5):
        yield subprocess.Popen(
            [str(BIN / "hearth"), "--home", str(root), "serve", "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )


def test_requests_get_503_with_progress_until_the_start_up_pass_ends(tmp_path: Path) -> None:
    env = isolated_env(tmp_path / "userhome")
    root = make_home(tmp_path / "home", env)
    token = subprocess.run(
        [
            str(BIN / "hearth"),
            "--home",
            str(root),
            "token",
            "create",
            "--name",
            "t",
            "--scope",
            "admin",
        ],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.strip()
    (root / "memory").mkdir(exist_ok=True)
    (root / "memory" / "garden.md").write_text("# Garden\n\nThe quince tree flowered.\n")
    port = free_port()
    with held_start_up(root, env, port) as proc:
        server = Server(root, port, proc, {"admin": token})
        try:
            status, headers, body = answering(port, "/healthz")
            assert status == 503
            assert headers.get("retry-after") == "1"
            assert body["error"]["code"] == "starting"
            assert "start-up reconcile pass" in body["error"]["message"]
            # ``pass`` is null until the pass begins (after start-up recovery);
            # then it waits at the lock the test holds.
            deadline = time.monotonic() + 30
            while body["error"]["detail"]["pass"] is None:
                assert time.monotonic() < deadline, body
                time.sleep(0.02)
                status, _headers, body = raw_get(port, "/healthz")
                assert status == 503
            running = body["error"]["detail"]["pass"]
            assert running["full"] is True and running["phase"] == "listing"
            # Every endpoint, before any handler (a search would wait for the lock).
            for path in ("/v1/status", "/v1/search?q=quince", "/ui/"):
                status, _headers, body = raw_get(port, path, token)
                assert status == 503 and body["error"]["code"] == "starting", path
            # Refused as before: the Host and Origin guard still runs first.
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/healthz", headers={"Host": "evil.example"})
            refused = conn.getresponse()
            assert refused.status == 400
            assert json.loads(refused.read())["error"]["code"] != "starting"
            conn.close()
        except BaseException:
            server.stop()
            raise
    # The lock released: the pass runs, and the server answers.
    try:
        deadline = time.monotonic() + 30
        while raw_get(port, "/healthz")[0] != 200:
            assert time.monotonic() < deadline, "never became ready"
            time.sleep(0.05)
        assert server.search("quince") == {"memory/garden.md"}
    finally:
        assert server.stop() == 0


def test_a_server_stopped_while_starting_exits_and_the_next_one_serves(tmp_path: Path) -> None:
    env = isolated_env(tmp_path / "userhome")
    root = make_home(tmp_path / "home", env)
    port = free_port()
    with held_start_up(root, env, port) as proc:
        try:
            assert answering(port, "/healthz")[0] == 503
            proc.send_signal(signal.SIGTERM)
        except BaseException:
            proc.kill()
            raise
    # It stops once the pass it had started gives way (at its first file read).
    assert proc.wait(timeout=60) == 0
    assert proc.stderr is not None
    proc.stderr.close()
    from tests.api.conftest import start_server

    server = start_server(root, env=env)
    try:
        assert server.get("/healthz", token=None).body == {"ok": True}
    finally:
        server.stop()
