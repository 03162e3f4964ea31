"""An agent's token cannot log the person out of the review page (hostile pass):
a real server, the login form posted over loopback as a browser posts it."""

from __future__ import annotations

import re

import httpx2

from hearth.ui.auth import MAX_SESSIONS
from tests.api.conftest import Server


def _log_in(client: httpx2.Client, token: str) -> str:
    """Where the session the login form gives ``token`` lives (its pages' place,
    its cookie's path)."""
    form = client.get("/ui/login")
    field = re.search(r'name="login_csrf" value="([^"]+)"', form.text)
    assert form.status_code == 200 and field, form.text
    done = client.post("/ui/login", data={"login_csrf": field[1], "token": token, "next": "/ui/"})
    assert done.status_code == 303, done.text
    where = done.headers["location"]
    assert any(c.name == "hearth_session" and c.path == where[:-1] for c in client.cookies.jar)
    return where


def test_an_agents_logins_never_end_the_persons_session(shared_server: Server) -> None:
    """Reproduction: the person logs in to /ui/ with the admin token; an agent
    holding a write token posts the login form MAX_SESSIONS times (each with a
    fresh form). On main the server kept MAX_SESSIONS sessions in all and
    dropped the oldest, the person's: their next page was the login form."""
    s = shared_server
    with httpx2.Client(base_url=s.url, follow_redirects=False) as person:
        mine = _log_in(person, s.tokens["admin"])
        with httpx2.Client(base_url=s.url, follow_redirects=False) as agent:
            for _ in range(MAX_SESSIONS):
                theirs = _log_in(agent, s.tokens["write"])
            assert agent.get(theirs).status_code == 200
        page = person.get(mine)
        assert page.status_code == 200, page.headers.get("location")


def test_the_session_cookie_alone_opens_nothing(shared_server: Server) -> None:
    """The cookie another user caught (another port of the host, or any other
    way) and replays with curl: on 6014d0d `GET /ui/` with it answered 200 with
    the page's CSRF value. Now a session opens its pages only at its own place,
    and the cookie's path is that place."""
    s = shared_server
    with httpx2.Client(base_url=s.url, follow_redirects=False) as person:
        mine = _log_in(person, s.tokens["admin"])
        cookie = next(c for c in person.cookies.jar if c.name == "hearth_session")
        assert cookie.path == mine.rstrip("/")
        assert person.get(mine).status_code == 200
        stolen = {"Cookie": f"hearth_session={cookie.value}"}
    with httpx2.Client(base_url=s.url, follow_redirects=False) as other:
        for path in ("/ui/", "/ui/health", "/ui/s/" + "A" * 32 + "/", mine[:-2] + "x/"):
            page = other.get(path, headers=stolen)
            assert page.status_code == 303, (path, page.text)
            assert page.headers["location"].startswith("/ui/login?next=%2Fui%2F")
            assert "csrf" not in page.text
        posted = other.post(
            "/ui/loops/x/resolve", headers={**stolen, "Origin": s.url}, data={"csrf": "x"}
        )
        assert posted.status_code == 401, posted.text
    assert re.fullmatch(r"/ui/s/[\w-]{16,}/", mine), mine


def test_a_cookie_set_by_another_port_does_not_log_the_person_out(shared_server: Server) -> None:
    """A server on another port of the host can set cookies for the host too:
    a `hearth_session` of its own (path /ui, or the place's parent) comes along
    with the person's. On 6014d0d the last value won and the person's page was
    the login form; now the first valid one (the person's, of the longer path)
    counts."""
    s = shared_server
    with httpx2.Client(base_url=s.url, follow_redirects=False) as person:
        mine = _log_in(person, s.tokens["admin"])
        real = next(c.value for c in person.cookies.jar if c.name == "hearth_session")
        tossed = {"Cookie": f"hearth_session={real}; hearth_session=planted-by-another-user"}
        page = person.get(mine, headers=tossed)
        assert page.status_code == 200, page.headers.get("location")


def test_login_never_goes_to_an_old_place(shared_server: Server) -> None:
    """A link to an old session's page (a bookmark, a page left open across a
    restart) logs in to the same page at the new session's place."""
    s = shared_server
    with httpx2.Client(base_url=s.url, follow_redirects=False) as person:
        old = "/ui/s/" + "B" * 32 + "/health"
        page = person.get(old)
        assert page.status_code == 303
        assert page.headers["location"] == "/ui/login?next=%2Fui%2Fhealth&gone=1"
        form = person.get("/ui/login")
        field = re.search(r'name="login_csrf" value="([^"]+)"', form.text)
        assert field
        body = {"login_csrf": field[1], "token": s.tokens["admin"], "next": old}
        done = person.post("/ui/login", data=body)
        assert re.fullmatch(r"/ui/s/[\w-]{16,}/health", done.headers["location"])
        assert "B" * 32 not in done.headers["location"]
        assert person.get(done.headers["location"]).status_code == 200
