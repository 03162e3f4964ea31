"""Host and Origin checks on every route: no DNS rebinding, no cross-site requests.

A web page elsewhere cannot read hearth's answers (no CORS), but it can still
make a browser *send* requests: a form posted to ``http://127.0.0.1:8979``, or a
name of its own that it re-points at 127.0.0.1 (DNS rebinding), after which
the browser treats the server as the page's own site. Two checks close both:

- ``Host`` must name the address hearth serves: loopback names by default,
  plus the names given with ``--allow-remote NAME`` (a bare ``--allow-remote``
  accepts any name, for a server behind a proxy that checks it). A rebound
  name is not on the list, so the request is refused (400).
- A browser request (one with an ``Origin`` header, or ``Sec-Fetch-Site:
  cross-site``) must come from the same origin as the request itself
  (scheme, host and port); ``Origin: null`` (a sandboxed or opaque page) is
  refused too (403). Clients that are not browsers (runtimes, curl, the MCP
  SDK) send no Origin and are unaffected.

Requests over a unix socket skip the Host check (a browser cannot reach one).
"""

from __future__ import annotations

from collections.abc import Iterable

from hearth.api.limits import ASGIApp, Receive, Scope, Send, refuse

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
ANY_HOST = "*"


def host_name(value: str) -> str:
    """The name part of a Host header (``[::1]:8979`` gives ``[::1]``)."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[: value.find("]") + 1] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class HostOriginGuard:
    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] = (), *, unix: bool = False):
        self.app = app
        names = {n.strip().lower() for n in allowed_hosts if n.strip()}
        self.any_host = ANY_HOST in names
        self.allowed = LOOPBACK_NAMES | {host_name(n) for n in names - {ANY_HOST}}
        self.unix = unix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if not self.unix and not self.any_host and host_name(host) not in self.allowed:
            await refuse(
                send,
                400,
                "host_refused",
                f"this server does not answer for the host {host!r}; serve with "
                "'--allow-remote NAME' to add a name",
            )
            return
        origin = headers.get("origin")
        cross_site = headers.get("sec-fetch-site") == "cross-site"
        if cross_site or (origin is not None and not self._same_origin(origin, scope, host)):
            await refuse(
                send,
                403,
                "origin_refused",
                f"requests from another site ({origin or 'cross-site'}) are refused",
            )
            return
        await self.app(scope, receive, send)

    @staticmethod
    def _same_origin(origin: str, scope: Scope, host: str) -> bool:
        scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
        return origin.strip().lower() == f"{scheme}://{host.strip().lower()}"
