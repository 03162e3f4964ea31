"""The scripted person of ``bench/months.py``: the review page's default action on every card.

The person reads the Review tab (``GET /ui/``) as a browser gets it and
presses, on every card that offers one, the button the page makes the easy
one: the ``primary`` button (``ui/templates/review.html``). Today that is
"Merge into TARGET" (known entries left out), "Reject: already known", and a
group's "Keep the chosen one, reject the others" (the page's suggested
keeper); a card over its bound offers no merge, so the person leaves it. The
person knows no card kind: a card hearth adds later (a consolidation or a
replacement proposal) is followed the same way when its default button is
``primary``. Each form is sent with exactly the fields the page put in it
(hidden fields, the checked radio button), so the page's versions and CSRF
value go back as a browser would send them.

Forms of one page are sent in page order while the files they name are as
the page showed them; a form naming a file an earlier form of this page
changed waits for the page to be read again (the server would refuse it as
changed since read). A button the server refused (a group's keeper over its
bound) is pressed again only once a file it would change has changed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser

from in_process import InProcess

#: Form fields that name a file of the home (``seen``: ``KEY OID TARGET_OID TARGET``).
PATH_FIELDS = ("path", "target")
_KEY = re.compile(r"/[A-Za-z0-9-]*--[0-9a-f]{8}-[0-9a-f-]{27}")


@dataclass
class Form:
    action: str
    fields: list[tuple[str, str]] = field(default_factory=list)
    primary: bool = False
    label: str = ""

    @property
    def kind(self) -> str:
        """What the button does, without the record's key: ``/ui/proposals/merge``."""
        return _KEY.sub("", self.action)

    def paths(self) -> set[str]:
        named = {v for k, v in self.fields if k in PATH_FIELDS and v}
        for k, v in self.fields:
            if k == "seen":
                parts = v.split(" ", 3)
                if len(parts) == 4:
                    named.add(parts[3])
                    named.add(f"proposal:{parts[0]}")
        return named

    def identity(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        """The decision and the versions of the files it would change: a refused
        button is pressed again only once one of those files has changed (room
        was made), not because another near-duplicate joined its group."""
        named: set[tuple[str, str]] = set()
        for k, v in self.fields:
            if k in ("keep", "path", "target", "target_oid", "oid"):
                named.add((k, v))
            elif k == "seen":
                parts = v.split(" ", 3)
                if len(parts) == 4:
                    named.add((parts[3], parts[2]))
        return self.kind if "keep" in dict(self.fields) else self.action, tuple(sorted(named))


class _Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._button = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("method", "").lower() == "post":
            self._form = Form(a.get("action", ""))
        elif self._form is None or "form" in a:
            return
        elif tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind in ("radio", "checkbox") and "checked" not in a:
                return
            self._form.fields.append((a["name"], a.get("value", "")))
        elif tag == "button" and a.get("type", "submit") == "submit" and not self._form.label:
            self._form.primary = "primary" in a.get("class", "").split()
            self._button = True

    def handle_data(self, data: str) -> None:
        if self._button and self._form is not None:
            self._form.label += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "button":
            self._button = False
        elif tag == "form" and self._form is not None:
            self._form.label = " ".join(self._form.label.split())
            self.forms.append(self._form)
            self._form = None


def page_forms(html: str) -> list[Form]:
    parser = _Forms()
    parser.feed(html)
    return parser.forms


@dataclass
class Decisions:
    """What the person did in one review: each button pressed, by kind, and the cards left."""

    pressed: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    left_pending: int = 0
    pages_read: int = 0

    @property
    def count(self) -> int:
        return sum(self.pressed.values())


class ScriptedPerson:
    def __init__(self, client: InProcess, token: str) -> None:
        self.client = client
        self.token = token
        self.tried: set[tuple[str, tuple[tuple[str, str], ...]]] = set()

    def review(self, after: Callable[[], None] | None = None, rounds: int = 10_000) -> Decisions:
        """Every default button until none is left (or only ones that were refused);
        ``after`` is called after each button that worked."""
        done = Decisions()
        for _ in range(rounds):
            page = self.client.get("/ui/", self.token)
            done.pages_read += 1
            if page.status != 200:
                raise SystemExit(f"the review page answered {page.status}: {page.text[:300]}")
            forms = [f for f in page_forms(page.text) if f.primary]
            fresh = [f for f in forms if f.identity() not in self.tried]
            if not fresh:
                done.left_pending = _pending(page.text)
                return done
            changed: set[str] = set()
            for form in fresh:
                named = form.paths()
                if named & changed:
                    continue  # the page's version of a file it names is gone: read it again
                self.tried.add(form.identity())
                answer = self.client.post_form(form.action, self.token, form.fields)
                if answer.status in (302, 303):
                    done.pressed[form.kind] += 1
                    changed |= named
                    if after is not None:
                        after()
                else:  # refused: nothing changed, the page's other forms still hold
                    done.refused[form.kind] += 1
        raise SystemExit("the review did not settle")


_PENDING = re.compile(r'<h2 id="proposals-h">Pending proposals <span class="count">(\d+)</span>')


def _pending(html: str) -> int:
    found = _PENDING.search(html)
    return int(found[1]) if found else 0
