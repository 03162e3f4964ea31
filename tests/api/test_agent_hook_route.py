"""``POST /v1/hooks/agent/{runtime}/{event}``: what ``hearth agent-hook`` prints,
answered by the server (issue 52: the prompt hook as one request). Its line
equals the command's own (tests/cli/test_agent_hook_lean.py); here, what it
refuses, each with a JSON body."""

from __future__ import annotations

import json

from tests.api.conftest import Server

PROMPT = json.dumps({"hook_event_name": "BeforeAgent", "prompt": "heron nests by the mill?"})


def test_it_answers_the_runtimes_line_or_null(shared_server: Server) -> None:
    """Case: the recall as the runtime takes it, and null when nothing is recalled."""
    written = shared_server.post(
        "/v1/daily", {"text": "Heron nests by the old mill"}, token="write"
    )
    assert written.status == 200, written.body
    reply = shared_server.post("/v1/hooks/agent/gemini/prompt", {"input": PROMPT}, token="read")
    assert reply.status == 200, reply.body
    line = reply.body["output"]
    assert line.endswith("\n")
    answer = json.loads(line)["hookSpecificOutput"]
    assert answer["hookEventName"] == "BeforeAgent"
    assert "Heron nests by the old mill" in answer["additionalContext"]
    quiet = {"input": json.dumps({"prompt": "hi"})}
    reply = shared_server.post("/v1/hooks/agent/gemini/prompt", quiet, token="read")
    assert (reply.status, reply.body) == (200, {"output": None})


def test_what_it_refuses(shared_server: Server) -> None:
    """Case: bad input is a 4xx with a JSON body, never a traceback."""
    path = "/v1/hooks/agent/codex/prompt"
    refused = [
        (shared_server.post(path, {"input": "not json"}, token="read"), 422),
        (shared_server.post(path, {"input": "[1, 2]"}, token="read"), 422),
        (shared_server.post("/v1/hooks/agent/cursor/prompt", {"input": "{}"}, token="read"), 404),
        (shared_server.post("/v1/hooks/agent/codex/stop", {"input": "{}"}, token="read"), 422),
        (shared_server.post(path, {"input": "{}"}, token=None), 401),
        (shared_server.post(path, {}, token="read"), 422),
    ]
    for reply, status in refused:
        assert reply.status == status, reply.body
        assert isinstance(reply.body["error"]["message"], str)
