"""Entries lost (issue 53) on the review page: a card whose entry the home
already holds but which adds words shows the entry they fold into, and its
default button folds them in, every word kept, in one commit; the API answers
the same fold. A real headless Chromium against a real ``hearth serve``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.api.conftest import Server
from tests.ui.conftest import at, git
from tests.ui.test_review_page import login, pending, propose, text_of
from tests.ui.test_review_safe import add_entry


@pytest.fixture(scope="module")
def person(browser: Browser, ui_server: Server) -> Iterator[Page]:
    context, page = login(browser, ui_server, ui_server.tokens["admin"])
    yield page
    context.close()


def test_the_default_button_folds_a_known_entry_that_adds_words(
    person: Page, ui_server: Server
) -> None:
    """Case: an "already known" card whose entry adds words (what the months
    bench's scripted person pressed "Reject: already known" on, losing them):
    the card shows the folded result and its primary button writes it."""
    s = ui_server
    add_entry(s, "MEMORY.md", "Jules bakes sourdough bread")
    key = propose(s, "Bread", ["Jules bakes sourdough bread every weekend for the neighbours"])
    [mine] = [p for p in s.get("/v1/proposals", token="read").body["proposals"] if p["key"] == key]
    becomes = "Jules bakes sourdough bread every weekend for the neighbours"
    assert mine["default_action"] == "merge" and mine["known_entries"] == 0
    assert [(f["into"], f["becomes"]) for f in mine["folds"]] == [
        ("Jules bakes sourdough bread", becomes)
    ]
    person.goto(at(person, "/ui/"))
    card = person.locator(f"#p-{key}")
    expect(card.locator("p.folds")).to_contain_text("Jules bakes sourdough bread")
    expect(card.locator("p.folds q.folded")).to_have_text(becomes)
    before = git(s.root, "rev-parse", "HEAD").strip()
    card.locator("button.primary").click()
    expect(person.get_by_role("status")).to_contain_text("1 known entry folded")
    memory = text_of(s, "MEMORY.md")
    assert f"- {becomes}\n" in memory and "- Jules bakes sourdough bread\n" not in memory
    assert git(s.root, "rev-list", "--count", f"{before}..HEAD").strip() == "1"
    assert key not in pending(s)


def test_keeping_one_of_a_group_rejects_only_what_it_says_all_of(
    person: Page, ui_server: Server
) -> None:
    """Case: a group's "Keep the chosen one, reject the others" (the months
    bench's person pressed it 51 times, and most of the 94 observations kept
    nowhere were the others it rejected: "Jon's favorite dance style is
    contemporary" beside Gina's): an other that adds words stays pending, to be
    folded or merged on its own card; one the kept one says all of is rejected."""
    s = ui_server
    kept = propose(s, "Kayak", ["Rene paddles a green kayak on the river"])
    same = propose(s, "Kayak again", ["Rene paddles a green kayak"])
    more = propose(s, "Kayak trips", ["Rene paddles a green kayak to the island every summer"])
    person.goto(at(person, "/ui/"))
    group = person.locator(f"section.group:has(#p-{kept})")
    expect(group.locator(f"#p-{same}")).to_have_count(1)
    expect(group.locator(f"#p-{more}")).to_have_count(1)
    group.get_by_role("radio", name="Kayak", exact=True).check()
    group.locator("button.primary").click()
    expect(person.get_by_role("status")).to_contain_text("1 left pending: they add words")
    left = pending(s)
    assert kept not in left and same not in left and more in left
    # On its own card now, the one left folds into the kept entry by default.
    person.goto(at(person, "/ui/"))
    person.locator(f"#p-{more} button.primary").click()
    memory = text_of(s, "MEMORY.md")
    assert "- Rene paddles a green kayak on the river (also: to island every summer)\n" in memory
    assert more not in pending(s)
