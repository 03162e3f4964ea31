"""Answering while the start-up pass runs.

The server listens before its start-up reconcile pass ends (on a home never
indexed that pass builds the whole index: minutes at 100,000 notes). Until
the service is ready every request is answered here, before any handler: 503
with hearth's JSON error body, a ``Retry-After``, and the pass's progress in
the error's ``detail`` (``files_done`` of ``files_total``), so a person or a
runtime sees how far it got. ``GET /healthz`` answers the same 503, which is
what clients that wait for it already wait on.
"""

from __future__ import annotations

from typing import Any

from hearth.api.limits import ASGIApp, Receive, Scope, Send, refuse
from hearth.app.served.service import ServedHearth

#: Seconds a client is asked to wait before asking again.
RETRY_AFTER = b"1"


class StartGate:
    def __init__(self, app: ASGIApp, service: ServedHearth) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.service.ready.is_set():
            await self.app(scope, receive, send)
            return
        await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        failed = self.service.start_error
        if failed is not None:
            message = f"hearth failed to start: {failed}"
        else:
            message = "hearth is starting: its start-up reconcile pass is running"
        detail: dict[str, Any] = {"starting": failed is None, "pass": self.service.passes.view()}
        await refuse(send, 503, "starting", message, detail, [(b"retry-after", RETRY_AFTER)])
