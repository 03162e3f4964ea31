"""HTML out: the Jinja2 templates (autoescaped) and the few filters they use."""

from __future__ import annotations

import datetime as dt
import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from fastapi.responses import HTMLResponse
from markupsafe import Markup, escape

from hearth.domain.entries import entry_blocks
from hearth.domain.text import counted
from hearth.operation_texts import scope_sentences

if TYPE_CHECKING:
    from jinja2 import Environment

HERE = Path(__file__).parent
STYLESHEET = (HERE / "static" / "hearth.css").read_bytes
SCRIPT = (HERE / "static" / "hearth.js").read_bytes
FAVICON = (HERE / "static" / "favicon.svg").read_bytes

#: Sent with every page: nothing loads from elsewhere, nothing frames the page
#: (a framed page could be clicked through), nothing is cached, no address leaks to another site.
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; "
        "form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # Not no-referrer: Chromium then sends "Origin: null" with form posts, which the
    # origin guard rightly refuses.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def snippet(text: str, query: str = "") -> Markup:
    """A search snippet as text: the search marks its matches with ``**``, which
    markdown's own ``**Name:**`` makes ambiguous, so every ``**`` is dropped
    and the words of ``query`` (and longer words they begin) are marked
    again; everything else escaped."""
    plain = str(text).replace("**", "")
    words = sorted({w.lower() for w in re.findall(r"\w{2,}", query)}, key=len, reverse=True)
    if not words:
        return Markup(escape(plain))
    found = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\w*", re.I)
    out, at = Markup(""), 0
    for match in found.finditer(plain):
        out += escape(plain[at : match.start()]) + Markup("<mark>{}</mark>").format(match[0])
        at = match.end()
    return out + escape(plain[at:])


def zone_of(user_md: str) -> dt.tzinfo:
    """The person's time zone: USER.md's ``Time zone:`` entry when it names one
    (``Time zone: Europe/Lisbon (WET/WEST)``), else UTC."""
    from zoneinfo import ZoneInfo  # noqa: PLC0415

    for line in user_md.splitlines():
        found = re.search(r"time ?zone\W+([A-Za-z_]+(?:/[A-Za-z0-9_+-]+)+|UTC)", line, re.I)
        if found:
            try:
                return ZoneInfo(found[1])
            except (ValueError, LookupError):
                continue
    return dt.UTC


def when(value: object, zone: dt.tzinfo = dt.UTC) -> str:
    """An ISO time as a person reads it, in ``zone``: ``27 Nov 2026, 15:04 WET``."""
    text = str(value or "")
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    local = moment.astimezone(zone)
    return f"{local.day} {local:%b %Y, %H:%M} {local.tzname() or ''}".strip()


def entry_changes(before: str, after: str) -> tuple[list[str], list[str]]:
    """The entries (``entry_blocks``: a bullet, ``- ``, ``* `` or ``+ ``, with its
    wrapped lines; its sub-bullets after `` / ``) ``after`` adds and removes
    against ``before``. Known by what they say, so a re-wrap is no change."""
    old, new = _shown_entries(before), _shown_entries(after)
    gone = [e for e in old if e not in new]
    came = [e for e in new if e not in old]
    return came, gone


def _shown_entries(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").split("\n")
    return [block.key.replace("\n- ", " / ") for block in entry_blocks(lines)]


def diff_entries(diff: str) -> tuple[list[str], list[str]]:
    """Added and removed lines of a unified diff, without the diff's marks."""
    added = [
        line[1:]
        for line in diff.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    removed = [
        line[1:]
        for line in diff.splitlines()
        if line.startswith("-") and not line.startswith("---")
    ]
    return added, removed


def diff_class(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "file"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "del"
    return ""


def short(oid: str | None) -> str:
    return (oid or "")[:12]


def urlpath(path: str) -> str:
    """A home path as it goes into a page's link: each name percent-encoded (a
    ``?``, ``#``, space or quote in a file name stays part of the name), the
    ``/`` between names kept."""
    return quote(path, safe="/")


class Views:
    @functools.cached_property
    def env(self) -> Environment:
        """The templates' environment, made for the first page: a server that
        only answers the API and MCP never loads Jinja2 (memory it would keep)."""
        from jinja2 import Environment, FileSystemLoader, StrictUndefined  # noqa: PLC0415

        env = Environment(
            loader=FileSystemLoader(HERE / "templates"),
            autoescape=True,
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.filters.update(
            snippet=snippet, diff_class=diff_class, short=short, urlpath=urlpath, counted=counted
        )
        env.globals.update(entry_changes=entry_changes, diff_entries=diff_entries)
        return env

    def page(self, template: str, http_status: int = 200, **context: Any) -> HTMLResponse:
        base = {
            "scope_sentences": tuple(scope_sentences().values()),
            "visitor": None,
            "may": lambda _operation: False,
            "csrf": "",
            # Where the visitor's pages are (a session's secret place): every link and form.
            "base": "/ui",
            "here": "",
            "done": None,
            "when": when,
        }
        html = self.env.get_template(template).render({**base, **context})
        return HTMLResponse(html, status_code=http_status, headers=HEADERS)
