"""Issue 49: another local user gets nothing from a running server.

The other user is played with ``setpriv --reuid=nobody`` where the machine
allows it (root, setpriv); those tests skip cleanly elsewhere.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth.cli import connections
from hearth.client import delegate
from tests.api.conftest import BIN, free_port, hearth, isolated_env
from tests.store.test_socket_folder import AS_NOBODY, can_play_another_user

pytestmark = pytest.mark.e2e


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A stand-in for /tmp (1777): the real /tmp/hearth-<uid> is other sessions'."""
    folder = Path(tempfile.mkdtemp(prefix="hearth-shared-tmp-", dir="/tmp"))
    folder.chmod(0o1777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_serve_refuses_a_socket_folder_another_user_made(tmp_path: Path, shared_tmp: Path) -> None:
    """Case 2: a home whose path is too long for a socket, and ``nobody`` made the
    fallback folder first with mode 777: ``hearth serve`` refuses, says why and
    what to do, and publishes no address (so no client hands over the key)."""
    if not can_play_another_user():
        pytest.skip("needs root and setpriv to play another local user")
    env = {**isolated_env(tmp_path / "user"), "TMPDIR": str(shared_tmp)}
    env.pop("XDG_RUNTIME_DIR", None)
    root = tmp_path / ("a-home-whose-path-is-long-" * 4)
    hearth("init", str(root), env=env)
    folder = shared_tmp / f"hearth-{os.getuid()}"
    subprocess.run([*AS_NOBODY, "mkdir", "-m", "777", str(folder)], check=True)
    proc = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), "serve", "--port", "0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert str(folder) in proc.stderr and "not safe to use" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (root / ".git" / "hearth" / "server.json").exists()
    assert list(folder.iterdir()) == []


def _serve(root: Path, env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    """``hearth serve`` with 1,024 descriptors at most (soft and hard, the common
    default), so that 1,100 connections would take them all."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))

    proc = subprocess.Popen(
        [str(BIN / "hearth"), "--home", str(root), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=limited,  # noqa: PLW1509  (no threads in the test process start it)
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(proc.stderr.read().decode() if proc.stderr else "exited")
        if delegate.find(root) is not None:
            server = delegate.find(root)
            if server is not None and delegate.get(server, "/v1/status") is not None:
                return proc
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("the server did not come up in 30 s")


def _stop(proc: subprocess.Popen[bytes]) -> str:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stderr is None:
        return ""
    with proc.stderr:
        return proc.stderr.read().decode(errors="replace")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    env = {**isolated_env(tmp_path / "user"), "HEARTH_REQUEST_SECONDS": str(DEADLINE)}
    root = tmp_path / "home"
    hearth("init", str(root), env=env)
    port = free_port()
    proc = _serve(root, env, port)
    yield root, port
    assert "Traceback" not in _stop(proc)


DEADLINE = 3.0


def _closed(socks: list[socket.socket], wait: float) -> set[int]:
    """Which of ``socks`` the server has closed (end of file or reset) within ``wait``
    seconds (those it answered first with a 503 included)."""
    import selectors

    closed: set[int] = set()
    end = time.monotonic() + wait
    with selectors.DefaultSelector() as selector:
        for number, sock in enumerate(socks):
            selector.register(sock, selectors.EVENT_READ, number)
        while len(closed) < len(socks):
            left = end - time.monotonic()
            if left <= 0:
                break
            for key, _events in selector.select(left):
                try:
                    data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                except ConnectionResetError:
                    data = b""
                if not data:
                    closed.add(key.data)
                    selector.unregister(key.fileobj)
    return closed


HALF_OPEN = 1100


def test_half_open_connections_neither_starve_the_socket_nor_stay(
    served: tuple[Path, int],
) -> None:
    """Case 6: 1,100 connections to the TCP port, each sending half a header, on a
    server allowed 1,024 descriptors. The owner's client on the unix socket still
    gets its answer; connections past the TCP port's bound are answered 503 and
    closed at once; the rest are closed when the request deadline passes."""
    import resource

    root, port = served
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < HALF_OPEN + 200:
        pytest.skip(f"this test needs {HALF_OPEN + 200} open files (hard limit {hard})")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, HALF_OPEN + 200), hard))
    held: list[socket.socket] = []
    try:
        for _ in range(HALF_OPEN):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(b"GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ")
            held.append(sock)
        opened = time.monotonic()
        server = delegate.find(root)
        assert server is not None and server.family == socket.AF_UNIX
        answer = delegate.get(server, "/v1/status", timeout=5)
        assert answer is not None and "head" in answer, answer
        # Past the TCP port's bound, connections are closed at once (a 503 sent).
        at_once = _closed(held, 0.5)
        assert len(at_once) >= HALF_OPEN - connections.MAX_TCP - 20, len(at_once)
        # The bound's own were still held when the owner's client was answered.
        assert len(at_once) < HALF_OPEN
        # The rest when the deadline passes.
        assert len(_closed(held, opened + DEADLINE + 5 - time.monotonic())) == HALF_OPEN
    finally:
        for sock in held:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_an_unauthenticated_body_is_refused_before_it_is_read(served: tuple[Path, int]) -> None:
    """Case 6: a request declaring a body just under the 10 MiB bound and no
    valid token is answered 401 from its headers, without the server waiting for
    (or parsing) the body; the review page's login form takes a small body only."""
    _root, port = served
    for path, token, status in (
        ("/v1/daily", None, 401),
        ("/v1/daily", "hth_" + "x" * 43, 401),
        ("/mcp", None, 401),
        ("/ui/login", None, 413),
    ):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            head = [
                f"POST {path} HTTP/1.1",
                "Host: 127.0.0.1",
                "Content-Type: application/json",
                f"Content-Length: {10 * 1024 * 1024 - 1}",
            ]
            if token:
                head.append(f"Authorization: Bearer {token}")
            sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + b'{"text": "')
            answer = sock.recv(65536)
        assert answer.startswith(f"HTTP/1.1 {status}".encode()), (path, answer[:200])
