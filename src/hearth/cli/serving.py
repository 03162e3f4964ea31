"""One server per home: claiming the home, binding before saying so, idling out.

``hearth serve`` (in the foreground, never idles out) and the server a thin
client starts on demand (``hearth serve --on-demand``, detached, logging to
``.git/hearth/server.log``) are the same program. Before anything else it
takes the home's server lock (``store/server_file.py``):

- held by a server started on demand, a foreground ``hearth serve`` takes
  over: it asks that one to stop (SIGTERM: uvicorn finishes the requests in
  flight, and thin clients find the new server on their next request) and
  waits for the lock;
- held by a foreground server, a second ``hearth serve`` is refused, naming
  the first (pid, address, since when); a second server started on demand
  leaves quietly (exit 0): the home is served, which is what its client wanted;
- held by ``hearth reindex --full`` rebuilding the index in its own process
  (it holds the lock as a server would, and says so in the lock's file), a
  server started on demand waits for it and serves once it is free, so the
  client that started it gets its answer when the rebuild is done; held by a
  server that is starting or stopping, it leaves at once, as above.

Then it binds its sockets (the home's unix socket always; TCP unless started
on demand) and only then says it serves: a port in use is an error before any
"serving" line, and server.json names only the live server. A server started
on demand stops after ``[server] idle_minutes`` without a request; any server
stops at once when its home folder is gone (``store/presence.py``).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hearth.errors import HearthError
from hearth.store import server_file

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

#: Seconds a foreground server waits for a server started on demand to hand over.
TAKE_OVER_SECONDS = 20.0
#: Seconds a server started on demand waits for a rebuilding command's lock
#: (as long as its client waits for it, ``client/delegate.py``).
TURN_SECONDS = 60.0
#: Seconds between two looks at the lock and the server record while waiting.
TURN_POLL_SECONDS = 0.05
#: Seconds between two looks at the home and the idle time.
WATCH_SECONDS = 0.25
#: Overrides ``[server] idle_minutes`` for tests and scripts (seconds).
IDLE_ENV = "HEARTH_IDLE_SECONDS"


def state_dir_of(root: Path) -> Path:
    return root / ".git" / "hearth"


def claim(state_dir: Path, on_demand: bool) -> int | None:
    """The server lock for this process; None when this on-demand start is not
    needed (another server serves the home). Raises when a foreground server
    already serves it."""
    fd = server_file.hold_lock(state_dir)
    if fd is not None:
        server_file.say_holder(fd)  # a killed rebuild's note, if any, is not true now
        return fd
    if on_demand:
        return _turn(state_dir)
    record = server_file.read(state_dir) or {}
    if record.get("mode") == "on-demand":
        pid = int(str(record["pid"]))
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + TAKE_OVER_SECONDS
        while time.monotonic() < deadline:
            fd = server_file.hold_lock(state_dir)
            if fd is not None:
                return fd
            time.sleep(0.05)
        raise HearthError(
            f"the server started on demand (pid {pid}) did not stop within "
            f"{TAKE_OVER_SECONDS:.0f} s; stop it ('kill {pid}') and try again"
        )
    if not record:
        raise HearthError(
            "another server is starting for this home, or 'hearth reindex --full' is "
            "rebuilding its index; try again in a moment ('hearth status' names a "
            "server once it serves)"
        )
    raise HearthError(
        f"a server already serves this home: pid {record.get('pid')} at {record.get('url')} "
        f"(started {record.get('started') or '?'} by {record.get('mode') or 'hearth serve'}); "
        f"stop it first ('kill {record.get('pid')}')"
    )


def _turn(state_dir: Path) -> int | None:
    """The lock once a rebuilding ``reindex --full`` lets go of it, for a server
    started on demand; None at once when a server holds it (one starting, or
    one handing over to a foreground ``hearth serve``, which must win the lock),
    when the home is removed meanwhile (its lock file with it: nothing is made
    there again), or after ``TURN_SECONDS``."""
    deadline = time.monotonic() + TURN_SECONDS
    while server_file.held_to_rebuild(state_dir) and time.monotonic() < deadline:
        time.sleep(TURN_POLL_SECONDS)
        try:
            fd = server_file.hold_lock(state_dir, make=False)
        except FileNotFoundError:
            return None
        if fd is not None:
            server_file.say_holder(fd)
            return fd
    return None


def bind_unix(path: Path, *, held: bool = False) -> socket.socket:
    """A listening unix socket at ``path``, readable and writable by its owner only.

    Only a socket is ever replaced, never a file, a folder or a symlink (``--uds``
    names any path). ``held``: the caller holds the home's server lock, so a
    socket left there is a killed server's; otherwise one that still answers
    belongs to a live process and is refused."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None:
        if not stat.S_ISSOCK(mode):
            raise HearthError(
                f"{path} exists and is not a socket; hearth never deletes it to listen "
                "there: remove it yourself or choose another path"
            )
        if not held and _answers(path):
            raise HearthError(f"another process listens on {path}; choose another path")
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(str(path))
    finally:
        os.umask(old)
    path.chmod(0o600)
    sock.listen(128)
    return sock


def _answers(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def bind_tcp(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise HearthError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.listen(2048)
    return sock


class Activity:
    """ASGI middleware: requests in flight and when the last one ended."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.in_flight = 0
        self.last = time.monotonic()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.in_flight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1
            self.last = time.monotonic()


def idle_seconds(minutes: int) -> float:
    given = os.environ.get(IDLE_ENV, "")
    try:
        return float(given) if given else minutes * 60.0
    except ValueError:
        return minutes * 60.0


def watch_idle(
    server: Any, activity: Activity, gone: Callable[[], bool], idle: float | None
) -> None:
    """Stop ``server`` (a uvicorn Server) once it is idle for ``idle`` seconds (None:
    never) or its home is gone (``gone``: deleted or replaced, whoever started the
    server); runs on a daemon thread.

    A home that is gone stops the server at once (the requests in flight end,
    and the service stops its passes as on SIGTERM): nothing it could still
    answer is true, and its passes would refuse to touch the deleted tree."""

    def run() -> None:
        while not server.should_exit:
            time.sleep(WATCH_SECONDS)
            if gone():
                logging.getLogger("uvicorn.error").warning(
                    "hearth: the home folder is gone; the server stops"
                )
                server.should_exit = True
                return
            quiet = activity.in_flight == 0 and time.monotonic() - activity.last > (idle or 0)
            if idle is not None and quiet:
                server.should_exit = True

    threading.Thread(target=run, name="hearth-idle", daemon=True).start()
