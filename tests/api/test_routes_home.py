"""The routes that made the last CLI writes the server's (``api/routes_home.py``):
each refuses a scope too small with a 403 JSON body and changes nothing, and an
agent's ``write`` token does what the policy gives it (topics, rollups,
consolidation, restoring a note that is not the persona's) and nothing more."""

from __future__ import annotations

import pytest

from tests.api.conftest import Server

#: The person's own (admin) writes among the new routes, and a body each takes.
ADMIN_ONLY = (
    ("POST", "/v1/reflect", None),
    ("POST", "/v1/reflect/approve", None),
    ("GET", "/v1/tokens", None),
    ("POST", "/v1/tokens", {"name": "sneaky", "scope": "admin"}),
    ("DELETE", "/v1/tokens/t-admin", None),
    ("POST", "/v1/memory/conflicts/some-conflict/settle", {"keep": "other"}),
    ("POST", "/v1/restore", {"path": "SOUL.md", "rev": "HEAD"}),
    ("POST", "/v1/restore", {"path": "MEMORY.md", "rev": "HEAD"}),
    ("POST", "/v1/restore", {"path": "continuity/ACTIVE.md", "rev": "HEAD"}),
    ("POST", "/v1/reconcile", None),
    ("POST", "/v1/sync", None),
)


@pytest.mark.parametrize(("method", "path", "body"), ADMIN_ONLY)
def test_an_agents_write_token_is_refused_the_persons_writes(
    shared_server: Server, method: str, path: str, body: object
) -> None:
    """Case: an agent's write token is refused each admin write (settle, restore of
    a persona, memory or record file, reflection, tokens, reconcile, sync) with
    403 ``forbidden`` as JSON naming the scope, and no token was made."""
    s = shared_server
    before = s.get("/v1/tokens").body["tokens"]
    reply = s.request(method, path, body, token="write")
    assert reply.status == 403, (path, reply.status, reply.body)
    assert reply.body["error"]["code"] == "forbidden"
    assert "admin" in reply.body["error"]["message"]
    assert s.get("/v1/tokens").body["tokens"] == before


def test_a_read_token_is_refused_the_write_routes(shared_server: Server) -> None:
    """Case: topic, rollup and consolidate need the write scope: a read token gets 403."""
    s = shared_server
    for path, body in (
        ("/v1/topics", {"title": "Otters", "content": "x"}),
        ("/v1/rollups", {}),
        ("/v1/consolidate", {}),
        ("/v1/restore", {"path": "notes/otters.md", "rev": "HEAD"}),
    ):
        reply = s.post(path, body, token="read")
        assert reply.status == 403 and reply.body["error"]["code"] == "forbidden", path


def test_an_agents_write_token_writes_topics_and_restores_its_notes(server: Server) -> None:
    """Case: what the write scope gives an agent works through the new routes: a
    topic note, a note brought back from an earlier revision, a consolidation
    pass; each answers as a write does."""
    s = server
    made = s.post("/v1/topics", {"title": "Otter holts", "content": "By the weir."}, token="write")
    assert made.status == 200 and made.body["path"] == "memory/topics/otter-holts.md"
    first = s.put("/v1/files/notes/otters.md", {"content": "# Otters\n\nFirst.\n"}, token="write")
    second = s.put("/v1/files/notes/otters.md", {"content": "# Otters\n\nSecond.\n"}, token="write")
    assert first.status == second.status == 200
    back = s.post("/v1/restore", {"path": "notes/otters.md", "rev": first.body["commit"]})
    assert back.status == 200 and back.body["changed"] is True
    assert (s.root / "notes/otters.md").read_text() == "# Otters\n\nFirst.\n"
    proposed = s.post("/v1/consolidate", {"files": ["MEMORY.md"]}, token="write")
    assert proposed.status == 200 and proposed.body == {"proposed": []}
    bad = s.post("/v1/topics", {"title": "Otters", "contents": "typo"}, token="write")
    assert bad.status == 422 and bad.body["error"]["code"] == "invalid_input"
