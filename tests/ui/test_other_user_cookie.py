"""Another user of the machine never gets the person's review-page session
(hostile pass): a real Chromium logged in to a real ``hearth serve``, and a
web server of "another user" on another loopback port of the same host."""

from __future__ import annotations

import http.server
import re
import threading
from collections.abc import Iterator
from typing import ClassVar

import pytest
from playwright.sync_api import Browser, expect

from tests.api.conftest import Server
from tests.ui.conftest import at
from tests.ui.test_review_page import login


class _Catcher(http.server.BaseHTTPRequestHandler):
    """Another user's server: links on within its own site, keeps what it is sent
    (the cookies, and the path and Referer, where a session's place would show)."""

    cookies: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.cookies.append(self.headers.get("Cookie") or "")
        self.cookies.append(f"{self.path} {self.headers.get('Referer') or ''}")
        body = b'<a id="on" href="/ui/anything">on</a>' if self.path == "/" else b"ok"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def other_users_server() -> Iterator[tuple[str, list[str]]]:
    caught: list[str] = []
    handler = type("Catcher", (_Catcher,), {"cookies": caught})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", caught
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_the_review_session_never_reaches_another_port_of_the_host(
    browser: Browser, ui_server: Server, other_users_server: tuple[str, list[str]]
) -> None:
    """Reproduction: the person logs in to the review page at
    http://127.0.0.1:PORT/ui/; another user of the machine runs any web server
    on 127.0.0.1:OTHER (`setpriv --reuid=nobody ... python3 -m http.server`
    will do) and gets the person to follow a link to it (a chat message, a
    page). That page links on to http://127.0.0.1:OTHER/ui/x, a same-site
    navigation, so Chromium sends the SameSite=Strict `hearth_session` cookie
    there (RFC 6265 section 8.5: cookies do not isolate ports). With it,
    `curl -H 'Cookie: hearth_session=...' http://127.0.0.1:PORT/ui/` answers
    200 with the page's CSRF value, and every admin form (merge, restore,
    settle) works for that user (6014d0d). Now the cookie's path is the
    session's secret place (/ui/s/<place>), which the other server never
    learns: the person's pages send it no Referer, even when the person goes
    there from one of them."""
    url, caught = other_users_server
    context, page = login(browser, ui_server, ui_server.tokens["admin"])
    place = page.url.removeprefix(ui_server.url).rstrip("/")  # /ui/s/<place>
    try:
        page.goto(url + "/")
        page.click("#on")
        page.wait_for_load_state()
        page.goto(ui_server.url + "/ui/persona")
        expect(page).to_have_url(re.compile(re.escape(place) + "/persona$"))
        page.evaluate("u => { location.href = u }", url + "/")
        page.wait_for_url(url + "/")
        page.click("#on")
        page.wait_for_load_state()
    finally:
        context.close()
    assert len(caught) >= 8  # each page and link, each with its cookies and its Referer
    assert not any("hearth_session" in line for line in caught), caught
    assert re.fullmatch(r"/ui/s/[\w-]{16,}", place), place
    assert not any(place in line for line in caught), caught


def test_a_place_that_no_longer_opens_is_forgotten(browser: Browser, ui_server: Server) -> None:
    """The page remembers its place in the origin's own storage (kept apart by
    port): /ui/ opened again goes there (the login form opened on purpose
    stays); after logging out, /ui/ is the login form (the old place is tried
    once, the server answers it with ``gone``, and it is forgotten: never a loop)."""
    context, page = login(browser, ui_server, ui_server.tokens["admin"])
    try:
        place = at(page, "/ui")
        page.goto(ui_server.url + "/ui/health")
        expect(page).to_have_url(place + "/health")
        page.goto(ui_server.url + "/ui/login")  # on purpose: another token, say
        expect(page.get_by_label("Token")).to_be_visible()
        expect(page).to_have_url(ui_server.url + "/ui/login")
        page.goto(place + "/health")
        csrf = page.locator("form[action$='/logout'] input[name=csrf]").get_attribute("value")
        reply = context.request.post(
            at(page, "/ui/logout"), form={"csrf": csrf or ""}, headers={"Origin": ui_server.url}
        )
        assert reply.ok
        # The stored place is tried, the server says it is gone, the page forgets it.
        page.goto(ui_server.url + "/ui/health")
        expect(page).to_have_url(re.compile(r"/ui/login\?next=%2Fui%2Fhealth&gone=1$"))
        expect(page.get_by_label("Token")).to_be_visible()
        assert page.evaluate("localStorage.getItem('hearth.place')") is None
        page.goto(ui_server.url + "/ui/health")  # nothing left to go back to
        expect(page).to_have_url(re.compile(r"/ui/login\?next=%2Fui%2Fhealth$"))
        page.goto(place + "/health")
        expect(page).to_have_url(re.compile(r"/ui/login\?next=%2Fui%2Fhealth&gone=1$"))
        assert page.evaluate("localStorage.getItem('hearth.place')") is None
    finally:
        context.close()
