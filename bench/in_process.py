"""hearth's served application asked in this process, as an HTTP client asks it.

``bench/months.py`` replays months of a home with the clock set to each
session's date. The clock is a seam hearth owns (``domain/clock.py``), handed to
``wiring.open_service``; a ``hearth serve`` process has no way to take one. So
the bench builds the served home here with its clock and asks the very ASGI
application ``hearth serve`` runs (``api.app.create_app``: the same routes,
middleware, token checks, review page and CSRF values), one request at a
time, on one event loop. The application's lifespan is not run: it would
start APScheduler on the wall clock; the bench starts the service itself and
runs the scheduled jobs at the simulated times (``jobs_due``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from hearth.api.app import create_app
from hearth.app.served.service import ServedHearth

#: A job whose triggers come closer than this runs once per quiet stretch: between
#: two sessions nothing writes to the home, so a second run finds what the first left.
COALESCED = dt.timedelta(days=1)


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.body)


class InProcess:
    """The served application of ``service``, asked request by request."""

    def __init__(self, service: ServedHearth) -> None:
        self.service = service
        self.app = create_app(service)
        self.loop = asyncio.new_event_loop()

    def close(self) -> None:
        self.loop.close()

    def request(
        self,
        method: str,
        path: str,
        token: str,
        *,
        body: bytes = b"",
        content_type: str | None = None,
    ) -> Answer:
        target, _, query = path.partition("?")
        headers = [
            (b"host", b"127.0.0.1:8979"),
            (b"authorization", f"Bearer {token}".encode()),
            (b"content-length", str(len(body)).encode()),
        ]
        if content_type is not None:
            headers.append((b"content-type", content_type.encode()))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": target,
            "raw_path": target.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8979),
        }
        sent = [False]
        status = [0]
        got_headers: dict[str, str] = {}
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            if not sent[0]:
                sent[0] = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.sleep(3600)  # the client never disconnects mid-request
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                for name, value in message.get("headers", []):
                    got_headers[name.decode().lower()] = value.decode()
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        self.loop.run_until_complete(self.app(scope, receive, send))
        return Answer(status[0], got_headers, b"".join(chunks))

    def get(self, path: str, token: str) -> Answer:
        return self.request("GET", path, token)

    def post_json(self, path: str, token: str, data: object) -> Answer:
        return self.request(
            "POST", path, token, body=json.dumps(data).encode(), content_type="application/json"
        )

    def post_form(self, path: str, token: str, fields: list[tuple[str, str]]) -> Answer:
        return self.request(
            "POST",
            path,
            token,
            body=urlencode(fields).encode(),
            content_type="application/x-www-form-urlencoded",
        )


@dataclass(frozen=True)
class Job:
    name: str
    run: Callable[[], None]
    next_time: Callable[[dt.datetime | None, dt.datetime], dt.datetime | None]
    #: An interval trigger's period (its first time counts from the wall clock's
    #: now, so the bench counts from the quiet stretch's start instead).
    every: dt.timedelta | None = None


def scheduled_jobs(service: ServedHearth) -> list[Job]:
    """The jobs ``hearth serve`` schedules for this home, with their triggers
    (APScheduler's own), not started: the bench runs them at simulated times."""
    scheduler = _scheduler(service)
    jobs = []
    for job in scheduler.get_jobs():
        runner, (name, work) = job.func, job.args

        def run(runner: Any = runner, name: str = name, work: Any = work) -> None:
            runner(name, work)

        every = getattr(job.trigger, "interval", None)
        jobs.append(Job(job.name, run, job.trigger.get_next_fire_time, every))
    return jobs


def _scheduler(service: ServedHearth) -> Any:
    """The one table of what ``hearth serve`` schedules, read (not started), so the
    bench's jobs are the server's whatever is added later: ``lifecycle.schedule``
    since issue 51 moved the served process's life there, ``api.app._schedule``
    before (cc8e878)."""
    import importlib

    try:
        lifecycle: Any = importlib.import_module("hearth.app.served.lifecycle")
    except ImportError:
        from hearth.api.app import _schedule  # type: ignore[attr-defined]

        return _schedule(service)
    return lifecycle.schedule(service.writes, service.jobs, service.consolidate)


def jobs_due(
    jobs: list[Job], since: dt.datetime, until: dt.datetime
) -> list[tuple[dt.datetime, Job]]:
    """When each job falls due in (``since``, ``until``], in time order. A job
    that falls due more often than ``COALESCED`` runs once, at ``until`` (as
    APScheduler coalesces missed runs); others run at every time they fall due
    (the weekly rollup digests the week before each time)."""
    due: list[tuple[dt.datetime, Job]] = []
    for job in jobs:
        times: list[dt.datetime] = []
        if job.every is not None:
            if since + job.every <= until:
                due.append((until if job.every < COALESCED else since + job.every, job))
            continue
        at = job.next_time(None, since + dt.timedelta(microseconds=1))
        while at is not None and at <= until:
            times.append(at)
            if len(times) > 1 and times[1] - times[0] < COALESCED:
                times = [until]
                break
            at = job.next_time(at, at + dt.timedelta(microseconds=1))
        due += [(t, job) for t in times]
    return sorted(due, key=lambda pair: pair[0])
