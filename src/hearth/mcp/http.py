"""MCP over streamable HTTP at ``/mcp``, inside ``hearth serve``'s FastAPI app.

The SDK's bearer middleware asks ``HearthTokens`` about every request's token,
against the same token store as the API, so a request without a known token
gets 401 before any MCP exchange and a revoked token is refused at once. The
token's name and scope travel with the request to the tools (``_who``).

Host and Origin checks (DNS rebinding) are the app-wide middleware's job, for
``/mcp`` as for every route, so the SDK's own check is off here: it knows only
loopback names and would refuse the names ``--allow-remote`` serves.
"""

from __future__ import annotations

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AnyHttpUrl
from starlette.types import ASGIApp

from hearth.app.served.service import ServedHearth
from hearth.mcp import quota
from hearth.mcp.calls import Caller
from hearth.mcp.server import build_server
from hearth.operations import SCOPES

#: The marker scope of a thin client's session (``TokenInfo.local``).
_LOCAL = "hearth-local"


class HearthTokens:
    """The SDK's ``TokenVerifier`` over hearth's token store."""

    def __init__(self, service: ServedHearth) -> None:
        self.service = service

    async def verify_token(self, token: str) -> AccessToken | None:
        info = self.service.caller(token)
        if info is None:
            return None
        scopes: list[str] = [info.scope, _LOCAL] if info.local else [info.scope]
        return AccessToken(token=token, client_id=info.name, scopes=scopes)


def _who() -> Caller | None:
    token = get_access_token()
    if token is None:
        return None
    scope = next((s for s in SCOPES if s in token.scopes), None)
    if scope is None:
        return None
    # A stdio session relayed by 'hearth mcp' keeps its own actor, as in-process.
    local = _LOCAL in token.scopes
    who = token.client_id if local else f"mcp:{token.client_id}"
    return Caller(who, scope, session=local)


def build(service: ServedHearth, url: str | None) -> tuple[MCPServer, ASGIApp]:
    """The MCP server for ``hearth serve`` and its ASGI app, to mount at ``/mcp``
    (hearth.mcp.mount runs this on a worker thread at start-up)."""
    server = build_server(
        service,
        _who,
        token_verifier=HearthTokens(service),
        # hearth issues its own tokens (hearth token create); no OAuth server.
        auth=AuthSettings(
            issuer_url=AnyHttpUrl(url if url and url.startswith("http") else "http://127.0.0.1"),
            resource_server_url=None,
            required_scopes=[],
        ),
    )
    app = server.streamable_http_app(
        streamable_http_path="/",
        json_response=True,
        session_idle_timeout=quota.IDLE_SECONDS,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return server, app
