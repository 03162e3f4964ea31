"""A real ``hearth serve`` on loopback, driven over real HTTP (http.client, so
paths reach the server exactly as written, unnormalized)."""

from __future__ import annotations

import atexit
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GIT_IDENTITY

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def isolated_env(home_dir: Path) -> dict[str, str]:
    """The environment of a test process: no developer git config, no default home."""
    env = {k: v for k, v in os.environ.items() if k not in ("HEARTH_HOME", "HEARTH_ACTOR")}
    return {**env, **GIT_IDENTITY, "HOME": str(home_dir)}


def hearth(*args: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        [str(BIN / "hearth"), *args],
        capture_output=True,
        text=True,
        check=False,
        env=env or os.environ.copy(),
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@dataclass
class Reply:
    status: int
    body: Any
    raw: bytes

    @property
    def error_code(self) -> str:
        return str(self.body["error"]["code"])


@dataclass
class Server:
    root: Path
    port: int
    proc: subprocess.Popen[bytes]
    tokens: dict[str, str] = field(default_factory=dict)
    stderr: str = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = "admin",
        raw_body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {self.tokens.get(token, token)}"
        data = raw_body
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        try:
            conn.request(method, path, body=data, headers=sent)
            response = conn.getresponse()
            raw = response.read()
        finally:
            conn.close()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return Reply(response.status, parsed, raw)

    def get(self, path: str, **kwargs: Any) -> Reply:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> Reply:
        return self.request("POST", path, body, **kwargs)

    def put(self, path: str, body: Any = None, **kwargs: Any) -> Reply:
        return self.request("PUT", path, body, **kwargs)

    def search(self, query: str, **params: str) -> set[str]:
        from urllib.parse import urlencode

        reply = self.get("/v1/search?" + urlencode({"q": query, "limit": "200", **params}))
        assert reply.status == 200, reply.body
        return {hit["path"] for hit in reply.body["hits"]}

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stderr is not None and not self.proc.stderr.closed:
            self.stderr = self.proc.stderr.read().decode(errors="replace")
            self.proc.stderr.close()
        return int(self.proc.returncode)


def make_tokens(root: Path) -> dict[str, str]:
    """A read, a write and an admin token of the home at ``root``, made in this
    process through the tokens file's own store, as ``hearth token create`` makes
    them with no server running: three processes fewer for every server a test
    starts (the command itself is tested in tests/cli/test_writes_served.py and
    tests/api/test_first_minutes.py)."""
    from hearth import wiring
    from hearth.domain.clock import utc_now

    store = wiring.token_store(root)
    return {
        scope: store.create(f"t-{scope}-{time.monotonic_ns()}", scope, utc_now())[0]
        for scope in ("read", "write", "admin")
    }


def start_server(root: Path, *extra: str, env: dict[str, str] | None = None) -> Server:
    tokens = make_tokens(root)
    port = free_port()
    proc = subprocess.Popen(
        [str(BIN / "hearth"), "--home", str(root), "serve", "--port", str(port), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env or os.environ.copy(),
    )
    server = Server(root, port, proc, tokens)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            output = proc.stderr.read() if proc.stderr else b""
            if proc.stderr:
                proc.stderr.close()
            raise AssertionError(f"server exited: {output.decode(errors='replace')}")
        try:
            if server.get("/healthz", token=None).status == 200:
                return server
        except OSError:
            pass
        time.sleep(0.05)  # not listening yet, or 503 while its start-up pass runs
    server.stop()
    raise AssertionError("server did not come up in 30 s")


#: Variables that differ from test to test but that ``hearth init`` never reads.
_NOT_READ_BY_INIT = ("HOME", "PYTEST_CURRENT_TEST")
#: Homes the real ``hearth init`` made in this process, by the environment it ran in.
_FIRST_HOMES: dict[frozenset[tuple[str, str]], Path] = {}


def _first_home(env: dict[str, str]) -> Path:
    """The home ``hearth init`` made in ``env`` (with a HOME of its own, as empty
    as a test's), made on the first call for that environment."""
    key = frozenset((k, v) for k, v in env.items() if k not in _NOT_READ_BY_INIT)
    if key not in _FIRST_HOMES:
        folder = Path(tempfile.mkdtemp(prefix="hearth-first-home-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        (folder / "user").mkdir()
        hearth("init", str(folder / "home"), env={**env, "HOME": str(folder / "user")})
        _FIRST_HOMES[key] = folder / "home"
    return _FIRST_HOMES[key]


def _git_config_in(user_home: str) -> bool:
    """Whether a HOME holds a git config of its own (that ``hearth init`` reads)."""
    home = Path(user_home or "/nonexistent")
    return (home / ".gitconfig").exists() or (home / ".config" / "git").exists()


def make_home(path: Path, env: dict[str, str] | None = None) -> Path:
    """A new home at ``path``, as ``hearth init`` makes it in ``env``.

    ``hearth init`` runs once per environment in each test process; every other
    home is a copy of that first one, the files with their modes (no path, id or
    clock of the machine's is in a home but its commit's time, which is the first
    home's). A process and about 0.4 s of CPU less each (tests/test_homes_made.py
    checks a copy is what init makes). The real ``hearth init`` still runs where
    a copy would not be the same (a folder that already holds files, a git config
    of the person's), and where ``make_home_by_init`` is called."""
    env = env if env is not None else os.environ.copy()
    empty = not path.exists() or (path.is_dir() and not any(path.iterdir()))
    configured = _git_config_in(env.get("HOME", "")) or {
        "GIT_CONFIG_GLOBAL",
        "XDG_CONFIG_HOME",
    } & set(env)
    if not empty or configured:
        return make_home_by_init(path, env)
    shutil.copytree(
        _first_home(env), path, symlinks=True, copy_function=shutil.copy, dirs_exist_ok=True
    )
    return path


def make_home_by_init(path: Path, env: dict[str, str] | None = None) -> Path:
    """A new home at ``path``, made by the real ``hearth init``."""
    hearth("init", str(path), env=env)
    return path


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server per test module, for tests that do not need a pristine home."""
    env = isolated_env(tmp_path_factory.mktemp("userhome"))
    root = make_home(tmp_path_factory.mktemp("shared") / "home", env)
    server = start_server(root, env=env)
    yield server
    assert server.stop() == 0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    server = start_server(make_home(tmp_path / "home"))
    yield server
    assert server.stop() == 0
    assert "Traceback" not in server.stderr, server.stderr


def wait_for(predicate: Any, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())
