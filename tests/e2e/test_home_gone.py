"""A home deleted under its server (issue 50, case 1).

A real ``hearth serve`` and a real server started on demand by a client, the
home removed with ``rm -rf`` while they run: each stops on its own, and
nothing of the home (``.git/hearth/index``, ``reconcile.lock``, ACTIVE.md) is
made again in the deleted tree. ``hearth status`` on the path that is gone says
it does not exist.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.api.conftest import BIN, make_home, start_server

pytestmark = pytest.mark.e2e

#: Generous: the server watches every quarter second and stops in about one
#: (docs/operations.md); a loaded machine gets the rest.
STOPS_WITHIN = 15.0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A child of ours that exited stays a zombie until reaped.
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _remove(root: Path) -> None:
    """``rm -rf`` the home, again if the server wrote into a folder as rm emptied it
    (``Directory not empty``: a pass still at work on a loaded machine), as a
    person whose ``rm`` said so runs it again."""
    for _ in range(5):
        done = subprocess.run(["rm", "-rf", str(root)], check=False, capture_output=True, text=True)
        if done.returncode == 0:
            return
        assert "Directory not empty" in done.stderr, done.stderr
    raise AssertionError(f"rm -rf {root} failed five times: {done.stderr}")


def _gone_for_good(root: Path) -> None:
    """Nothing of the home comes back after the server stopped (a pass after the
    removal made ``.git/hearth`` again on the old code)."""
    time.sleep(1.0)
    assert not root.exists(), sorted(str(p) for p in root.rglob("*"))


def test_hearth_serve_stops_when_its_home_is_deleted(tmp_path: Path) -> None:
    """Case 1: ``hearth serve`` of a home that ``rm -rf`` removes stops, recreating nothing."""
    root = make_home(tmp_path / "home")
    server = start_server(root)
    try:
        assert server.get("/v1/status").status == 200
        _remove(root)
        server.proc.wait(timeout=STOPS_WITHIN)
    finally:
        server.stop()
    assert server.proc.returncode == 0, server.stderr
    assert "home folder is gone" in server.stderr
    assert "Traceback" not in server.stderr, server.stderr
    _gone_for_good(root)


def test_a_server_started_on_demand_stops_when_its_home_is_deleted(tmp_path: Path) -> None:
    """Case 1: the server a client started on demand stops too, recreating nothing."""
    root = make_home(tmp_path / "home")
    env = {**os.environ, "HEARTH_SERVER": "on"}
    run = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), "search", "hearth"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    record = json.loads((root / ".git/hearth/server.json").read_text())
    pid = int(record["pid"])
    assert record["mode"] == "on-demand"
    try:
        _remove(root)
        deadline = time.monotonic() + STOPS_WITHIN
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), "the server started on demand outlived its home"
    finally:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
    _gone_for_good(root)


def test_status_of_a_path_that_is_gone_says_it_does_not_exist(tmp_path: Path) -> None:
    """Case 1: status on a missing path says so (not "a git repository but not a
    hearth home"), and a folder holding only hearth's leftovers is no repository."""
    leftovers = tmp_path / "leftovers"
    (leftovers / ".git/hearth/index").mkdir(parents=True)
    for root, said in ((tmp_path / "missing", "does not exist"), (leftovers, "not a hearth home")):
        run = subprocess.run(
            [str(BIN / "hearth"), "--home", str(root), "status"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == 1
        assert said in run.stderr, run.stderr
        assert "is a git repository" not in run.stderr, run.stderr
