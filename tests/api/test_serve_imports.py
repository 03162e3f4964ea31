"""What a running ``hearth serve`` has loaded: the API answers without the
review page's Jinja2 and without a WebSocket protocol (no route takes a
WebSocket), about 3 MB of a server that only agents talk to; the first page
of the review UI loads Jinja2. A real server on loopback, probed from a
thread of its own process so that ``sys.modules`` is the server's."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.api.conftest import free_port, isolated_env, make_home

PROBE = textwrap.dedent(
    """
    import http.client, json, os, signal, sys, threading, time
    from hearth.cli import main

    root, port = sys.argv[1], int(sys.argv[2])

    def loaded():
        return sorted(m for m in ("jinja2", "websockets", "wsproto") if m in sys.modules)

    def get(path):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", path)
        answer = conn.getresponse()
        answer.read()
        return answer.status

    def probe():
        while True:
            try:
                if get("/healthz") == 200:
                    break
            except OSError:
                pass
            time.sleep(0.05)
        report = {"status": get("/v1/status"), "after_api": loaded()}
        report["page"] = get("/ui/login")
        report["after_page"] = loaded()
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
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(root), str(free_port())],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["status"] == 401  # no token: the API answered, refusing
    assert report["after_api"] == []
    assert report["page"] == 200
    assert report["after_page"] == ["jinja2"]
