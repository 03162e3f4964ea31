"""HTML out: the Jinja2 templates (autoescaped) and the few filters they use."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi.responses import HTMLResponse
from markupsafe import Markup, escape

from hearth.domain.policy import scope_sentences

if TYPE_CHECKING:
    from jinja2 import Environment

HERE = Path(__file__).parent
STYLESHEET = (HERE / "static" / "hearth.css").read_bytes

#: Sent with every page: nothing loads from elsewhere, nothing frames the page
#: (a framed page could be clicked through), nothing is cached, no address leaks to another site.
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # Not no-referrer: Chromium then sends "Origin: null" with form posts, which the
    # origin guard rightly refuses.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def snippet(text: str) -> Markup:
    """A search snippet with its ``**matches**`` marked, everything else escaped."""
    parts = str(text).split("**")
    if len(parts) % 2 == 0:  # an unpaired marker: show the text as it is
        return Markup(escape(text))
    return Markup("").join(
        Markup("<mark>{}</mark>").format(p) if i % 2 else escape(p) for i, p in enumerate(parts)
    )


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


class Views:
    @functools.cached_property
    def env(self) -> Environment:
        """The templates' environment, made for the first page: a server that
        only answers the API and MCP never loads Jinja2 (about 2 MB of it)."""
        from jinja2 import Environment, FileSystemLoader, StrictUndefined  # noqa: PLC0415

        env = Environment(
            loader=FileSystemLoader(HERE / "templates"),
            autoescape=True,
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.filters.update(snippet=snippet, diff_class=diff_class, short=short)
        return env

    def page(self, template: str, http_status: int = 200, **context: Any) -> HTMLResponse:
        base = {
            "scope_sentences": tuple(scope_sentences().values()),
            "visitor": None,
            "may": lambda _operation: False,
            "csrf": "",
            "here": "",
            "done": None,
        }
        html = self.env.get_template(template).render({**base, "commit": "", **context})
        return HTMLResponse(html, status_code=http_status, headers=HEADERS)
