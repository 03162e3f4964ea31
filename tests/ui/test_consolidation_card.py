"""Consolidation that a person approves (issue 53), in a real browser: hearth's
proposal shows on the review page as a card saying what moves where and what
stays, its first action approves it (one commit, no text dropped), and a stale
one offers reject first.

A real headless Chromium against a real ``hearth serve`` (keyword measures
only), every result checked where it lands: the files through the API, the
commit with the git CLI."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.api.conftest import Server
from tests.app.test_consolidation import ADOPTION, NOTE, PAINTING, filler, note_text
from tests.ui.conftest import at
from tests.ui.test_review_page import last_commit, login, pending, propose, text_of


@pytest.fixture(scope="module")
def person(browser: Browser, ui_server: Server) -> Iterator[Page]:
    context, page = login(browser, ui_server, ui_server.tokens["admin"])
    yield page
    context.close()


def consolidations(s: Server) -> list[dict[str, object]]:
    body = s.get("/v1/proposals", token="read").body
    return [p for p in body["proposals"] if p.get("consolidate")]


def test_the_card_shows_what_moves_where_and_approve_is_its_first_action(
    person: Page, ui_server: Server
) -> None:
    """Case: the review page card renders (what moves where, the pointer left);
    its primary button approves: one commit that moves the entries and leaves
    the pointer, nothing dropped."""
    s = ui_server
    items = [*PAINTING, *ADOPTION]
    more = iter(filler(200))
    while len(note_text(items)) < 6450:
        items.append(next(more))
    assert s.put(f"/v1/files/{NOTE}", {"content": note_text(items)}, token="write").status == 200
    key = propose(s, "Museum", ["Caroline wants to see the museum again"], target=NOTE)
    assert s.post(f"/v1/proposals/{key}/merge", {}, token="admin").status == 200
    made = consolidations(s)
    assert made
    proposal = next(p for p in made if set(p["entries"]) == set(PAINTING))  # type: ignore[arg-type]
    ckey, destination, pointer = proposal["key"], proposal["destination"], proposal["leaves"]
    assert isinstance(destination, str) and isinstance(pointer, str)
    person.goto(at(person, "/ui/"))
    card = person.locator(f"#p-{ckey}")
    notice = card.locator(".consolidation")
    expect(notice).to_contain_text("What moves where")
    expect(notice).to_contain_text(f"{len(PAINTING)} entries move, word for word, from {NOTE}")
    expect(notice).to_contain_text(destination)
    expect(notice.locator("q.pointer")).to_have_text(pointer)
    expect(notice).to_contain_text("No text is dropped")
    expect(card.get_by_text("Edit entries")).to_have_count(0)
    approve = card.locator(".actions button.primary")
    expect(approve).to_have_text(f"Approve: move {len(PAINTING)} entries to {destination}")
    before = text_of(s, NOTE)
    approve.click()
    expect(person.get_by_role("status")).to_contain_text(re.compile(r"Approved .*no text dropped"))
    assert ckey not in pending(s)
    after, moved = text_of(s, NOTE), text_of(s, destination)
    assert f"- {pointer}" in after and len(after) < len(before)
    for entry in PAINTING:
        assert f"- {entry}" in moved and f"- {entry}" not in after
    commit = last_commit(s)
    assert "Hearth-Op: proposal.merge" in commit and f"Hearth-Record: {ckey}" in commit


def test_a_stale_card_offers_reject_first(person: Page, ui_server: Server) -> None:
    """Case: a person's edit between proposal and approval: the card says it is
    stale and its first action rejects it."""
    s = ui_server
    s.post(
        "/v1/memory/MEMORY.md/entries", {"entry": "Sam is allergic to cats and dogs"}, token="write"
    )
    key = propose(s, "Allergies", ["Sam is allergic to cats, dogs and horses"])
    assert s.post(f"/v1/proposals/{key}/merge", {}, token="admin").status == 200
    fold = next(p for p in consolidations(s) if p["consolidate"] == "fold")
    edit = s.put(
        "/v1/memory/MEMORY.md/entries",
        {"old": "Sam is allergic to cats and dogs", "new": "Sam is allergic to cats"},
        token="write",
    )
    assert edit.status == 200, edit.body
    person.goto(at(person, "/ui/"))
    card = person.locator(f"#p-{fold['key']}")
    expect(card.locator(".consolidation")).to_contain_text("Stale")
    expect(card.locator(".actions button.primary")).to_have_text("Reject: stale")
