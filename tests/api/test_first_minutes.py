"""What a new user meets in the first minutes (issue 35): the server's banner,
``GET /``, the 422 of a JSON body sent without its Content-Type or malformed,
``/docs`` offline, and ``/mcp``'s 401 in the shape of every other error."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.api.conftest import (
    BIN,
    Server,
    free_port,
    hearth,
    isolated_env,
    make_home,
    wait_for,
)
from tests.conftest import git

pytestmark = pytest.mark.e2e  # the installed executable and a real server


def test_a_json_body_without_its_content_type_says_so(shared_server: Server) -> None:
    reply = shared_server.request(
        "POST", "/v1/daily", raw_body=b'{"text": "hello"}', headers={"Content-Type": "text/plain"}
    )
    assert reply.status == 422, reply.raw
    message = reply.body["error"]["message"]
    assert "Content-Type: application/json" in message and "text/plain" in message, message
    bare = shared_server.request("POST", "/v1/daily", raw_body=b'{"text": "hello"}')
    assert bare.status == 422
    assert "no Content-Type" in bare.body["error"]["message"], bare.body


def test_malformed_json_says_where(shared_server: Server) -> None:
    reply = shared_server.request(
        "POST",
        "/v1/daily",
        raw_body=b'{"text": x}',
        headers={"Content-Type": "application/json"},
    )
    assert reply.status == 422, reply.raw
    message = reply.body["error"]["message"]
    assert message.startswith("the body is not valid JSON"), message
    assert "character 9" in message and "body.9" not in message, message


def test_mcp_refuses_without_a_token_in_the_common_shape(shared_server: Server) -> None:
    for token in (None, "not-a-token"):
        reply = shared_server.request(
            "POST",
            "/mcp",
            raw_body=b"{}",
            token=token,
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        assert reply.status == 401, reply.raw
        assert set(reply.body) == {"error"}, reply.body
        assert reply.body["error"]["code"] == "unauthorized", reply.body
        assert set(reply.body["error"]) == {"code", "message", "detail"}
        api = shared_server.get("/v1/status", token=token)
        assert api.status == 401 and set(api.body["error"]) == set(reply.body["error"])


def test_docs_are_the_schema_offline_and_the_root_leads_to_the_review_page(
    shared_server: Server,
) -> None:
    assert shared_server.get("/docs", token=None).status == 404
    assert shared_server.get("/openapi.json", token=None).status == 200
    root = shared_server.get("/", token=None)
    assert root.status == 307, root.raw
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", shared_server.port, timeout=10)
    conn.request("GET", "/")
    response = conn.getresponse()
    assert response.getheader("Location") == "/ui/"
    conn.close()


def _banner(root: Path, env: dict[str, str]) -> str:
    port = free_port()
    proc = subprocess.Popen(
        [str(BIN / "hearth"), "--home", str(root), "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    server = Server(root, port, proc)  # type: ignore[arg-type]
    assert wait_for(lambda: _answers(server), timeout=30), "the server did not come up"
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    return str(out)


def _answers(server: Server) -> bool:
    try:
        return server.get("/healthz", token=None).status == 200
    except OSError:
        return False


def test_the_banner_names_the_review_page_and_asks_for_a_token_only_when_none(
    tmp_path: Path,
) -> None:
    env = {**os.environ, **isolated_env(tmp_path / "userhome")}
    root = make_home(tmp_path / "home", env)
    first = _banner(root, env)
    assert "/ui/" in first, first
    assert "no API token yet; create yours" in first, first
    hearth("--home", str(root), "token", "create", "--name", "me", "--scope", "admin", env=env)
    second = _banner(root, env)
    assert "/ui/" in second
    assert "create yours" not in second, second
    assert "1 API token (me)" in second, second
    assert git(root, "status", "--porcelain") == ""
