"""Consolidation that a person approves (issue 53) over HTTP, on a real server:
the proposal a merge makes is listed with what moves where and its default
action, a stale one is refused with 409, and a merge refused at the bound says
which consolidation makes room."""

from __future__ import annotations

from tests.api.conftest import Server
from tests.app.test_consolidation import ADOPTION, NOTE, PAINTING, filler
from tests.app.test_consolidation import note_text as note


def note_text(size: int) -> str:
    items = [*PAINTING, *ADOPTION]
    n = 0
    while len(note(items)) < size:
        items.append(filler(n + 1)[n])
        n += 1
    return note(items)


def propose(s: Server, title: str, entries: list[str]) -> str:
    reply = s.post(
        "/v1/proposals", {"title": title, "entries": entries, "target": NOTE}, token="write"
    )
    assert reply.status == 200, reply.body
    return str(reply.body["key"])


def consolidations(s: Server) -> list[dict[str, object]]:
    body = s.get("/v1/proposals", token="read").body
    return [p for p in body["proposals"] if p.get("consolidate")]


def test_a_stale_consolidation_is_refused_with_409(server: Server) -> None:
    """Case: a merge past the soft budget makes a consolidation, listed with what
    moves where and ``default_action`` merge; a person's edit of a moved entry
    before approval makes it stale: 409 ``stale_write``, nothing changed."""
    s = server
    assert s.put(f"/v1/files/{NOTE}", {"content": note_text(6500)}, token="write").status == 200
    key = propose(s, "Museum", ["Caroline wants to visit the museum again"])
    assert s.post(f"/v1/proposals/{key}/merge", {}, token="admin").status == 200
    found = consolidations(s)
    assert found, "no consolidation was proposed"
    first = found[0]
    assert first["default_action"] == "merge"
    detail = first["consolidation"]
    assert isinstance(detail, dict)
    assert detail["action"] == "move" and detail["target"] == NOTE
    assert str(detail["destination"]).startswith("memory/topics/")
    assert detail["loses_text"] is False and detail["stale"] == []
    entries = first["entries"]
    assert isinstance(entries, list)
    edit = s.put(
        f"/v1/memory/{NOTE}/entries",
        {"old": entries[0], "new": "Caroline painted a different picture"},
        token="write",
    )
    assert edit.status == 200, edit.body
    before = s.get(f"/v1/files/{NOTE}", token="read").body["content"]
    reply = s.post(f"/v1/proposals/{first['key']}/merge", {}, token="admin")
    assert reply.status == 409, reply.body
    assert reply.body["error"]["code"] == "stale_write"
    assert "stale" in reply.body["error"]["message"]
    assert s.get(f"/v1/files/{NOTE}", token="read").body["content"] == before
    listed = {p["key"]: p for p in consolidations(s)}
    assert listed[first["key"]]["default_action"] == "reject"


def test_a_refused_merge_names_the_consolidation_and_goes_through_after(
    server: Server,
) -> None:
    """Case: a merge over the bound is refused (4xx, nothing changed), the refusal
    names the consolidation hearth proposed; approved, the merge goes through."""
    s = server
    assert s.put(f"/v1/files/{NOTE}", {"content": note_text(7800)}, token="write").status == 200
    key = propose(s, "Trips", [f"Caroline plans a trip to town{n} up north" for n in range(10)])
    refused = s.post(f"/v1/proposals/{key}/merge", {}, token="admin")
    assert 400 <= refused.status < 500, refused.body
    message = refused.body["error"]["message"]
    assert "hearth proposed making room" in message
    made = consolidations(s)
    assert made
    for proposal in made:
        assert proposal["key"] in message
        done = s.post(f"/v1/proposals/{proposal['key']}/merge", {}, token="admin")
        assert done.status == 200, done.body
    assert s.post(f"/v1/proposals/{key}/merge", {}, token="admin").status == 200
    text = s.get(f"/v1/files/{NOTE}", token="read").body["content"]
    assert "Caroline plans a trip to town9 up north" in text and len(text) <= 8000
