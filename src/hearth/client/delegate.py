"""Asking this home's running server instead of building the home in the command.

A running ``hearth serve`` (or ``hearth mcp``) already holds the repository, the
index and a status snapshot kept current by its watcher and worker, and says
where it listens in ``.git/hearth/server.json`` (with its hook key, readable
only by the home's owner; see docs/hooks.md). A command whose answer the server
has asks it over loopback (or its unix socket) with that key: one small request
instead of opening the home. Any failure (no server, a stale file, a refusal, a
timeout, an answer not understood) answers None and the command does the work
itself. Finding the server and the exchange itself are ``transport``'s.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from hearth.client import transport
from hearth.client.transport import FRESH_SECONDS, TIMEOUT, Server, exchange, find, get
from hearth.store import private, server_file, state

__all__ = [
    "TIMEOUT",
    "Server",
    "ask",
    "claim_home",
    "exchange",
    "find",
    "find_or_start",
    "get",
    "let_go",
    "send",
    "start_server",
]


#: Seconds a CLI write waits for the server's answer (``transport.WRITE_SECONDS``).
WRITE_SECONDS = transport.WRITE_SECONDS

#: Turns starting a server on demand on or off for this process (on|off).
SERVER_ENV = "HEARTH_SERVER"
#: Seconds a started server has to come up (its start-up pass included).
START_SECONDS = 60.0


def on_demand(root: Path) -> bool:
    """Whether a client may start this home's server: ``HEARTH_SERVER``, else
    hearth.toml's ``[server] on_demand`` (default on)."""
    given = os.environ.get(SERVER_ENV, "").strip().lower()
    if given in ("on", "off"):
        return given == "on"
    import tomllib  # noqa: PLC0415  (start-up: only when no server answers)

    try:
        settings = tomllib.loads((root / "hearth.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True
    server = settings.get("server", {})
    value = server.get("on_demand", True) if isinstance(server, dict) else True
    return value is not False


def find_or_start(root: Path, start: bool) -> Server | None:
    """The home's live server; when none runs and ``start``, one started now."""
    found = find(root)
    if found is not None or not start or not (root / "hearth.toml").is_file():
        return found  # only a home gets a server (a plain repository is refused later)
    log = start_server(root)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        found = find(root)
        if found is not None:
            return found
        time.sleep(0.02)
    tail = _tail(log)
    raise RuntimeError(f"the home's server did not start ({tail or 'no reason logged'})")


def start_server(root: Path) -> Path:
    """Start the home's server in the background, without waiting for it; where it logs.
    One that finds another server serving the home leaves at once (``cli/serving.py``)."""
    state_dir = private.private_dir(root / ".git" / state.FOLDER)
    # -P: ``-m`` would put this client's working folder first on the server's
    # module path, and any folder (a shared one, a home a commit wrote to) may
    # hold a ``.py`` file of someone else's.
    argv = [sys.executable, "-P", "-m", "hearth", "--home", str(root), "serve", "--on-demand"]
    _spawn_detached(argv, state_dir / server_file.SERVER_LOG)
    return state_dir / server_file.SERVER_LOG


def claim_home(root: Path) -> int | None:
    """The home's server lock, for a command that does the server's work in its
    own process (``reindex --full`` when no server runs: one build, with no
    server's start before it). While it is held no server starts: one started
    on demand meanwhile waits for it (``cli/serving.py``), so the index has one
    writer, and the client that started that one gets its answers from it once
    the command is done. The descriptor (closing it lets go); None when a server
    serves or is starting (it holds the lock), when starting one is turned off,
    or when ``root`` is not a home: then the command asks the server, or works
    alone."""
    if find(root) is not None or not (root / "hearth.toml").is_file() or not on_demand(root):
        return None
    held = server_file.hold_lock(private.private_dir(root / ".git" / state.FOLDER))
    if held is not None:
        server_file.say_holder(held, server_file.REBUILDING)
    return held


def let_go(held: int) -> None:
    """Let go of the server lock ``claim_home`` took."""
    server_file.say_holder(held)
    os.close(held)


def _spawn_detached(argv: list[str], log_path: Path) -> None:
    """Start ``argv`` in a session of its own whose parent is not this process
    (a fork that exits at once): the server outlives the client, and a server
    killed later is reaped by init, not left a zombie that looks alive."""
    # subprocess costs a light command (status) as much as git's own run.
    import subprocess  # noqa: PLC0415

    with os.fdopen(private.open_log(log_path), "ab") as log:
        child = os.fork()
        if child == 0:  # pragma: no cover  (the intermediate process)
            try:
                os.setsid()
                subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, close_fds=True
                )
            finally:
                os._exit(0)
        os.waitpid(child, 0)


def _tail(path: Path) -> str:
    try:
        lines = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1] if lines else ""


def ask(root: Path, path: str, keys: tuple[str, ...]) -> tuple[dict[str, Any] | None, str]:
    """The running server's answer to ``GET path`` for a read whose local form runs
    a reconcile pass first (its ``keys``, in that order), and how it was reached.

    The server's answer is taken only when its index holds the files as a pass
    would leave them. A search answer says so itself (``fresh``, and while a
    pass is pending or running the reason): right after an edit, waiting the
    moment its watcher and worker take beats a pass of this command's own. Any
    other answer is taken when the server's status snapshot is current. When
    the server does not catch up in time, refuses (503 while it starts, a 4xx
    the command will explain itself), does not answer, or answers without one
    of ``keys``: None, with a note for ``--verbose``."""
    try:
        server = find(root) or find_or_start(root, on_demand(root))
    except RuntimeError:
        server = None
    if server is None:
        return None, ""
    missed = f" (the server at {server.url} had no current answer)"
    deadline = time.monotonic() + FRESH_SECONDS
    says_fresh = path.startswith("/v1/search")
    while True:
        if says_fresh:
            data = get(server, path)
            fresh = data is not None and data.get("fresh") is not False
            catching_up = data is not None and "pending" in str(data.get("stale_reason"))
        else:
            status = get(server, "/v1/status")
            snapshot = (status or {}).get("snapshot")
            fresh = isinstance(snapshot, dict) and bool(snapshot.get("current"))
            catching_up = status is not None
            data = get(server, path) if fresh else None
        if fresh or not catching_up or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    if not fresh or data is None or not all(key in data for key in keys):
        return None, missed
    return {key: data[key] for key in keys}, f"answered by the server at {server.url}"


def send(
    root: Path,
    method: str,
    path: str,
    body: dict[str, Any] | None,
    actor: str,
    *,
    start: bool = True,
) -> tuple[int, dict[str, Any]] | None:
    """A write asked of the home's server (started on demand when none runs and
    ``start``), as
    ``actor`` with the person's scope: (status, JSON body); None when no server
    could be reached, so the command does the work itself (``body`` None: a
    request without one, as a read's). A server that took
    the request and then did not answer is an error, never a second try here:
    the write may have landed."""
    try:
        server = find(root) or find_or_start(root, start and on_demand(root))
    except RuntimeError:
        server = None
    if server is None:
        return None
    headers = {
        "Authorization": "Bearer " + server_file.local_token(server.key, "admin", actor),
        "Accept": "application/json",
    }
    if body is not None:
        headers["Content-Type"] = "application/json"
    payload = json.dumps(body).encode() if body is not None else b""
    try:
        status, _headers, raw = exchange(server, method, path, headers, payload, WRITE_SECONDS)
    except (ConnectionRefusedError, FileNotFoundError):
        return None  # nothing was sent
    except TimeoutError as exc:
        # Never sent again: a stopped server that resumes still makes the write.
        raise OSError(
            f"the home's server at {server.url} did not answer in {WRITE_SECONDS:.0f} s; "
            "it may still write it; check 'hearth status' and 'git log -1' before trying again"
        ) from exc
    except OSError as exc:
        raise OSError(
            f"the home's server at {server.url} took the request but did not answer ({exc}); "
            "see 'git log -1' before trying again"
        ) from exc
    try:
        data = json.loads(raw)
    except ValueError:
        data = {"error": {"message": raw[:200].decode(errors="replace")}}
    return status, data if isinstance(data, dict) else {}


def refusal(data: dict[str, Any], status: int) -> str:
    """The message of a server's error body."""
    error = data.get("error")
    message = error.get("message") if isinstance(error, dict) else None
    return str(message or f"the home's server answered {status}")


def query(path: str, params: dict[str, str | int | None]) -> str:
    """``path`` with the given parameters (those not None) as its query string."""
    from urllib.parse import urlencode  # noqa: PLC0415  (start-up: only when a server runs)

    given = {name: value for name, value in params.items() if value is not None}
    return f"{path}?{urlencode(given)}" if given else path
