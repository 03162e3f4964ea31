"""The review page end to end: a real headless Chromium against a real ``hearth serve``.

Every action goes through the browser (log in, click, fill a form) and is
checked where it lands: the file through the API, the commit with the git CLI.
Screenshots of the pages go to docs/ui/ (shown in docs/ui.md).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.api.conftest import Server, free_port, hearth
from tests.ui.conftest import SHOTS, at, git


def login(browser: Browser, server: Server, token: str) -> tuple[BrowserContext, Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    page = context.new_page()
    page.goto(server.url + "/ui/")
    expect(page).to_have_url(re.compile(r"/ui/login\?next="))
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Log in").click()
    # The session's pages are at its own secret place (the cookie's path).
    expect(page).to_have_url(re.compile(re.escape(server.url) + r"/ui/s/[\w-]{16,}/$"))
    return context, page


@pytest.fixture(scope="module")
def person(browser: Browser, ui_server: Server) -> Iterator[Page]:
    """The person whose assistant this is: an admin token (merges and rejects)."""
    context, page = login(browser, ui_server, ui_server.tokens["admin"])
    yield page
    context.close()


def test_an_agents_write_token_sees_no_merge_or_reject(browser: Browser, ui_server: Server) -> None:
    key = propose(ui_server, title="Agent wants this", entries=["agent fact"])
    context, page = login(browser, ui_server, ui_server.tokens["write"])
    card = page.locator(f"#p-{key}")
    expect(card).to_be_visible()
    expect(card.get_by_role("button", name=re.compile("^Merge"))).to_have_count(0)
    expect(card.get_by_text("Reject", exact=True)).to_have_count(0)
    expect(card.get_by_text("need an admin token")).to_be_visible()
    expect(card.get_by_text("Edit entries")).to_be_visible()
    context.close()


def propose(server: Server, title: str, entries: list[str], **extra: str) -> str:
    body = {"title": title, "entries": entries, "rationale": "said it twice", **extra}
    reply = server.post("/v1/proposals", {"source": "chat 2026-11-22", **body}, token="write")
    assert reply.status == 200, reply.body
    return str(reply.body["key"])


def text_of(server: Server, path: str) -> str:
    reply = server.get(f"/v1/files/{path}", token="read")
    assert reply.status == 200, reply.body
    return str(reply.body["content"])


def last_commit(server: Server) -> str:
    return git(server.root, "log", "-1", "--format=%s%n%b")


def pending(server: Server) -> set[str]:
    return {p["key"] for p in server.get("/v1/proposals", token="read").body["proposals"]}


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=True)


def test_login_page_and_nothing_without_a_token(browser: Browser, ui_server: Server) -> None:
    for path in ("/ui/", "/ui/health", "/ui/persona", "/ui/history/SOUL.md", "/ui/search?q=x"):
        reply = ui_server.get(path, token=None)
        assert reply.status == 303, path
        assert reply.raw == b""
    reply = ui_server.get("/ui/", token="not-a-token")
    assert reply.status == 401
    assert b"Pending" not in reply.raw
    reply = ui_server.post("/ui/loops/x/resolve", token=None, raw_body=b"csrf=x")
    assert reply.status == 401
    context = browser.new_context(viewport={"width": 1100, "height": 600})
    page = context.new_page()
    page.goto(ui_server.url + "/ui/")
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    page.get_by_label("Token").fill("hth_wrong")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_contain_text("unknown or revoked token")
    page.goto(ui_server.url + "/ui/login")
    shot(page, "login.png")
    context.close()


def test_merge_a_proposal(person: Page, ui_server: Server) -> None:
    key = propose(ui_server, "Coffee", ["Likes espresso", "Hates decaf"])
    loop = ui_server.post(
        "/v1/loops",
        {"title": "Book the Lisbon flights", "summary": "Trip in May", "next_step": "compare"},
        token="write",
    )
    assert loop.status == 200
    before = int(git(ui_server.root, "rev-list", "--count", "HEAD"))
    person.goto(at(person, "/ui/"))
    card = person.locator(f"#p-{key}")
    expect(card.get_by_role("heading", name="Coffee")).to_be_visible()
    # Entries added, in words; the raw diff one click away.
    expect(card.locator("ul.change.added li")).to_have_count(2)
    expect(card.locator("ul.change.added")).to_contain_text("Likes espresso")
    expect(card.locator("pre.diff")).to_contain_text("+- Likes espresso", use_inner_text=False)
    expect(card).to_contain_text("said it twice")
    expect(card).to_contain_text("chat 2026-11-22")
    shot(person, "review.png")
    card.get_by_role("button", name="Merge into MEMORY.md").click()
    head = git(ui_server.root, "rev-parse", "HEAD").strip()
    # The banner names the proposal, the file and the real commit (issue 41).
    expect(person.get_by_role("status")).to_contain_text(
        f"Merged \u201cCoffee\u201d into MEMORY.md: 2 entries added (commit {head[:12]})"
    )
    expect(person.locator(f"#p-{key}")).to_have_count(0)
    memory = text_of(ui_server, "MEMORY.md")
    assert "- Likes espresso" in memory
    assert "- Hates decaf" in memory
    assert int(git(ui_server.root, "rev-list", "--count", "HEAD")) == before + 1
    message = last_commit(ui_server)
    assert message.startswith("proposals: merge Coffee into MEMORY.md")
    assert "Hearth-Actor: ui:" in message
    assert key not in pending(ui_server)


def test_reject_with_a_reason(person: Page, ui_server: Server) -> None:
    key = propose(ui_server, "Tea", ["Likes green tea"])
    person.goto(at(person, "/ui/"))
    card = person.locator(f"#p-{key}")
    card.locator("summary", has_text="Reject").click()  # opens the <details>
    card.get_by_label("Reason").fill("only said it once")
    card.get_by_role("button", name="Reject with this reason").click()
    expect(person.get_by_role("status")).to_contain_text(
        "Rejected \u201cTea\u201d: only said it once"
    )
    assert key not in pending(ui_server)
    message = last_commit(ui_server)
    assert message.startswith("proposals: reject Tea")
    assert "Reason: only said it once" in message
    assert "green tea" not in text_of(ui_server, "MEMORY.md")


def test_edit_entries_then_merge(person: Page, ui_server: Server) -> None:
    key = propose(ui_server, "Music", ["Likes jazz", "Plays piano badly"])
    person.goto(at(person, "/ui/"))
    card = person.locator(f"#p-{key}")
    card.locator("summary", has_text="Edit entries").click()
    card.get_by_label("Entries, one per line").fill("Likes modal jazz\nPlays piano")
    card.get_by_role("button", name="Save entries").click()
    expect(person.get_by_role("status")).to_contain_text("Saved the entries of \u201cMusic\u201d")
    assert last_commit(ui_server).startswith("proposals: edit Music")
    card = person.locator(f"#p-{key}")
    expect(card.locator("ul.change.added")).to_contain_text("Likes modal jazz")
    card.get_by_role("button", name="Merge into MEMORY.md").click()
    expect(person.get_by_role("status")).to_contain_text("Merged \u201cMusic\u201d into MEMORY.md")
    memory = text_of(ui_server, "MEMORY.md")
    assert "- Likes modal jazz" in memory
    assert "- Plays piano\n" in memory
    assert "badly" not in memory
    assert "- Likes jazz" not in memory


def test_resolve_a_loop(person: Page, ui_server: Server) -> None:
    reply = ui_server.post(
        "/v1/loops", {"title": "Renew passport", "next_step": "find photos"}, token="write"
    )
    key = reply.body["key"]
    person.goto(at(person, "/ui/"))
    card = person.locator(f"#l-{key}")
    expect(card).to_contain_text("find photos")
    card.get_by_label("Resolution note").fill("renewed at the town hall")
    card.get_by_role("button", name="Resolve").click()
    expect(person.get_by_role("status")).to_contain_text("Resolved the open loop")
    loops = {lp["key"] for lp in ui_server.get("/v1/loops", token="read").body["loops"]}
    assert key not in loops
    assert last_commit(ui_server).startswith("loops: resolve Renew passport")


def test_soul_history_diff_and_restore(person: Page, ui_server: Server) -> None:
    voice = "I speak plainly, keep my answers short, say what I do not know and never flatter. "
    calm = f"# Soul\n\nI am calm and brief.\n\n{voice}\n"
    loud = f"# Soul\n\nI am LOUD and long-winded.\n\n{voice}\n"
    for content, message in ((calm, "calmer"), (loud, "louder")):
        reply = ui_server.put(
            "/v1/files/SOUL.md", {"content": content, "message": message}, token="write"
        )
        assert reply.status == 200, reply.body
    calm_commit = git(ui_server.root, "log", "-1", "--format=%H", "HEAD~1").strip()
    person.goto(at(person, "/ui/persona"))
    person.get_by_role("link", name="SOUL.md").click()
    expect(person.get_by_role("heading", name="History of SOUL.md")).to_be_visible()
    timeline = person.locator("ol.timeline")
    expect(timeline).to_contain_text("Hearth-Op")
    expect(timeline).to_contain_text("file.put")
    timeline.get_by_role("link", name="persona: update SOUL.md").nth(1).click()
    diff = person.locator("pre.diff")
    expect(person.locator("ul.change.added")).to_contain_text("I am calm and brief.")
    expect(diff).to_contain_text("+I am calm and brief.", use_inner_text=False)
    shot(person, "history.png")
    before = int(git(ui_server.root, "rev-list", "--count", "HEAD"))
    person.get_by_role(
        "button", name=re.compile("^Restore SOUL.md to its text right after")
    ).click()
    expect(person.get_by_role("status")).to_contain_text(
        f"Restored SOUL.md to its text right after commit {calm_commit[:12]}, as a new commit"
    )
    assert text_of(ui_server, "SOUL.md") == calm
    assert int(git(ui_server.root, "rev-list", "--count", "HEAD")) == before + 1
    message = last_commit(ui_server)
    assert message.startswith("persona: restore SOUL.md from " + calm_commit[:12])
    # history is kept: the loud version is still there
    assert "louder" in git(ui_server.root, "log", "--format=%b", "--", "SOUL.md")


def test_stale_page_is_refused_with_a_visible_conflict(person: Page, ui_server: Server) -> None:
    key = propose(ui_server, "Cheese", ["Likes comte"])
    person.goto(at(person, "/ui/"))
    # Someone else adds an entry while the page is open: the page is stale.
    propose(ui_server, "Cheese", ["Dislikes blue cheese"])
    head = git(ui_server.root, "rev-parse", "HEAD")
    person.locator(f"#p-{key}").get_by_role("button", name="Merge into MEMORY.md").click()
    expect(person.get_by_role("heading", name="Conflict: nothing was changed")).to_be_visible()
    expect(person.get_by_role("alert")).to_contain_text("changed since this page was made")
    shot(person, "conflict.png")
    assert git(ui_server.root, "rev-parse", "HEAD") == head
    assert key in pending(ui_server)
    assert "comte" not in text_of(ui_server, "MEMORY.md")
    # A stale restore is refused the same way.
    person.goto(at(person, "/ui/history/SOUL.md"))
    person.locator("ol.timeline a").last.click()
    newer = "# Soul\n\nNewer. " + "I speak plainly and keep my answers short. " * 3 + "\n"
    assert ui_server.put("/v1/files/SOUL.md", {"content": newer}, token="write").status == 200
    person.get_by_role("button", name=re.compile("^Restore SOUL.md")).click()
    expect(person.get_by_role("alert")).to_contain_text("SOUL.md changed since")
    assert text_of(ui_server, "SOUL.md") == newer


def test_search_links_to_the_lines(person: Page, ui_server: Server) -> None:
    person.goto(at(person, "/ui/search"))
    person.get_by_label("Words").fill("espresso")
    person.get_by_role("button", name="Search").click()
    hit = person.locator("ol.hits li").first
    expect(hit.locator("mark")).to_contain_text("espresso")
    expect(hit).to_contain_text("lines")
    shot(person, "search.png")
    hit.get_by_role("link").click()
    expect(person).to_have_url(re.compile(r"/ui/s/[\w-]+/files/MEMORY\.md\?lines=\d+-\d+#L\d+"))
    expect(person.locator("pre.file .hit").filter(has_text="Likes espresso")).to_have_count(1)


def test_search_says_what_the_floor_left_out(ui_server: Server) -> None:
    """Issue 48: the review page's search shows ``left_out``, and the nearest
    hit left out with its reason ("zzqx" is in no section: half the words). The
    test writes the note it needs: the module's other tests change the persona."""
    note = {"content": "# Candour\n\nCandour is what Sam asks of everyone.\n"}
    assert ui_server.put("/v1/files/memory/topics/candour.md", note).status < 300
    reply = ui_server.get("/ui/search?q=candour+zzqx")
    assert reply.status == 200
    assert b"below the relevance floor left out; the nearest" in reply.raw
    assert b"candour.md</a>: it holds" in reply.raw


def test_health(person: Page, ui_server: Server) -> None:
    person.goto(at(person, "/ui/health"))
    expect(person.get_by_role("heading", name=re.compile("^Needs attention"))).to_be_visible()
    checks = person.locator("table.checks")
    for what in ("Search index", "File watcher", "Sync", "Conflict copies", "Parked files"):
        expect(checks.get_by_role("rowheader", name=what)).to_be_visible()
    expect(checks).to_contain_text("files indexed")
    expect(checks).to_contain_text("git remote add origin")
    shot(person, "health.png")


def test_read_token_sees_but_cannot_act(browser: Browser, ui_server: Server) -> None:
    key = propose(ui_server, "Shoes", ["Size 43"])
    context, page = login(browser, ui_server, ui_server.tokens["read"])
    card = page.locator(f"#p-{key}")
    expect(card.get_by_role("heading", name="Shoes")).to_be_visible()
    expect(card.locator("ul.change.added")).to_contain_text("Size 43")
    expect(page.get_by_role("button", name=re.compile("Merge|Reject|Resolve"))).to_have_count(0)
    shot(page, "read-only.png")
    csrf = page.locator("form[action$='/logout'] input[name=csrf]").get_attribute("value")
    reply = context.request.post(at(page, f"/ui/proposals/{key}/merge"), form={"csrf": csrf or ""})
    assert reply.status == 403
    assert "needs a token with the admin scope" in reply.text()
    assert key in pending(ui_server)
    context.close()


def test_forms_need_the_csrf_value(person: Page, ui_server: Server) -> None:
    key = propose(ui_server, "Hats", ["Wears a cap"])
    reply = person.context.request.post(
        at(person, f"/ui/proposals/{key}/merge"),
        form={"csrf": "0" * 64},
        headers={"Origin": ui_server.url},
    )
    assert reply.status == 403
    assert "CSRF" in reply.text()
    assert key in pending(ui_server)


class _Attacker(BaseHTTPRequestHandler):
    form = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(self.form)

    def log_message(self, *_args: Any) -> None:
        pass


def test_cross_site_form_post_is_refused(person: Page, ui_server: Server) -> None:
    key = propose(ui_server, "Gloves", ["Wears wool gloves"])
    csrf = person.locator("form[action$='/logout'] input[name=csrf]").get_attribute("value")
    port = free_port()
    handler = type("Handler", (_Attacker,), {})
    handler.form = (
        f'<form method="post" action="{at(person, f"/ui/proposals/{key}/merge")}">'
        f'<input type="hidden" name="csrf" value="{csrf}"><button>Win a prize</button></form>'
    ).encode()
    site = ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        person.goto(f"http://localhost:{port}/")  # another site, same browser session
        with person.expect_navigation() as answer:
            person.get_by_role("button", name="Win a prize").click()
        assert answer.value is not None
        assert answer.value.status == 403
        assert "another site" in person.content()
    finally:
        site.shutdown()
        site.server_close()
        thread.join()
    assert key in pending(ui_server)


def test_revoked_token_and_logout(browser: Browser, ui_server: Server) -> None:
    env = ui_server.env  # type: ignore[attr-defined]
    home = str(ui_server.root)
    token = hearth(
        "--home", home, "token", "create", "--name", "brief", "--scope", "write", env=env
    )
    context, page = login(browser, ui_server, token.strip())
    hearth("--home", home, "token", "revoke", "brief", env=env)
    page.reload()
    expect(page).to_have_url(re.compile(r"/ui/login"))
    context.close()
    context, page = login(browser, ui_server, ui_server.tokens["write"])
    cookies = context.cookies()
    session = next(c for c in cookies if c["name"] == "hearth_session")
    assert session["httpOnly"] is True
    assert session["sameSite"] == "Strict"
    assert ui_server.tokens["write"] not in session["value"]
    page.get_by_role("button", name="Log out").click()
    expect(page).to_have_url(re.compile(r"/ui/login"))
    page.goto(ui_server.url + "/ui/")
    expect(page).to_have_url(re.compile(r"/ui/login"))
    context.close()
