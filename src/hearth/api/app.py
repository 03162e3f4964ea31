"""The FastAPI application factory.

Its lifespan is the served home's (``app/served/lifecycle.py``: the start-up
pass beside serving, then the scheduler, the address published, and the
reverse at shutdown), with MCP over streamable HTTP mounted at ``/mcp``:
built on the first MCP request (hearth.mcp.mount), its session manager then
runs while the app serves.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from hearth import traffic
from hearth.api import fast_search, routes, routes_home
from hearth.api import hooks as hook_routes
from hearth.api import problems as errors
from hearth.api.admission import AuthBeforeBody
from hearth.api.guard import HostOriginGuard
from hearth.api.limits import BodyLimit
from hearth.api.starting import StartGate
from hearth.app.served.service import ServedHearth
from hearth.mcp.mount import PATH as MCP_PATH
from hearth.mcp.mount import ExactPath, LazyMount
from hearth.ui import GzipPages
from hearth.ui import install as install_ui


def _build_mcp(service: ServedHearth, url: str | None) -> tuple[Any, ASGIApp]:
    from hearth.mcp import http  # noqa: PLC0415  (the SDK's import takes seconds)

    return http.build(service, url)


def create_app(
    service: ServedHearth,
    *,
    url: str | None = None,
    allowed_hosts: Iterable[str] = (),
    unix: bool = False,
) -> FastAPI:
    """The API for ``service``, with MCP at ``/mcp`` and the review page at ``/ui/``;
    ``url`` is published for hooks once serving starts.

    ``allowed_hosts`` are the names (besides loopback) that requests may carry
    in ``Host`` (``*``: any); ``unix`` says the server listens on a unix socket.
    """
    mcp = LazyMount(lambda: _build_mcp(service, url))

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with service.serving(url), mcp.running():
            yield

    app = FastAPI(
        title="hearth",
        version="1",
        summary="An AI assistant's home (identity, persona, memory) as markdown in git.",
        lifespan=lifespan,
        # Swagger UI and ReDoc load their scripts from a CDN, so offline they were a
        # blank page; /openapi.json stays (docs/api.md says what reads it).
        docs_url=None,
        redoc_url=None,
    )
    errors.install(app)
    app.add_middleware(BodyLimit)
    app.add_middleware(GzipPages)
    app.add_middleware(StartGate, service=service)
    # Before anything reads a body: a stranger's is refused from its headers.
    app.add_middleware(AuthBeforeBody, service=service)
    # Added last, so it runs first: nothing else sees a refused request.
    app.add_middleware(HostOriginGuard, allowed_hosts=tuple(allowed_hosts), unix=unix)
    # Outermost but for the review page's places (install_ui): the vectors' filler
    # steps aside from the moment a request is seen.
    app.add_middleware(InFlight)
    app.state.service = service
    app.include_router(routes.router)
    app.include_router(routes_home.router)
    fast_search.install(app.router.routes, routes.router.routes)
    app.include_router(hook_routes.router)
    install_ui(app, service, errors.status_of)
    app.router.routes.append(Route(MCP_PATH, ExactPath(mcp), include_in_schema=False))
    # A person who opens the server's address in a browser gets the review page.
    app.router.routes.append(Route("/", _to_review_page, include_in_schema=False))
    app.mount(MCP_PATH, mcp)
    return app


class InFlight:
    """Counts each HTTP request while it is served (``hearth.traffic``), so
    the background fill of vectors steps aside from Python's lock meanwhile."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with traffic.serving():
            await self.app(scope, receive, send)


async def _to_review_page(_request: Request) -> RedirectResponse:
    return RedirectResponse("/ui/", status_code=307)
