"""The FastAPI application factory and its lifespan.

The lifespan starts, beside serving (requests get 503 until it is done,
api/starting.py), in order: the service (a start-up reconcile pass, then
the reconcile worker and the file watcher), then an APScheduler 3
``AsyncIOScheduler`` with the jobs of the home's ``[schedule]`` settings:
a full reconcile pass, the weekly rollup of daily notes, the watcher's
health check, and sync with the git remote (when the branch has an
upstream). Jobs coalesce and never run two instances at once; each runs on
the event loop's thread pool and records its outcome in the service, so a
failing job shows in status and in ACTIVE.md. Shutdown stops them in the
reverse order. MCP over streamable HTTP is mounted at ``/mcp``: built on the first
MCP request (hearth.mcp.mount), its session manager then runs while the app
serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route
from starlette.types import ASGIApp

from hearth.api import fast_search, routes
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


def _schedule(service: ServedHearth) -> AsyncIOScheduler:
    settings = service.ops.settings.schedule
    scheduler = AsyncIOScheduler(
        timezone="UTC",
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 300},
    )
    jobs: list[tuple[str, Any, Any]] = [
        (
            "reconcile",
            service.jobs.reconcile,
            IntervalTrigger(minutes=settings.reconcile_minutes),
        ),
        (
            "rollup",
            service.jobs.rollup,
            CronTrigger(day_of_week=settings.rollup_day, hour=settings.rollup_hour, minute=0),
        ),
        (
            "watcher",
            service.jobs.watcher,
            IntervalTrigger(seconds=settings.watcher_check_seconds),
        ),
        ("sync", service.jobs.sync, IntervalTrigger(minutes=settings.sync_minutes)),
        (
            "consolidate",
            service.consolidate,
            IntervalTrigger(minutes=service.ops.settings.consolidation.every_minutes),
        ),
    ]
    reflection = service.ops.settings.reflection
    if reflection.enabled:
        jobs.append(
            (
                "reflection",
                service.jobs.reflection,
                IntervalTrigger(seconds=reflection.every_seconds),
            )
        )
    for name, job, trigger in jobs:
        scheduler.add_job(service.jobs.run, trigger, args=(name, job), id=name, name=name)
    return scheduler


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

    scheduler: list[AsyncIOScheduler] = []

    async def start() -> None:
        try:
            await run_in_threadpool(service.start)
        except Exception as exc:
            # Not a bad home (those are reported in status): a bug. Every answer
            # says so rather than "starting" forever, and so does the log.
            service.start_error = f"{type(exc).__name__}: {exc}"
            logging.getLogger("uvicorn.error").exception("hearth failed to start")
            raise
        scheduler.append(_schedule(service))
        scheduler[0].start()
        service.jobs.running = True
        if url is not None:
            service.publish_address(url)
        service.ready.set()

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # Serving starts at once; the start-up pass (a whole index build on a
        # home never indexed) runs beside it, and requests get 503 with its
        # progress until it ends (api/starting.py).
        starting = asyncio.create_task(start())
        try:
            async with mcp.running():
                yield
        finally:
            service.interrupt_start()
            with contextlib.suppress(Exception):
                await starting
            if scheduler:
                scheduler[0].shutdown(wait=False)
                service.jobs.running = False
            await run_in_threadpool(service.stop)

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
    app.state.service = service
    app.include_router(routes.router)
    fast_search.install(app.router.routes, routes.router.routes)
    app.include_router(hook_routes.router)
    install_ui(app, service, errors.status_of)
    app.router.routes.append(Route(MCP_PATH, ExactPath(mcp), include_in_schema=False))
    # A person who opens the server's address in a browser gets the review page.
    app.router.routes.append(Route("/", _to_review_page, include_in_schema=False))
    app.mount(MCP_PATH, mcp)
    return app


async def _to_review_page(_request: Request) -> RedirectResponse:
    return RedirectResponse("/ui/", status_code=307)
