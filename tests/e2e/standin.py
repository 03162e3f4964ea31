"""A stand-in model API on loopback: records every request body and answers a
fixed reply, as Anthropic's Messages API (Claude Code) or OpenAI's Responses API
(Codex) would, streamed as server-sent events when the client asks for a stream.
It is the seam the end-to-end runtime tests own: everything else is real."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY = "Noted, from the stand-in."


def _sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return b"".join(
        f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events
    )


#: A scripted answer: call this tool with this input instead of replying with text.
ToolUse = tuple[str, dict[str, Any]]


def _anthropic(body: dict[str, Any], tool: ToolUse | None = None) -> tuple[str, bytes]:
    if tool is not None:
        return "text/event-stream", _anthropic_tool_use(body, *tool)
    usage = {"input_tokens": 10, "output_tokens": 5}
    message = {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "stand-in"),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    if not body.get("stream"):
        whole = {
            **message,
            "content": [{"type": "text", "text": REPLY}],
            "stop_reason": "end_turn",
        }
        return "application/json", json.dumps(whole).encode()
    return "text/event-stream", _sse(
        [
            ("message_start", {"type": "message_start", "message": message}),
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": REPLY},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 5},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    )


def _anthropic_tool_use(body: dict[str, Any], name: str, arguments: dict[str, Any]) -> bytes:
    """A streamed Messages API answer that asks for one tool call."""
    message = {
        "id": "msg_standin_tool",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "stand-in"),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    block = {"type": "tool_use", "id": f"toolu_standin_{name}", "name": name, "input": {}}
    delta = {"type": "input_json_delta", "partial_json": json.dumps(arguments)}
    return _sse(
        [
            ("message_start", {"type": "message_start", "message": message}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": block},
            ),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                    "usage": {"output_tokens": 5},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    )


def _responses(body: dict[str, Any]) -> tuple[str, bytes]:
    item = {
        "type": "message",
        "role": "assistant",
        "id": "msg_standin",
        "content": [{"type": "output_text", "text": REPLY, "annotations": []}],
    }
    usage = {
        "input_tokens": 10,
        "input_tokens_details": None,
        "output_tokens": 5,
        "output_tokens_details": None,
        "total_tokens": 15,
    }
    return "text/event-stream", _sse(
        [
            ("response.created", {"type": "response.created", "response": {"id": "resp_standin"}}),
            ("response.output_item.done", {"type": "response.output_item.done", "item": item}),
            (
                "response.completed",
                {"type": "response.completed", "response": {"id": "resp_standin", "usage": usage}},
            ),
        ]
    )


def _gemini(path: str) -> tuple[str, bytes]:
    if path.endswith(":countTokens"):
        return "application/json", b'{"totalTokens": 10}'
    chunk = {
        "candidates": [
            {"content": {"parts": [{"text": REPLY}], "role": "model"}, "finishReason": "STOP"}
        ],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
    }
    if "streamGenerateContent" in path:
        return "text/event-stream", f"data: {json.dumps(chunk)}\n\n".encode()
    return "application/json", json.dumps(chunk).encode()


class StandIn:
    """``with StandIn() as model:`` serves on ``model.url`` and keeps ``model.bodies``.

    ``script``: Messages API answers that call a tool, one per request in order
    (while any is left), before the fixed text reply."""

    def __init__(self, script: list[ToolUse] | None = None) -> None:
        self.script = list(script or [])
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                stand_in.paths.append(f"GET {self.path}")
                self._answer(200, "application/json", b'{"object": "list", "data": []}')

            def do_HEAD(self) -> None:
                self._answer(200, "application/json", b"")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                stand_in.paths.append(f"POST {self.path}")
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                path = self.path.split("?", 1)[0]
                if path.endswith("/count_tokens"):
                    self._answer(200, "application/json", b'{"input_tokens": 10}')
                    return
                stand_in.bodies.append(body)
                if ":" in path.rsplit("/", 1)[-1]:  # Gemini's models/NAME:method
                    kind, data = _gemini(path)
                elif path.endswith("/responses"):
                    kind, data = _responses(body)
                else:
                    tool = stand_in.script.pop(0) if stand_in.script else None
                    kind, data = _anthropic(body, tool)
                self._answer(200, kind, data)

            def _answer(self, status: int, kind: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> StandIn:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def text(self) -> str:
        """Every request body the model got, as one JSON text."""
        return "\n".join(json.dumps(b, ensure_ascii=False) for b in self.bodies)
