"""An agent's token cannot log the person out of the review page (hostile pass):
a real server, the login form posted over loopback as a browser posts it."""

from __future__ import annotations

import re

import httpx2

from hearth.ui.auth import MAX_SESSIONS
from tests.api.conftest import Server


def _log_in(client: httpx2.Client, token: str) -> str:
    """The session cookie the login form gives ``token``."""
    form = client.get("/ui/login")
    field = re.search(r'name="login_csrf" value="([^"]+)"', form.text)
    assert form.status_code == 200 and field, form.text
    done = client.post("/ui/login", data={"login_csrf": field[1], "token": token, "next": "/ui/"})
    assert done.status_code == 303, done.text
    return client.cookies["hearth_session"]


def test_an_agents_logins_never_end_the_persons_session(shared_server: Server) -> None:
    """Reproduction: the person logs in to /ui/ with the admin token; an agent
    holding a write token posts the login form MAX_SESSIONS times (each with a
    fresh form). On main the server kept MAX_SESSIONS sessions in all and
    dropped the oldest, the person's: their next page was the login form."""
    s = shared_server
    with httpx2.Client(base_url=s.url, follow_redirects=False) as person:
        _log_in(person, s.tokens["admin"])
        with httpx2.Client(base_url=s.url, follow_redirects=False) as agent:
            for _ in range(MAX_SESSIONS):
                _log_in(agent, s.tokens["write"])
            assert agent.get("/ui/").status_code == 200
        page = person.get("/ui/")
        assert page.status_code == 200, page.headers.get("location")
