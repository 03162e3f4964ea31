"""Another user of the machine never gets the person's review-page session
(hostile pass): a real Chromium logged in to a real ``hearth serve``, and a
web server of "another user" on another loopback port of the same host."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import ClassVar

import pytest
from playwright.sync_api import Browser

from tests.api.conftest import Server
from tests.ui.test_review_page import login


class _Catcher(http.server.BaseHTTPRequestHandler):
    """Another user's server: links on within its own site, keeps what it is sent."""

    cookies: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.cookies.append(self.headers.get("Cookie") or "")
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


@pytest.mark.xfail(
    strict=True,
    reason="cookies are not bound to a port: the session cookie (path /ui) goes to "
    "every server on the host's loopback address",
)
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
    settle) works for that user. The cookie must not be the whole credential,
    or must be scoped where another port cannot receive it (a path with a
    secret of this server's, as a notebook server's token URL does)."""
    url, caught = other_users_server
    context, page = login(browser, ui_server, ui_server.tokens["admin"])
    try:
        page.goto(url + "/")
        page.click("#on")
        page.wait_for_load_state()
    finally:
        context.close()
    assert len(caught) >= 2  # the page, and the link followed within its site
    assert not any("hearth_session" in cookie for cookie in caught), caught
