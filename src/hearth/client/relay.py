"""``hearth mcp`` as a thin client: MCP over stdio relayed to the home's one server.

A runtime starts ``hearth mcp`` for every session. Instead of serving a whole
home in each (a watcher, a reconcile worker, an index writer, vectors and a
model: much memory and seconds to start, and an index of its own
that does not see the other sessions' writes), it relays each JSON-RPC message
it reads on stdin to ``/mcp`` on the home's server, over the home's unix
socket, and writes each answer to stdout. It loads neither the MCP SDK nor
pydantic, the models or the index.

- **The server.** The live one named in ``.git/hearth/server.json``; when none
  runs, this starts one in the background (``hearth serve --on-demand``,
  detached, logging to ``.git/hearth/server.log``), which stops when idle.
  ``HEARTH_SERVER=off`` (or ``[server] on_demand = false`` in hearth.toml)
  turns the starting off: ``hearth mcp`` then serves in-process as before
  when no server runs.
- **Who.** Every request carries a local token (``store/server_file.py``):
  the server's hook key (readable only by the home's owner) with this
  session's scope and actor, so commits name the actor as an in-process
  session would.
- **A server that goes away** (stopped, idled out, killed) is found or started
  again on the next message, and the session's ``initialize`` is replayed to
  it first, so the runtime never sees the change.
- **End of input.** Messages are answered in order, one at a time: every
  request read has its answer written before this exits.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import IO, Any

from hearth.client import delegate
from hearth.store import server_file

#: Seconds one relayed request may take (a sync or a reindex behind a tool).
REQUEST_SECONDS = 600.0
PATH = "/mcp/"
#: Tries of one message against a server that went away (waits growing between).
ATTEMPTS = 8


class Link:
    """One MCP session with the home's server, re-made when the server changes."""

    def __init__(self, root: Path, scope: str, actor: str, server: delegate.Server) -> None:
        self.root = root
        self.scope = scope
        self.actor = actor
        self.server = server
        self.session: str | None = None
        self.protocol: str | None = None
        self.initialize: bytes | None = None

    def _headers(self) -> dict[str, str]:
        headers = {
            "Authorization": "Bearer "
            + server_file.local_token(self.server.key, self.scope, self.actor),
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        if self.protocol:
            headers["Mcp-Protocol-Version"] = self.protocol
        return headers

    def _post(self, body: bytes) -> tuple[int, dict[str, str], bytes]:
        return delegate.exchange(self.server, "POST", PATH, self._headers(), body, REQUEST_SECONDS)

    def _reconnect(self) -> None:
        """Find (or start) the server again and replay this session's initialize."""
        found = delegate.find_or_start(self.root, delegate.on_demand(self.root))
        if found is None:
            raise RuntimeError("the home's server stopped, and starting one is turned off")
        self.server, self.session = found, None
        if self.initialize is not None:
            status, headers, body = self._post(self.initialize)
            if status == 200:
                self._opened(headers, _answers(headers, body))
                initialized = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
                self._post(initialized)

    def _opened(self, headers: dict[str, str], answers: list[bytes]) -> None:
        self.session = headers.get("mcp-session-id") or self.session
        for answer in answers:
            try:
                version = json.loads(answer).get("result", {}).get("protocolVersion")
            except (ValueError, AttributeError):
                continue
            if isinstance(version, str):
                self.protocol = version

    def send(self, line: bytes, message: Any) -> list[bytes]:
        """Relay one message; the answers to write (none for a notification)."""
        method = message.get("method") if isinstance(message, dict) else None
        if method == "initialize":
            self.initialize, self.session, self.protocol = line, None, None
        answer: tuple[int, dict[str, str], bytes] | None = None
        why = ""
        for attempt in range(ATTEMPTS):
            answer = None
            try:
                if attempt:
                    time.sleep(min(0.1 * 2**attempt, 2.0))
                    self._reconnect()
                answer = self._post(line)
            except (OSError, RuntimeError) as exc:
                why = str(exc)
                continue
            status = answer[0]
            if status == 401 or (status == 404 and self.session):
                continue  # a new server (new key), or one that forgot the session
            break
        if answer is None:
            return _error(message, f"the home's server cannot be reached ({why})")
        status, headers, body = answer
        if status == 202:
            return []
        answers = _answers(headers, body)
        if status == 200:
            if method == "initialize":
                self._opened(headers, answers)
            return answers
        # A refusal before any session (the SDK's 400 "Missing session ID" to a
        # probe such as server/discover) answers with id null: the client waits
        # for its own id, so the refusal is passed on under it.
        return _error(message, _said(status, body))

    def close(self) -> None:
        if self.session is None:
            return
        with contextlib.suppress(OSError):
            delegate.exchange(self.server, "DELETE", PATH, self._headers(), b"", 5.0)


def _answers(headers: dict[str, str], body: bytes) -> list[bytes]:
    """The JSON-RPC messages of an answer: a JSON body, or an event stream's data."""
    if headers.get("content-type", "").startswith("text/event-stream"):
        found = []
        for event in body.replace(b"\r\n", b"\n").split(b"\n\n"):
            data = [ln[5:].strip() for ln in event.split(b"\n") if ln.startswith(b"data:")]
            if data:
                found.append(b"\n".join(data))
        return found
    body = body.strip()
    return [body] if body else []


def _said(status: int, body: bytes) -> str:
    try:
        data = json.loads(body)
        error = data.get("error") if isinstance(data, dict) else None
        message = error if isinstance(error, str) else error.get("message") if error else None
    except (ValueError, AttributeError):
        message = None
    return f"the home's server answered {status}: {message or body[:200].decode(errors='replace')}"


def _error(message: Any, text: str) -> list[bytes]:
    """A JSON-RPC error answer for ``message`` (nothing for a notification)."""
    if not isinstance(message, dict) or "id" not in message:
        return []
    error = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": text}}
    return [json.dumps(error).encode()]


def relay(
    root: Path, scope: str, actor: str, server: delegate.Server, stdin: IO[bytes], stdout: IO[bytes]
) -> int:
    """Relay stdin's messages until it closes; every request read is answered."""
    link = Link(root, scope, actor, server)
    for raw in stdin:
        line = raw.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except ValueError:
            parse_error = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32700, "message": "Parse error: not JSON"},
            }
            stdout.write(json.dumps(parse_error).encode() + b"\n")
            stdout.flush()
            continue
        try:
            answers = link.send(line, message)
        except RuntimeError as exc:
            answers = _error(message, str(exc))
        for answer in answers:
            stdout.write(answer.replace(b"\n", b" ") + b"\n")
        stdout.flush()
    link.close()
    return 0


def serve_stdio(root: Path, scope: str, actor: str | None) -> int | None:
    """``hearth mcp`` as a relay: its exit status, or None when this session cannot
    be relayed (starting turned off with no server running, not a home), for the
    CLI to serve it in-process or refuse it with its own message."""
    if os.environ.get(delegate.SERVER_ENV, "").strip().lower() == "off":
        return None
    if not (root / "hearth.toml").is_file():
        return None
    try:
        server = delegate.find_or_start(root, delegate.on_demand(root))
    except RuntimeError as exc:
        print(f"hearth: {exc}", file=sys.stderr)
        return 1
    if server is None:
        return None
    who = actor or os.environ.get("HEARTH_ACTOR") or "mcp"  # wiring.default_actor's rule
    return relay(root, scope, who, server, sys.stdin.buffer, sys.stdout.buffer)
