"""Asking this home's running server instead of building the home in the command.

A running ``hearth serve`` (or ``hearth mcp``) already holds the repository, the
index and a status snapshot kept current by its watcher and worker, and says
where it listens in ``.git/hearth/server.json`` (with its hook key, readable
only by the home's owner; see docs/hooks.md). A command whose answer the server
has asks it over loopback (or its unix socket) with that key: one small request
instead of opening the home. Any failure (no server, a stale file, a refusal, a
timeout, an answer not understood) answers None and the command does the work
itself. Plain sockets: ``http.client`` would bring ``ssl`` into every start-up.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hearth.store import server_file, state

if TYPE_CHECKING:
    import socket

#: Seconds to connect and to wait for the answer before doing the work here.
TIMEOUT = 5.0
#: The largest answer read (a status of a big home is tens of kilobytes).
MAX_ANSWER = 16 * 1024 * 1024
_LOOPBACK = {"127.0.0.1": "127.0.0.1", "localhost": "127.0.0.1", "::1": "::1"}
#: A server bound to every address is asked on loopback.
_ANY_ADDRESS = {"0.0.0.0": "127.0.0.1", "::": "::1"}


@dataclass(frozen=True)
class Server:
    """Where this home's live server listens."""

    url: str
    key: str
    #: (family, address) to connect to: a loopback (host, port) or a socket path.
    family: int
    address: Any
    host_header: str


def find(root: Path) -> Server | None:
    """This home's live server, from ``server.json``; None when none runs."""
    try:
        data = json.loads((root / ".git" / state.FOLDER / state.SERVER).read_text())
        pid = int(data["pid"])
        url, key = str(data["url"]), str(data["hook_key"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not server_file.alive(pid):
        return None
    if not key:
        return None
    import socket  # noqa: PLC0415  (start-up: only when a server runs)

    uds = data.get("uds")
    if isinstance(uds, str) and uds:
        # The home's own socket: no port, and nothing beyond this machine.
        return Server(url, key, socket.AF_UNIX, uds, "localhost")
    if url.startswith("unix:"):
        return Server(url, key, socket.AF_UNIX, url.removeprefix("unix:"), "localhost")
    if not url.startswith("http://"):
        return None
    hostport = url.removeprefix("http://").split("/", 1)[0]
    host, _, port = hostport.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    host = _LOOPBACK.get(host) or _ANY_ADDRESS.get(host) or ""
    if not host or not port.isdigit():
        return None  # never send the key beyond this machine
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    header = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return Server(url, key, family, (host, int(port)), header)


def get(server: Server, path: str, timeout: float = TIMEOUT) -> dict[str, Any] | None:
    """``GET path`` of the server, its JSON object on a 200; None otherwise."""
    try:
        answer = exchange(
            server, "GET", path, {"Authorization": f"Bearer {server.key}"}, b"", timeout
        )
    except OSError:
        return None
    status, _headers, body = answer
    if status != 200:
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def exchange(
    server: Server,
    method: str,
    path: str,
    headers: dict[str, str],
    body: bytes,
    timeout: float = TIMEOUT,
) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 request to the server: (status, headers with lower-case names,
    body). Raises OSError when the server cannot be reached or the answer is cut
    short or not HTTP."""
    import socket  # noqa: PLC0415  (start-up: only when a server runs)

    lines = [f"{method} {path} HTTP/1.1", f"Host: {server.host_header}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if body or method != "GET":
        lines.append(f"Content-Length: {len(body)}")
    request = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
    with socket.socket(server.family, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(server.address)
        sock.sendall(request)
        answer = _read_all(sock)
    parsed = _parse_answer(answer)
    if parsed is None:
        raise OSError("the server's answer was cut short or not HTTP")
    return parsed


def ask(root: Path, path: str, keys: tuple[str, ...]) -> tuple[dict[str, Any] | None, str]:
    """The running server's answer to ``GET path`` for a read whose local form runs
    a reconcile pass first (its ``keys``, in that order), and how it was reached.
    The server answers only when its status snapshot is current (its watcher runs
    and no pass is pending or running: its index holds the files as a pass would
    leave them); otherwise, or when it refuses (503 while it starts, a 4xx the
    command will explain itself), does not answer, or answers without one of
    ``keys``, None, with a note for ``--verbose``."""
    server = find(root)
    if server is None:
        return None, ""
    missed = f" (the server at {server.url} had no current answer)"
    status = get(server, "/v1/status")
    snapshot = (status or {}).get("snapshot")
    if not isinstance(snapshot, dict) or not snapshot.get("current"):
        return None, missed
    data = get(server, path)
    if data is None or not all(key in data for key in keys):
        return None, missed
    return {key: data[key] for key in keys}, f"answered by the server at {server.url}"


def query(path: str, params: dict[str, str | int | None]) -> str:
    """``path`` with the given parameters (those not None) as its query string."""
    from urllib.parse import urlencode  # noqa: PLC0415  (start-up: only when a server runs)

    given = {name: value for name, value in params.items() if value is not None}
    return f"{path}?{urlencode(given)}" if given else path


def _read_all(sock: socket.socket) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_ANSWER:
        chunk = sock.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _parse_answer(answer: bytes) -> tuple[int, dict[str, str], bytes] | None:
    head, sep, body = answer.partition(b"\r\n\r\n")
    if not sep:
        return None
    lines = head.decode("latin-1").split("\r\n")
    status_line = lines[0].split(" ", 2)
    if (
        len(status_line) < 2
        or not status_line[0].startswith("HTTP/1.")
        or not status_line[1].isdigit()
    ):
        return None
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = _unchunk(body)
    elif "content-length" in headers:
        try:
            length = int(headers["content-length"])
        except ValueError:
            return None
        if len(body) != length:
            return None  # cut short
    return int(status_line[1]), headers, body


def _unchunk(body: bytes) -> bytes:
    out: list[bytes] = []
    while True:
        size_line, sep, rest = body.partition(b"\r\n")
        if not sep:
            return b""
        try:
            size = int(size_line.split(b";", 1)[0], 16)
        except ValueError:
            return b""
        if size == 0:
            return b"".join(out)
        out.append(rest[:size])
        body = rest[size + 2 :]
