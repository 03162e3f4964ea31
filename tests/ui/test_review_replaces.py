"""Facts that know when they were replaced (issue 53), on the review page: a
proposal that restates a fact with a new value says what it replaces, and the
card's default action puts the new value in the old one's place. A real
headless Chromium against a real ``hearth serve``; files read through the API,
history with the git CLI.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.api.conftest import Server
from tests.ui.conftest import at, git
from tests.ui.test_review_page import login, pending, propose, text_of


@pytest.fixture(scope="module")
def person(browser: Browser, ui_server: Server) -> Iterator[Page]:
    context, page = login(browser, ui_server, ui_server.tokens["admin"])
    yield page
    context.close()


def test_the_card_says_what_it_replaces_and_its_default_action_replaces(
    person: Page, ui_server: Server
) -> None:
    """Case: shown as a replacement on the review page ("replaces: ..."), and the
    default action (what the months bench's scripted person clicks) replaces."""
    s = ui_server
    reply = s.post("/v1/memory/MEMORY.md/entries", {"entry": "Sam lives in Braga"}, token="admin")
    assert reply.status == 200, reply.body
    key = propose(s, "Sam moved", ["Sam lives in Lisbon"])
    listed = s.get("/v1/proposals", token="read").body["proposals"]
    [mine] = [p for p in listed if p["key"] == key]
    assert [(r["replaces"], r["rule"]) for r in mine["replaces"]] == [
        ("Sam lives in Braga", "value")
    ]
    person.goto(at(person, "/ui/"))
    card = person.locator(f"#p-{key}")
    expect(card.locator("p.replaces")).to_contain_text("Sam lives in Braga")
    expect(card.locator(".badge.replaces")).to_be_visible()
    card.locator("button.primary").click()
    expect(person.get_by_role("status")).to_contain_text("Merged")
    memory = text_of(s, "MEMORY.md")
    assert "- Sam lives in Lisbon" in memory and "Braga" not in memory
    assert key not in pending(s)
    kept = git(s.root, "ls-files", "continuity/superseded").split()
    assert len(kept) == 1
    record = git(s.root, "show", f"HEAD:{kept[0]}")
    assert "- Entry: Sam lives in Braga" in record and "- Held: " in record
