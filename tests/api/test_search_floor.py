"""Search over HTTP answers the hits above the relevance floor, says how many it
left out, and answers them all when asked (``all=true``)."""

from __future__ import annotations

from urllib.parse import urlencode

from tests.api.conftest import Server


def _search(s: Server, **params: str) -> dict[str, object]:
    reply = s.get("/v1/search?" + urlencode(params), token="read")
    assert reply.status == 200, reply.body
    return dict(reply.body)


def test_search_says_how_many_it_left_out_and_all_answers_them(shared_server: Server) -> None:
    s = shared_server
    notes = {
        "memory/topics/fundraiser.md": "# Fundraiser\n\nLanterns for the otter fundraiser.\n",
        "memory/topics/porch.md": "# Porch\n\nBought two brass lanterns for the porch.\n",
    }
    for path, content in notes.items():
        assert s.put(f"/v1/files/{path}", {"content": content}).status == 200
    asked = {"q": "otter fundraiser lanterns", "kind": "topic"}
    floored = _search(s, **asked)
    hits = [h["path"] for h in floored["hits"]]  # type: ignore[attr-defined]
    # The porch holds one word of three (and not the rare ones): no evidence.
    assert hits == ["memory/topics/fundraiser.md"]
    assert floored["left_out"] == 1
    everything = _search(s, **asked, all="true")
    assert [h["path"] for h in everything["hits"]] == [  # type: ignore[attr-defined]
        "memory/topics/fundraiser.md",
        "memory/topics/porch.md",
    ]
    assert everything["left_out"] == 0
    nothing = _search(s, q="xylophonic")
    assert (nothing["hits"], nothing["left_out"]) == ([], 0)


def test_search_names_the_nearest_left_out_and_why(shared_server: Server) -> None:
    """Issue 48: a search that left hits out says which was nearest, and why."""
    s = shared_server
    content = "# Kettle\n\nDescaled the copper kettle with vinegar.\n"
    assert s.put("/v1/files/memory/topics/kettle.md", {"content": content}).status == 200
    found = _search(s, q="copper zzqx qqzx")
    assert found["hits"] == []
    nearest = found["nearest"]
    assert isinstance(nearest, dict)
    assert nearest["path"] == "memory/topics/kettle.md"
    assert "of the question's words" in nearest["reason"]


def test_a_day_word_alone_is_searched_over_http_never_recalled(shared_server: Server) -> None:
    """Issue 48, "a search made only of a day, time or small-talk word":
    ``/v1/search?q=Friday`` finds the note that holds it (no matches on main);
    ``/v1/context``'s recall for "see you Friday!" or "Friday" stays silent."""
    s = shared_server
    content = "# Supper\n\nSupper at the Quillmark inn on Friday.\n"
    assert s.put("/v1/files/memory/topics/supper.md", {"content": content}).status == 200
    hits = [h["path"] for h in _search(s, q="Friday")["hits"]]  # type: ignore[attr-defined]
    assert "memory/topics/supper.md" in hits
    for prompt in ("see you Friday!", "Friday"):
        reply = s.get("/v1/context?" + urlencode({"q": prompt}), token="read")
        assert reply.status == 200, reply.body
        recalled = [p["path"] for p in reply.body["recall"]]
        assert "memory/topics/supper.md" not in recalled, prompt


def test_a_word_written_joined_is_found_typed_whole_and_recalled(shared_server: Server) -> None:
    """A note says "Wi-Fi"; the person searches ``wifi`` and asks "what's the
    wifi password?": search finds it with the word bold, and the context's
    recall hands it over (both said "no matches" though the home holds it)."""
    s = shared_server
    content = "# Router\n\nThe Wi-Fi password is taped under the toaster.\n"
    assert s.put("/v1/files/memory/topics/router.md", {"content": content}).status == 200
    found = {h["path"]: h["snippet"] for h in _search(s, q="wifi")["hits"]}  # type: ignore[attr-defined]
    assert "**Wi-Fi**" in found["memory/topics/router.md"]
    reply = s.get("/v1/context?" + urlencode({"q": "what's the wifi password?"}), token="read")
    assert reply.status == 200, reply.body
    assert "memory/topics/router.md" in [p["path"] for p in reply.body["recall"]]
