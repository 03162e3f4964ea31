"""One home, one process: stdio sessions are thin clients of the home's server.

Real ``hearth mcp`` processes driven by the official MCP client, beside a real
``hearth serve`` or a server they start on demand; real git to check commits.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp import Client, StdioServerParameters
from tests.api.conftest import BIN, make_home, start_server
from tests.conftest import git
from tests.mcp.conftest import call

pytestmark = pytest.mark.e2e  # hearth's clients and servers in subprocesses


def _record(root: Path) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads((root / ".git/hearth/server.json").read_text())
        os.kill(int(data["pid"]), 0)
    except (OSError, ValueError, KeyError):
        return None
    return data


def _stop_on_demand(root: Path) -> None:
    record = _record(root)
    if record is not None and record.get("mode") == "on-demand":
        os.kill(int(record["pid"]), signal.SIGKILL)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    root = make_home(tmp_path / "home")
    yield root
    _stop_on_demand(root)


def session(root: Path, actor: str, *args: str, **env: str) -> Client:
    params = StdioServerParameters(
        command=str(BIN / "hearth"),
        args=["--home", str(root), "--actor", actor, "mcp", *args],
        env={**os.environ, "HEARTH_SERVER": "on", **env},
    )
    return Client(params, read_timeout_seconds=60)


def _relay_rss_kb(root: Path) -> list[int]:
    """Resident memory of this home's ``hearth mcp`` processes (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            status = (entry / "status").read_text()
        except OSError:
            continue
        if b"mcp" in argv and str(root).encode() in argv:
            rss = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
            found.append(int(rss.split()[1]))
    return found


def test_three_sessions_beside_a_server_share_one_index(home: Path) -> None:
    server = start_server(home)
    try:

        async def run() -> tuple[list[dict[str, Any]], list[list[str]], list[int]]:
            written, found = [], []
            async with (
                session(home, "agent-a") as a,
                session(home, "agent-b") as b,
                session(home, "agent-c") as c,
            ):
                clients = (a, b, c)
                for n, client in enumerate(clients):
                    written.append(await call(client, "note", {"text": f"kestrel{n} was here"}))
                # Each session finds every session's note at once: one index.
                for client in clients:
                    hits = []
                    for n in range(3):
                        answer = await call(client, "search", {"query": f"kestrel{n}"})
                        hits.append(answer["hits"][0]["path"] if answer["hits"] else "")
                    found.append(hits)
                rss = _relay_rss_kb(home)
            return written, found, rss

        written, found, rss = anyio.run(run)
        record = _record(home)
        assert record is not None and record["pid"] == server.proc.pid  # no other server
    finally:
        assert server.stop() == 0
    for hits in found:
        assert hits == [w["path"] for w in written]
    for n, w in enumerate(written):
        message = git(home, "log", "-1", "--format=%B", w["commit"])
        assert f"Hearth-Actor: agent-{'abc'[n]}" in message
    # Thin clients: no click, no SDK, no index, no model (about 12 MB each here;
    # an in-process session was about 100 MB with keyword ranking alone).
    assert len(rss) == 3 and max(rss) < 40_000, rss


def test_two_sessions_with_no_server_start_one_that_idles_out(home: Path) -> None:
    async def run() -> list[dict[str, Any]]:
        async with session(home, "one", HEARTH_IDLE_SECONDS="3") as a:
            first = await call(a, "note", {"text": "ospreys at dawn"})
            async with session(home, "two", HEARTH_IDLE_SECONDS="3") as b:
                second = await call(b, "search", {"query": "ospreys"})
        return [first, second]

    first, second = anyio.run(run)
    assert second["hits"][0]["path"] == first["path"]
    record = _record(home)
    assert record is not None and record["mode"] == "on-demand"
    assert record["uds"] and Path(record["uds"]).stat().st_mode & 0o777 == 0o600
    deadline = time.monotonic() + 30
    while _record(home) is not None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _record(home) is None  # idled out, and took its record with it
    assert not (home / ".git/hearth/server.json").exists()


def test_a_killed_server_is_replaced_and_nothing_acknowledged_is_lost(home: Path) -> None:
    async def run() -> list[str]:
        acknowledged = []
        async with session(home, "writer") as client:
            for n in range(12):
                if n == 5:
                    record = _record(home)
                    assert record is not None
                    os.kill(int(record["pid"]), signal.SIGKILL)
                answer = await client.call_tool("note", {"text": f"heron {n}"})
                if not answer.is_error:
                    acknowledged.append(f"heron {n}")
        return acknowledged

    acknowledged = anyio.run(run)
    assert len(acknowledged) >= 11  # at most the one in flight when the server died
    history = git(home, "log", "-p")
    for text in acknowledged:
        assert text in history
    assert _record(home) is not None  # the new server, started on demand


def test_a_server_started_from_a_folder_never_imports_its_modules(
    home: Path, tmp_path: Path
) -> None:
    """hostile: a server started on demand ran ``python -m hearth`` in the
    client's working folder, which ``-m`` puts first on the module path: a
    ``dataclasses.py`` or ``mcp.py`` there (a shared folder, a cloned
    repository, the top of a home a synced commit wrote to) ran as the person
    inside the server."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    ran = tmp_path / "ran"
    planted = f"open({str(ran)!r}, 'a').write('ran')\nfrom dataclasses import *\n"
    (folder / "dataclasses.py").write_text(planted)
    env = {**os.environ, "HEARTH_SERVER": "on"}
    proc = subprocess.run(
        [str(BIN / "hearth"), "--home", str(home), "note", "kestrel over the field"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    record = _record(home)
    assert record is not None and record["mode"] == "on-demand"
    assert not ran.exists(), "the working folder's dataclasses.py ran in the server"


def test_a_second_serve_is_refused_and_the_first_keeps_serving(home: Path) -> None:
    server = start_server(home)
    try:
        second = subprocess.run(
            [str(BIN / "hearth"), "--home", str(home), "serve", "--port", "0"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert second.returncode == 1
        assert f"a server already serves this home: pid {server.proc.pid}" in second.stderr
        assert "serving" not in second.stdout
        record = _record(home)
        assert record is not None and record["pid"] == server.proc.pid
        assert server.get("/healthz", token=None).status == 200
        # The same port: refused as well, before it says it serves anything.
        again = subprocess.run(
            [str(BIN / "hearth"), "--home", str(home), "serve", "--port", str(server.port)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert again.returncode == 1 and "serving" not in again.stdout
        assert _record(home) == record
        shown = subprocess.run(
            [str(BIN / "hearth"), "--home", str(home), "status", "--json"],
            capture_output=True,
            text=True,
            check=True,
        )
        served = json.loads(shown.stdout)["server"]
        assert (served["pid"], served["mode"]) == (server.proc.pid, "serve")
        assert "hook_key" not in served
    finally:
        assert server.stop() == 0


def test_hearth_serve_takes_over_from_a_server_started_on_demand(home: Path) -> None:
    async def first_session() -> None:
        async with session(home, "early") as client:
            await call(client, "note", {"text": "before the takeover"})

    anyio.run(first_session)
    on_demand = _record(home)
    assert on_demand is not None and on_demand["mode"] == "on-demand"
    server = start_server(home)
    try:
        record = _record(home)
        assert record is not None and record["mode"] == "serve"
        assert record["pid"] == server.proc.pid != on_demand["pid"]
    finally:
        assert server.stop() == 0
