"""Facts that know when they were replaced (issue 53), over HTTP against a real
``hearth serve``: an agent's new value for a known fact becomes a replacement
proposal, its merge replaces the old entry, and search hands the current one
while the old one is found only among the archives.
"""

from __future__ import annotations

from urllib.parse import urlencode

from tests.api.conftest import Server


def test_an_agents_new_value_is_proposed_merged_and_the_old_one_archived(
    shared_server: Server,
) -> None:
    """Case: propose / memory add via the agent's path, merged by a person;
    recall (search) prefers the current one; the old one is findable, superseded."""
    s = shared_server
    added = s.post("/v1/memory/MEMORY.md/entries", {"entry": "Quokka burrow: Braga"}, token="admin")
    assert added.status == 200, added.body
    reply = s.post("/v1/memory/MEMORY.md/entries", {"entry": "Quokka burrow: Porto"}, token="write")
    assert reply.status == 200, reply.body
    key = reply.body["key"]
    assert reply.body["path"] == f"continuity/proposals/memory/{key}.md"
    listed = s.get("/v1/proposals", token="read").body["proposals"]
    [mine] = [p for p in listed if p["key"] == key]
    assert mine["replaces"][0]["replaces"] == "Quokka burrow: Braga"
    assert mine["replaces"][0]["rule"] == "field"
    merged = s.post(f"/v1/proposals/{key}/merge", {}, token="admin")
    assert merged.status == 200, merged.body
    content = s.get("/v1/files/MEMORY.md", token="read").body["content"]
    assert "- Quokka burrow: Porto" in content and "Braga" not in content
    current = s.get("/v1/search?" + urlencode({"q": "Quokka burrow"}), token="read")
    assert current.body["hits"] and all(h["path"] == "MEMORY.md" for h in current.body["hits"])
    query = urlencode({"q": "Quokka burrow Braga", "kind": "archive"})
    old = s.get(f"/v1/search?{query}", token="read").body["hits"]
    superseded = [h for h in old if h["path"].startswith("continuity/superseded/")]
    assert superseded and superseded[0]["status"] == "superseded"
