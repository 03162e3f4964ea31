"""Issue 49: the server's hook key is never readable through a read path.

``.git/hearth/server.json`` holds the running server's hook key (a local token
made from it is an admin's). Each surface that reads the home is asked for it
directly, through a symbolic link to the file (``leak.md``, as a hostile commit
could bring), and through a linked folder (``state/`` -> ``.git/hearth``):
HTTP ``GET /v1/files``, MCP ``read``, ``hearth get`` and search. None answers
with the key. (The OpenClaw plugin's ``memory_get`` is tested with the plugin.)
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import anyio
import pytest

from tests.api.conftest import BIN, Server
from tests.mcp.conftest import http_client

pytestmark = pytest.mark.e2e

TRIES = (".git/hearth/server.json", "leak.md", "state/server.json", ".git/config")


@pytest.fixture(scope="module")
def leaky(shared_server: Server) -> Iterator[tuple[Server, str]]:
    """The shared server's home with links to its server.json, and the hook key."""
    root = shared_server.root
    (root / "leak.md").symlink_to(".git/hearth/server.json")
    (root / "state").symlink_to(".git/hearth")
    user = (root / "USER.md").read_bytes()
    (root / "USER.md").unlink()
    (root / "USER.md").symlink_to(".git/hearth/server.json")
    key = json.loads((root / ".git" / "hearth" / "server.json").read_text())["hook_key"]
    assert key
    yield shared_server, key
    (root / "leak.md").unlink()
    (root / "state").unlink()
    (root / "USER.md").unlink()
    (root / "USER.md").write_bytes(user)


def test_http_get_file_never_answers_the_hook_key(leaky: tuple[Server, str]) -> None:
    """Hook key, HTTP: GET /v1/files of server.json, a link to it, a linked folder."""
    server, key = leaky
    for path in TRIES:
        for token in ("read", "admin"):
            reply = server.get("/v1/files/" + quote(path), token=token)
            assert 400 <= reply.status < 500, (path, reply.status)
            assert key.encode() not in reply.raw
            assert reply.body["error"]["code"] in ("path_refused", "not_found"), reply.body


def test_mcp_read_never_answers_the_hook_key(leaky: tuple[Server, str]) -> None:
    """Hook key, MCP: the read tool on each of them is a tool error without the key."""
    server, key = leaky

    async def scenario() -> None:
        async with http_client(server, "admin") as client:
            for path in TRIES:
                result = await client.call_tool("read", {"path": path})
                assert result.is_error, (path, result.structured_content)
                assert key not in json.dumps([c.model_dump() for c in result.content])

    anyio.run(scenario)


def test_hearth_get_never_prints_the_hook_key(leaky: tuple[Server, str]) -> None:
    """Hook key, CLI: ``hearth get`` of each, here and through the running server."""
    server, key = leaky
    for served in ("off", "on"):
        env = {**os.environ, "HEARTH_SERVER": served}
        for path in TRIES:
            proc = subprocess.run(
                [str(BIN / "hearth"), "--home", str(server.root), "get", path],
                capture_output=True,
                text=True,
                env=env,
                check=False,
            )
            assert proc.returncode == 1, (served, path, proc.stdout)
            assert key not in proc.stdout + proc.stderr
            assert "Traceback" not in proc.stderr


def test_search_never_finds_the_hook_key(leaky: tuple[Server, str]) -> None:
    """Hook key, search: the linked file is not indexed, so neither its words nor
    the key are found (after a full pass)."""
    server, key = leaky
    assert server.post("/v1/reconcile?full=true", token="admin").status == 200
    for query in ("hook_key", key, "server.json pid url"):
        reply = server.get("/v1/search?" + "q=" + quote(query))
        assert reply.status == 200
        assert key.encode() not in reply.raw
        assert all(hit["path"] != "leak.md" for hit in reply.body["hits"])


def test_the_context_bundle_never_holds_the_hook_key(leaky: tuple[Server, str]) -> None:
    """Hook key, the hot files: USER.md made a link to server.json is not read
    into the bundle a runtime loads (HTTP context, ACTIVE.md)."""
    server, key = leaky
    for path in ("/v1/context?session=main&q=hook_key", "/v1/active"):
        reply = server.get(path, token="read")
        assert reply.status in (200, 400), reply.body  # a refused hot file: path_refused
        assert key.encode() not in reply.raw
        # The bundle answers the query it was asked ("hook_key") beside the files:
        # a symlinked hot file is left out as missing, no longer the bundle refused.
        assert b"hook_key" not in reply.raw.replace(b'"query":"hook_key"', b"")


def test_the_review_page_never_shows_the_hook_key(leaky: tuple[Server, str]) -> None:
    """Hook key, the review page: its file and persona views."""
    server, key = leaky
    for path in [*("/ui/files/" + quote(p) for p in TRIES), "/ui/persona"]:
        reply = server.get(path, token="admin")
        assert reply.status in (200, 400, 404), (path, reply.status)
        assert key.encode() not in reply.raw


def test_mcp_resources_never_hold_the_hook_key(leaky: tuple[Server, str]) -> None:
    """Hook key, MCP resources: USER.md, made a link to server.json, is an error."""
    server, key = leaky

    async def scenario() -> None:
        async with http_client(server, "read") as client:
            listed = (await client.list_resources()).resources
            assert "hearth://home/USER.md" in {str(r.uri) for r in listed}
            for resource in listed:
                try:
                    answer = await client.read_resource(resource.uri)
                except Exception as exc:  # the SDK raises its own errors
                    assert key not in str(exc)
                    continue
                assert key not in answer.model_dump_json(), resource.uri

    anyio.run(scenario)


def test_the_key_file_is_the_owner_s_alone(leaky: tuple[Server, str]) -> None:
    """Hook key, the file itself: mode 0600 (no other user reads it)."""
    server, _key = leaky
    mode = (Path(server.root) / ".git" / "hearth" / "server.json").stat().st_mode
    assert mode & 0o077 == 0
