"""One agent's token cannot exhaust the MCP sessions of ``hearth serve`` (hostile
pass): a real server, MCP ``initialize`` requests over loopback."""

from __future__ import annotations

import httpx2

from hearth.mcp.quota import PER_TOKEN
from tests.api.conftest import Server
from tests.mcp.test_http import ACCEPT, INITIALIZE

#: More sessions than one runtime ever holds open at once.
ONE_AGENTS_FILL = 300


def test_one_token_cannot_hold_every_mcp_session(shared_server: Server) -> None:
    """Reproduction: with one write token, POST an MCP `initialize` to /mcp/ in a
    loop and never close the sessions. On main every one was kept (about 38 KB
    of the server's memory each, measured with /proc/PID/status VmRSS over
    1,000 of them, on a loaded machine), up to the SDK's 10,000; from then on
    every new session, the person's own runtime's included, was answered 503
    until the agent's sessions idled out 30 minutes later. Now a token's own
    sessions are bounded: its next one is 429, the person's still opens, and
    one the agent ends (DELETE) makes room for another."""
    s = shared_server
    headers = {**ACCEPT, "Authorization": f"Bearer {s.tokens['write']}"}
    sessions: list[str] = []
    refused = None
    with httpx2.Client(base_url=s.url, headers=headers, timeout=30) as agent:
        for _ in range(ONE_AGENTS_FILL):
            reply = agent.post("/mcp/", json=INITIALIZE)
            if reply.status_code != 200:
                refused = reply
                break
            sessions.append(reply.headers["mcp-session-id"])
        assert refused is not None, f"{ONE_AGENTS_FILL} sessions kept for one token"
        assert refused.status_code == 429, refused.text
        assert refused.json()["error"]["code"] == "too_many_sessions"
        assert len(sessions) == PER_TOKEN
        person = s.post("/mcp/", INITIALIZE, token="admin", headers=ACCEPT)
        assert person.status == 200, person.body
        ended = agent.delete("/mcp/", headers={"mcp-session-id": sessions[0]})
        assert ended.status_code in (200, 204), ended.text
        assert agent.post("/mcp/", json=INITIALIZE).status_code == 200
