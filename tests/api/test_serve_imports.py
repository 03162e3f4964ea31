"""What a running ``hearth serve`` has loaded: a search and an MCP session
answer without the review page's Jinja2 and without a WebSocket protocol (no
route takes a WebSocket), 2 to 3 MB of a server that only agents talk to;
the first page of the review UI loads Jinja2. A real server on loopback, probed from a
thread of its own process so that ``sys.modules`` is the server's."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.api.conftest import free_port, hearth, isolated_env, make_home

pytestmark = pytest.mark.e2e  # a served home in a subprocess

PROBE = textwrap.dedent(
    """
    import http.client, json, os, signal, sys, threading, time, traceback
    from hearth.cli import main

    root, port, token = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    BEARER = {"Authorization": "Bearer " + token}
    INITIALIZE = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "probe", "version": "1"}},
    }

    def loaded():
        return sorted(m for m in ("jinja2", "websockets", "wsproto") if m in sys.modules)

    def ask(method, path, headers=None, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request(method, path, body=body, headers=headers or {})
        answer = conn.getresponse()
        answer.read()
        return answer.status

    def probe():
        report = {}
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    if ask("GET", "/healthz") == 200:
                        break
                except OSError:
                    pass
                time.sleep(0.05)
            report["search"] = ask("GET", "/v1/search?q=wren", BEARER)
            report["mcp"] = ask(
                "POST", "/mcp",
                {**BEARER, "Content-Type": "application/json",
                 "Accept": "application/json, text/event-stream"},
                json.dumps(INITIALIZE),
            )
            report["after_api"] = loaded()
            report["page"] = ask("GET", "/ui/login")
            report["after_page"] = loaded()
        except Exception:
            report["error"] = traceback.format_exc()
        finally:
            print(json.dumps(report), flush=True)
            os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=probe, daemon=True).start()
    main(["--home", root, "serve", "--port", str(port)])
    """
)


def test_the_api_runs_without_jinja2_or_websockets_until_a_page_is_asked_for(
    tmp_path: Path,
) -> None:
    env = isolated_env(tmp_path / "userhome")
    root = make_home(tmp_path / "home", env)
    token = hearth(
        "--home", str(root), "token", "create", "--name", "probe", "--scope", "read", env=env
    ).strip()
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(root), str(free_port()), token],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert "error" not in report, report.get("error")
    assert report["search"] == 200
    assert report["mcp"] == 200
    assert report["after_api"] == []
    assert report["page"] == 200
    assert report["after_page"] == ["jinja2"]
