"""``.git/hearth/server.json``: which process serves the home and where, written by
the server and read by the git hooks (in shell and Python), the CLI and the
thin clients (``hearth mcp``'s relay, ``agent-hook``).

One line of JSON (``json.dumps``'s default spacing: the hook shims read it in
shell), mode 0600 because it holds the server's hook key, replaced atomically.

One server per home: the serving process holds an flock on
``.git/hearth/server.lock`` for as long as it runs (the kernel lets go of it
when the process dies, ``kill -9`` included), and only the lock's holder
writes server.json or removes it. It also listens on a unix socket of the
home's own (``server.sock`` beside it; when that path would be too long for
a socket, a short one in ``$XDG_RUNTIME_DIR`` or in a folder hearth makes in
the system's temporary folder and checks is the user's alone), mode 0600:
the thin clients reach the server there with no port or token set-up, and
find it in server.json's ``uds``.

A thin client proves it may act for the home with a *local token*,
``hearth-local.<scope>.<actor>.<hook key>``: the hook key is the secret (new
on every start, readable only by the home's owner), and the scope and actor
of the session (a stdio MCP session's ``--scope``, its actor) travel with it
to every request, so commits name the right actor.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
import stat
from pathlib import Path

from hearth.errors import HearthError
from hearth.store.private import private_dir
from hearth.store.state import SERVER

#: The flock the serving process holds while it serves.
SERVER_LOCK = "server.lock"
#: The home's local socket, beside server.json.
SOCKET = "server.sock"
#: Where the server started on demand writes what it prints.
SERVER_LOG = "server.log"
#: Longest socket path bound in place (the kernel's limit is 108 bytes).
_MAX_SOCKET_PATH = 100
LOCAL_TOKEN_PREFIX = "hearth-local"
#: The hook key's prefix: the secret guard knows it (domain/secret_text.py).
HOOK_KEY_PREFIX = "hthk_"
_SCOPES = ("read", "write", "admin")


def publish(
    state_dir: Path,
    url: str,
    started: str | None,
    hook_key: str,
    *,
    uds: str | None = None,
    mode: str = "serve",
) -> None:
    """Say that this process serves the home at ``url`` (and on the socket ``uds``);
    ``mode``: ``serve`` (in the foreground, never idles out) or ``on-demand``."""
    path = private_dir(state_dir) / SERVER
    temp = path.with_name(f".{SERVER}.tmp")
    data = {
        "url": url,
        "pid": os.getpid(),
        "started": started,
        "hook_key": hook_key,
        "uds": uds,
        "mode": mode,
        # When this process started (``process_start``): a process that later
        # takes this pid (a server killed with -9 leaves its record) is not it.
        "since": process_start(os.getpid()),
        # Which home's state this is: a copy of the home (cp -a while this
        # runs) carries this file along, and must not take this server for its own.
        "state": os.path.realpath(state_dir),
    }
    temp.unlink(missing_ok=True)
    with open(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as out:
        out.write(json.dumps(data))
    temp.replace(path)


def forget(state_dir: Path) -> None:
    """Remove the file if this process wrote it (a newer server's stays)."""
    path = state_dir / SERVER
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return
    if isinstance(data, dict) and data.get("pid") == os.getpid():
        path.unlink(missing_ok=True)


def alive(pid: int, since: object = None) -> bool:
    """Whether process ``pid`` runs: not gone, not a zombie (a killed server
    whose parent has not reaped it, as when no init reaps orphans in a
    container), and, when its record says ``since`` when it started, the process
    that started then (not one that took the pid of a server killed with -9)."""
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return True  # no /proc: kill's answer is all there is
    fields = stat.rpartition(b")")[2].split()
    if fields[:1] == [b"Z"]:
        return False
    return not isinstance(since, str) or fields[19:20] == [since.encode()]


def process_start(pid: int) -> str | None:
    """When process ``pid`` started, in clock ticks since the machine booted
    (``/proc/PID/stat``'s 22nd field; the hook shims read it there too), or
    None where there is no /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    field = stat.rpartition(b")")[2].split()[19:20]
    return field[0].decode() if field else None


def read(state_dir: Path) -> dict[str, object] | None:
    """The live server's record: None when there is none or its process is gone."""
    try:
        data = json.loads((state_dir / SERVER).read_text())
        pid = int(data["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(data, dict) or not names_this_home(data, state_dir):
        return None
    return data if alive(pid, data.get("since")) else None


def names_this_home(data: dict[str, object], state_dir: Path | str) -> bool:
    """Whether a server record read from ``state_dir`` was written there (and not
    copied along with the home); a record without ``state`` (an older server's)
    is taken at its word."""
    held = data.get("state")
    return not isinstance(held, str) or held == os.path.realpath(state_dir)


def hold_lock(state_dir: Path, *, make: bool = True) -> int | None:
    """Take the server lock without waiting; its descriptor (kept open for as long
    as this process serves), or None when another process holds it. ``make``
    False: the lock file must be there already (``FileNotFoundError`` when the
    home was removed meanwhile: nothing is made in it again)."""
    import fcntl  # noqa: PLC0415  (the server's; clients stay lean)

    if make:
        private_dir(state_dir)
    fd = os.open(state_dir / SERVER_LOCK, os.O_RDWR | (os.O_CREAT if make else 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


#: What the server lock's file says while ``hearth reindex --full`` holds the
#: lock to rebuild in its own process (a server holding it leaves it empty).
REBUILDING = b"reindex --full\n"


def say_holder(fd: int, note: bytes = b"") -> None:
    """Write ``note`` in the server lock's file, held on ``fd``: ``REBUILDING``, or
    nothing (a server; a rebuilding command before it lets go)."""
    os.ftruncate(fd, 0)
    if note:
        os.pwrite(fd, note, 0)


def held_to_rebuild(state_dir: Path) -> bool:
    """Whether the server lock's file says a command holds the lock to rebuild."""
    try:
        return (state_dir / SERVER_LOCK).read_bytes() == REBUILDING
    except OSError:
        return False


def socket_path(state_dir: Path) -> Path:
    """Where this home's server listens for its thin clients: ``server.sock`` in
    ``state_dir``; when that path is too long for a socket, a short name in
    ``$XDG_RUNTIME_DIR`` (a folder of the user's own), else in a folder of the
    system's temporary folder that hearth makes and then verifies (its owner,
    its mode, not a link). Raises ``HearthError`` for a folder that fails."""
    inside = state_dir / SOCKET
    if len(os.fsencode(inside)) <= _MAX_SOCKET_PATH:
        return inside
    # hashlib loads OpenSSL and tempfile random: MBs a thin client need not hold.
    import hashlib  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    digest = hashlib.sha256(os.fsencode(state_dir.resolve())).hexdigest()[:20]
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and Path(runtime).is_absolute() and private_folder_fault(Path(runtime)) is None:
        candidate = Path(runtime) / f"hearth-{digest}.sock"
        if len(os.fsencode(candidate)) <= _MAX_SOCKET_PATH:
            return candidate
    folder = Path(tempfile.gettempdir()) / f"hearth-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    fault = private_folder_fault(folder)
    if fault is not None:
        raise HearthError(
            f"the socket folder {folder} is not safe to use: {fault}, so another user "
            f"could put a socket of their own in place of the server's; remove it "
            f"('rm -r {folder}', as its owner or root) or set XDG_RUNTIME_DIR to a "
            "folder of your own, then try again"
        )
    return folder / f"{digest}.sock"


def private_folder_fault(folder: Path) -> str | None:
    """Why ``folder`` is not one only this user can reach (a folder, not a link,
    owned by this user, mode 0700 or tighter); None when it is."""
    try:
        info = os.lstat(folder)
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or exc})"
    if stat.S_ISLNK(info.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a folder"
    if info.st_uid != os.getuid():
        return f"it belongs to uid {info.st_uid}, not to you (uid {os.getuid()})"
    if info.st_mode & 0o077:
        return f"its mode is {stat.S_IMODE(info.st_mode):04o}, not 0700"
    return None


def new_hook_key() -> str:
    """A new run's hook key: random, with a prefix the secret guard refuses."""
    import secrets  # noqa: PLC0415  (the server's side)

    return HOOK_KEY_PREFIX + secrets.token_urlsafe(32)


def local_token(hook_key: str, scope: str, actor: str) -> str:
    encoded = base64.urlsafe_b64encode(actor.encode()).decode().rstrip("=")
    return f"{LOCAL_TOKEN_PREFIX}.{scope}.{encoded}.{hook_key}"


def parse_local_token(token: str, hook_key: str) -> tuple[str, str] | None:
    """(scope, actor) of a local token made with ``hook_key``; None for any other."""
    parts = token.split(".", 3)
    if len(parts) != 4 or parts[0] != LOCAL_TOKEN_PREFIX or parts[1] not in _SCOPES:
        return None
    import secrets  # noqa: PLC0415  (the server's side)

    if not secrets.compare_digest(parts[3].encode(), hook_key.encode()):
        return None
    try:
        actor = base64.urlsafe_b64decode(parts[2] + "=" * (-len(parts[2]) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    actor = " ".join(actor.split())
    return (parts[1], actor) if actor else None
