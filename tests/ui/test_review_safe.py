"""The review page decides well (issue 41): the safe action is the easy one and
every message is true. A real headless Chromium against a real ``hearth
serve`` (words only), each result checked where it lands: files through the
API, commits with the git CLI. Each test here failed on 9930d26.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.api.conftest import Server, hearth
from tests.ui.conftest import at, git
from tests.ui.test_review_page import last_commit, login, pending, propose, text_of


@pytest.fixture(scope="module")
def person(browser: Browser, ui_server: Server) -> Iterator[Page]:
    context, page = login(browser, ui_server, ui_server.tokens["admin"])
    yield page
    context.close()


def head(server: Server) -> str:
    return git(server.root, "rev-parse", "HEAD").strip()


def add_entry(server: Server, path: str, entry: str) -> None:
    reply = server.post(f"/v1/memory/{path}/entries", {"entry": entry}, token="write")
    assert reply.status == 200, reply.body


def merges_since(server: Server, rev: str) -> str:
    return git(server.root, "log", "--format=%s", "--grep=Hearth-Op: proposal.merge", f"{rev}..")


def test_enter_in_every_reason_field_never_merges(person: Page, ui_server: Server) -> None:
    s = ui_server
    add_entry(s, "MEMORY.md", "Quinn is allergic to peanuts")
    propose(s, "Peanuts", ["Quinn has a peanut allergy"])
    propose(s, "Boat", ["Quinn owns a small sailing boat"])
    propose(s, "Sailing", ["Quinn has a small sailing boat", "Quinn sails on Sundays"])
    propose(s, "Piano", ["Quinn plays the piano"])
    propose(s, "Chess", ["Quinn plays chess online"])
    reply = s.post(
        "/v1/decisions", {"title": "Weekly review", "decision": "Fridays"}, token="write"
    )
    assert reply.status == 200
    person.goto(at(person, "/ui/"))
    fields = person.locator("input[name^='reason']:not([type=hidden]), input[name='note']")
    ids = [fields.nth(i).get_attribute("id") or "" for i in range(fields.count())]
    ids.sort(key=lambda i: i != "batch-reason")  # while there are proposals to tick
    assert "batch-reason" in ids and len(ids) >= 6, ids
    memory, start = text_of(s, "MEMORY.md"), head(s)
    tried: list[str] = []
    for field_id in ids:
        person.goto(at(person, "/ui/"))
        field = person.locator(f"#{field_id}")
        if field.count() == 0:  # its proposal was rejected by an earlier Enter
            continue
        if field_id == "batch-reason":  # something ticked, as a person would
            person.locator("input[type=checkbox][name=keys]").first.check()
        for summary in person.locator(f"details:has(#{field_id}) > summary").all():
            if summary.is_visible():
                summary.click()
        field.fill("not this one")
        with person.expect_navigation():
            field.press("Enter")
        tried.append(field_id)
        assert text_of(s, "MEMORY.md") == memory, field_id
        assert merges_since(s, start) == "", field_id
    # Each kind of field was tried: the batch's, a group's, a card's, a decision's.
    for kind in ("batch-reason", "greason-", "reason-", "why-"):
        assert any(t.startswith(kind) for t in tried), (kind, tried)


def test_merging_a_card_with_a_known_entry_leaves_no_duplicate(
    person: Page, ui_server: Server
) -> None:
    s = ui_server
    add_entry(s, "MEMORY.md", "Robin is allergic to cats")
    key = propose(s, "Robin", ["Robin has an allergy to cats", "Robin owns a red kayak"])
    person.goto(at(person, "/ui/"))
    card = person.locator(f"#p-{key}")
    expect(card.locator(".matches li.known")).to_contain_text("Robin is allergic to cats")
    card.locator("button.primary").click()  # the card's primary action
    expect(person.get_by_role("status")).to_contain_text("1 left out as already known")
    # Back where the person was: the next card's (or section's) anchor.
    expect(person).to_have_url(re.compile(r"/ui/s/[\w-]+/\?flash=[\w-]+#(p-|g-|proposals-h)"))
    memory = text_of(s, "MEMORY.md")
    assert "- Robin owns a red kayak" in memory
    assert "allergy to cats" not in memory
    assert memory.count("Robin is allergic to cats") == 1
    assert key not in pending(s)
    # Every entry known: the primary action rejects it as known, merging nothing.
    again = propose(s, "Robin again", ["Robin has a cat allergy"])
    person.goto(at(person, "/ui/"))
    card = person.locator(f"#p-{again}")
    expect(card.locator("button.primary")).to_have_text("Reject: already known")
    card.locator("button.primary").click()
    expect(person.get_by_role("status")).to_contain_text("Rejected \u201cRobin again\u201d")
    assert text_of(s, "MEMORY.md") == memory
    assert "Reason: already known: Robin has a cat allergy" in last_commit(s)
    # Replacing the known entry is a separate, deliberate action.
    third = propose(s, "Robin's kayak", ["Robin's kayak is red"])
    person.goto(at(person, "/ui/"))
    card = person.locator(f"#p-{third}")
    card.locator("summary", has_text="Merge the known entries too").click()
    card.get_by_role("button", name=re.compile("^Replace line")).click()
    expect(person.get_by_role("status")).to_contain_text("replaced 1 in place")
    memory = text_of(s, "MEMORY.md")
    assert "- Robin's kayak is red" in memory and "- Robin owns a red kayak\n" not in memory


def test_restoring_the_current_version_makes_no_commit_and_says_so(
    person: Page, ui_server: Server
) -> None:
    s = ui_server
    soul = "# Soul\n\nI am steady. " + "I speak plainly and keep my answers short. " * 3 + "\n"
    assert (
        s.put("/v1/files/SOUL.md", {"content": soul, "message": "steady"}, token="write").status
        == 200
    )
    newest = head(s)
    person.goto(at(person, "/ui/history/SOUL.md"))
    person.locator("ol.timeline a").first.click()
    # A restore of the current text (the newest commit's, or an older tab's form)
    # commits nothing and says so; on 9930d26 it claimed a commit.
    csrf = person.locator("form[action$='/logout'] input[name=csrf]").get_attribute("value")
    oid = s.get("/v1/files/SOUL.md", token="read").body["oid"]
    reply = person.context.request.post(
        at(person, "/ui/restore/SOUL.md"),
        form={"csrf": csrf or "", "rev": newest, "oid": oid},
        headers={"Origin": s.url},
    )
    assert reply.status == 200, reply.text()
    assert "nothing to restore, no commit made" in reply.text()
    assert "Restored" not in reply.text()
    assert head(s) == newest
    # And the page does not offer it: it says the text is the same.
    expect(person.locator("main")).to_contain_text("reads the same now as right after this commit")
    expect(person.get_by_role("button", name=re.compile("^Restore"))).to_have_count(0)


def test_a_refused_batch_keeps_the_selection(person: Page, ui_server: Server) -> None:
    s = ui_server
    one = propose(s, "Umbrella", ["Casey carries a green umbrella"])
    two = propose(s, "Scarf", ["Casey knits scarves in winter"])
    start = head(s)
    person.goto(at(person, "/ui/"))
    person.locator(f"#sel-{one}").check()
    person.locator(f"#sel-{two}").check()
    person.locator("#batch-reason").fill("   ")  # passes `required`, says nothing
    if person.locator("#n-selected").count():  # counted as ticked (hearth.js)
        expect(person.locator("#n-selected")).to_have_text("2 selected")
    person.get_by_role("button", name="Reject selected").click()
    # Refused: the same page, what was ticked and typed kept, in the page's words.
    expect(person.locator(f"#sel-{one}")).to_be_checked()
    expect(person.locator(f"#sel-{two}")).to_be_checked()
    expect(person.locator("#n-selected")).to_have_text("2 selected")
    expect(person.locator("#batch-reason")).to_have_attribute("required", "")
    alert = person.get_by_role("alert")
    expect(alert).to_contain_text("Give a reason for rejecting the proposals")
    expect(alert).not_to_contain_text("--reason")
    assert head(s) == start and {one, two} <= pending(s)
    person.locator("#batch-reason").fill("not needed")
    person.get_by_role("button", name="Reject selected").click()
    expect(person.get_by_role("status")).to_contain_text("\u201cUmbrella\u201d")
    expect(person.get_by_role("status")).to_contain_text("\u201cScarf\u201d")
    assert {one, two}.isdisjoint(pending(s))


def test_banners_come_from_the_server_not_the_address(person: Page, ui_server: Server) -> None:
    person.goto(at(person, "/ui/?done=merged&commit=" + "0" * 40 + "&flash=forged"))
    expect(person.get_by_role("status")).to_have_count(0)
    expect(person.locator("main")).not_to_contain_text("000000000000")


def test_history_of_a_missing_file_is_not_found(person: Page, ui_server: Server) -> None:
    reply = ui_server.get("/ui/history/NOPE.md", token="read")
    assert reply.status == 404
    assert b"NOPE.md" in reply.raw


def test_search_counts_match_the_cli_and_show_the_rest(person: Page, ui_server: Server) -> None:
    s = ui_server
    for n in range(24):
        reply = s.post(
            "/v1/daily", {"text": f"Saw a quokka number {n}", "title": f"Quokka {n}"}, token="write"
        )
        assert reply.status == 200
    ident = "# Identity\n\n- **Name:** Ember\n- **Creature:** a quokka-minded helper\n"
    assert s.put("/v1/files/IDENTITY.md", {"content": ident}, token="write").status == 200
    env = s.env  # type: ignore[attr-defined]
    found = json.loads(
        hearth("--home", str(s.root), "search", "quokka", "--limit", "200", "--json", env=env)
    )
    total = len(found["hits"])
    assert total > 20
    person.goto(at(person, "/ui/search?q=quokka"))
    expect(person.get_by_role("status")).to_contain_text(f"Showing 20 of {total} hits")
    expect(person.locator("ol.hits > li")).to_have_count(20)
    person.get_by_role("link", name=f"Show all {total}").click()
    expect(person.locator("ol.hits > li")).to_have_count(total)
    person.goto(at(person, "/ui/search?q=Ember"))
    snippet = person.locator("ol.hits .snippet").first
    expect(snippet).to_contain_text("Name: Ember")
    expect(snippet).not_to_contain_text("**")
    expect(snippet.locator("mark")).to_have_text("Ember")


def test_persona_who_and_times_in_the_persons_zone(person: Page, ui_server: Server) -> None:
    s = ui_server
    add_entry(s, "USER.md", "Time zone: Asia/Tokyo (JST)")
    key = propose(s, "Tokyo", ["Jun drinks matcha"])
    person.goto(at(person, "/ui/"))
    person.locator(f"#p-{key} button.primary").click()
    expect(person.get_by_role("status")).to_contain_text("Merged")
    person.goto(at(person, "/ui/persona"))
    row = person.locator("tr", has=person.get_by_role("rowheader", name="MEMORY.md"))
    expect(row).to_contain_text("ui:")
    expect(row).not_to_contain_text("maintainers")
    expect(row.locator("time")).to_have_text(re.compile(r"^\d{1,2} \w{3} \d{4}, \d\d:\d\d JST$"))


def test_gzip_for_pages_only_and_a_favicon(person: Page, ui_server: Server) -> None:
    s = ui_server
    import http.client

    def fetch(path: str) -> tuple[int, str | None, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
        conn.request(
            "GET",
            path,
            headers={"Authorization": f"Bearer {s.tokens['admin']}", "Accept-Encoding": "gzip"},
        )
        reply = conn.getresponse()
        body = reply.read()
        conn.close()
        return reply.status, reply.headers.get("Content-Encoding"), body

    status, coding, body = fetch("/ui/")
    assert status == 200 and coding == "gzip"
    assert b"Pending proposals" in gzip.decompress(body)
    status, coding, _body = fetch("/v1/proposals")
    assert status == 200 and coding is None
    status, _coding, body = fetch("/ui/static/favicon.svg")
    assert status == 200 and body.startswith(b"<svg")
    missing: list[str] = []
    person.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    person.goto(at(person, "/ui/"))
    expect(person.locator("link[rel=icon]")).to_have_attribute("href", "/ui/static/favicon.svg")
    person.wait_for_load_state("networkidle")
    assert missing == []


def test_pages_fit_a_phone(browser: Browser, ui_server: Server) -> None:
    """390 px wide: no page scrolls sideways and the header stays short (on
    9930d26 the Persona and Health tables scrolled and the header took 230 px)."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        extra_http_headers={"Authorization": f"Bearer {ui_server.tokens['admin']}"},
    )
    page = context.new_page()
    propose(ui_server, "Phone", ["Casey reads the news on a phone"])
    for path in ("/ui/", "/ui/persona", "/ui/health", "/ui/history/SOUL.md"):
        page.goto(ui_server.url + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, (path, width)
        header = page.locator("header.top").bounding_box()
        assert header is not None and header["height"] < 120, (path, header)
    context.close()
