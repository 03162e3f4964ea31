"""Finding this home's running server and one HTTP/1.1 exchange with it.

The part of the thin clients a runtime's prompt hook waits for
(``client/hook.py``), so it loads only what Python starts with, ``json`` and,
when a server runs, ``socket``: no dataclasses, typing, pathlib or the store's
modules (each costs a few milliseconds of a start-up the hook is measured by).
Plain sockets rather than ``http.client``, which would bring ``ssl``.

A running ``hearth serve`` (or ``hearth mcp``) says where it listens in
``.git/hearth/server.json`` (the store's ``state.SERVER``, with its hook key,
readable only by the home's owner; see docs/hooks.md). The key is sent only to
the home's own socket, in a folder no other user may write to, or to loopback.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False  # typing's own costs a start-up this module is kept out of
if TYPE_CHECKING:
    import socket
    from typing import Any

#: Seconds to connect and to wait for the answer before doing the work here.
TIMEOUT = 5.0
#: Seconds a read waits for the server's index to catch up with the files.
FRESH_SECONDS = 3.0
#: Seconds a CLI write waits for the server's answer before giving up (it may
#: wait up to half of that for another write's lock; docs/operations.md).
WRITE_SECONDS = 60.0
#: The largest answer read (a status of a big home is tens of kilobytes).
MAX_ANSWER = 16 * 1024 * 1024
#: ``.git/`` + the store's ``state.FOLDER`` + ``state.SERVER``, spelled here so
#: that reading it loads none of the store (tests/client/test_transport.py
#: holds the two side by side).
RECORD = os.path.join(".git", "hearth", "server.json")  # noqa: PTH118  (no pathlib: start-up)
#: The servers (their urls) that took a request of this process and did not
#: answer it in time: stopped or stuck, and maybe holding the home's locks, so
#: the command doing the work itself waits for those only briefly.
STUCK: list[str] = []
_LOOPBACK = {"127.0.0.1": "127.0.0.1", "localhost": "127.0.0.1", "::1": "::1"}
#: A server bound to every address is asked on loopback.
_ANY_ADDRESS = {"0.0.0.0": "127.0.0.1", "::": "::1"}


class Server:
    """Where this home's live server listens."""

    __slots__ = ("address", "family", "host_header", "key", "url")

    def __init__(self, url: str, key: str, family: int, address: Any, host_header: str) -> None:
        self.url = url
        self.key = key
        #: (family, address) to connect to: a loopback (host, port) or a socket path.
        self.family = family
        self.address = address
        self.host_header = host_header

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Server) and all(
            getattr(self, name) == getattr(other, name) for name in self.__slots__
        )

    def __hash__(self) -> int:
        return hash((self.url, self.key))

    def __repr__(self) -> str:
        return f"Server(url={self.url!r}, address={self.address!r})"


def find(root: str | os.PathLike[str]) -> Server | None:
    """This home's live server, from ``server.json``; None when none runs."""
    place = os.path.join(root, RECORD)  # noqa: PTH118
    try:
        with open(place, "rb") as record:
            data = json.loads(record.read())
        pid = int(data["pid"])
        url, key = str(data["url"]), str(data["hook_key"])
        state, since = data.get("state"), data.get("since")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not alive(pid, since) or not key:
        return None
    # A copy of the home (cp -a while its server runs) holds the original's
    # record: that server serves the original, never this copy.
    if isinstance(state, str) and state != os.path.realpath(os.path.dirname(place)):  # noqa: PTH120
        return None
    import socket  # noqa: PLC0415  (start-up: only when a server runs, to reach it)

    uds = data.get("uds")
    if isinstance(uds, str) and uds and _own_socket(uds):
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


def alive(pid: int, since: object = None) -> bool:
    """Whether process ``pid`` runs, is no zombie, and is the process that
    started ``since`` when its record says (the store's ``server_file.alive``,
    without pathlib)."""
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as proc:
            stat = proc.read()
    except OSError:
        return True  # no /proc: kill's answer is all there is
    fields = stat.rpartition(b")")[2].split()
    if fields[:1] == [b"Z"]:
        return False
    return not isinstance(since, str) or fields[19:20] == [since.encode()]


def _own_socket(path: str) -> bool:
    """Whether ``path`` is a socket of this user's in a folder no other user may
    write to: the key is sent only there (another user's socket put in place of
    the server's would receive it)."""
    import stat  # noqa: PLC0415  (loaded with os already: free)

    try:
        sock = os.lstat(path)
        folder = os.lstat(os.path.dirname(path) or ".")  # noqa: PTH120
    except OSError:
        return False
    uid = os.getuid()
    return (
        stat.S_ISSOCK(sock.st_mode)
        and sock.st_uid == uid
        and stat.S_ISDIR(folder.st_mode)
        and folder.st_uid == uid
        and not folder.st_mode & 0o022
    )


def get(server: Server, path: str, timeout: float | None = None) -> dict[str, Any] | None:
    """``GET path`` of the server, its JSON object on a 200; None otherwise
    (``timeout``: the whole exchange's seconds, ``TIMEOUT`` when None)."""
    timeout = TIMEOUT if timeout is None else timeout
    try:
        answer = exchange(
            server, "GET", path, {"Authorization": f"Bearer {server.key}"}, b"", timeout
        )
    except TimeoutError:
        import sys  # noqa: PLC0415  (built in: free)

        STUCK.append(server.url)
        sys.stderr.write(
            f"hearth: the home's server at {server.url} did not answer in {timeout:.0f} s; "
            "doing it here\n"
        )
        return None
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
    short or not HTTP, and ``TimeoutError`` when the whole exchange took over
    ``timeout`` seconds (a server stopped or stuck still accepts connections:
    a timeout per read alone would wait on for one that trickles)."""
    import socket  # noqa: PLC0415  (start-up: only when a server runs)
    import time  # noqa: PLC0415  (built in: free)

    lines = [f"{method} {path} HTTP/1.1", f"Host: {server.host_header}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if body or method != "GET":
        lines.append(f"Content-Length: {len(body)}")
    request = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
    with socket.socket(server.family, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(server.address)
        sock.sendall(request)
        answer = _read_all(sock, time.monotonic() + timeout)
    parsed = _parse_answer(answer)
    if parsed is None:
        raise OSError("the server's answer was cut short or not HTTP")
    return parsed


def _read_all(sock: socket.socket, deadline: float) -> bytes:
    import time  # noqa: PLC0415  (built in: free)

    chunks: list[bytes] = []
    size = 0
    while size <= MAX_ANSWER:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("timed out")
        sock.settimeout(left)
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
