"""The request-body bound (``api/limits.py``) on a body that declares no length
(chunked), in process over ASGI: whatever the handler reading it makes of the
cut body (FastAPI's body parsing answers 400 for any error while reading), the
answer is hearth's 413 ``too_large`` JSON body, and the error raised into the
handler is one of errors.py's tree (data-trust leftover (4))."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from fastapi import FastAPI, Request
from pydantic import BaseModel

from hearth.api.limits import BodyLimit
from hearth.errors import BodyTooLarge, HearthError

BOUND = 64


class Note(BaseModel):
    text: str


def _app() -> tuple[FastAPI, list[BaseException]]:
    app = FastAPI()
    raised: list[BaseException] = []

    @app.post("/parsed")
    def parsed(note: Note) -> dict[str, str]:
        return {"text": note.text}

    @app.post("/read")
    async def read(request: Request) -> dict[str, int]:
        try:
            return {"bytes": len(await request.body())}
        except Exception as exc:
            raised.append(exc)
            raise

    return app, raised


def _call(app: Any, path: str, chunks: list[bytes]) -> tuple[int, dict[str, Any]]:
    """POST ``chunks`` to ``path`` with no Content-Length; the status and JSON body."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"transfer-encoding", b"chunked")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 2),
    }
    pending = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
        for i, c in enumerate(chunks)
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    anyio.run(BodyLimit(app, max_bytes=BOUND), scope, receive, send)
    starts = [m for m in sent if m["type"] == "http.response.start"]
    assert len(starts) == 1, sent
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return starts[0]["status"], json.loads(body)


@pytest.mark.parametrize("path", ["/parsed", "/read"])
def test_a_chunked_body_past_the_bound_is_413_whatever_the_handler_answers(path: str) -> None:
    """Case (4): the body grows past the bound as it is received; FastAPI's
    parsing (``/parsed``) would answer 400, a handler reading it itself
    (``/read``) meets errors.py's ``BodyTooLarge``. Both answer 413."""
    app, raised = _app()
    chunk = b'{"text": "' + b"a" * 40
    status, body = _call(app, path, [chunk, b"a" * 40, b'"}'])
    assert status == 413, body
    assert body["error"]["code"] == "too_large", body
    if path == "/read":
        assert [type(e) for e in raised] == [BodyTooLarge]
        assert isinstance(raised[0], HearthError)


def test_a_chunked_body_within_the_bound_is_read() -> None:
    """The bound holds back nothing below it."""
    app, _raised = _app()
    status, body = _call(app, "/parsed", [b'{"text": ', b'"short"}'])
    assert (status, body) == (200, {"text": "short"})
