"""The review page (``/ui/``): a person's view of the home, server-rendered HTML.

An edge like the HTTP API: pages read through the service, forms post to one
operation each, and nothing below the service is touched here. See
docs/ui.md.
"""

from fastapi import FastAPI

from hearth.app.served.service import ServedHearth
from hearth.ui import changes, pages, review
from hearth.ui.kit import GzipPages, Kit, StatusOf
from hearth.ui.places import Places

__all__ = ["GzipPages", "install"]


def install(app: FastAPI, service: ServedHearth, status_of: StatusOf) -> None:
    """The review page on ``app``: its routes, and the Kit they share, kept in the
    app's state; ``status_of`` is the API's error table (one table)."""
    app.state.ui_kit = Kit.for_home(service, status_of)
    # Outermost, so every check below sees the page's address and its session's place.
    app.add_middleware(Places)
    app.include_router(pages.router)
    app.include_router(review.router)
    app.include_router(changes.router)
