"""``hearth status`` three ways, with the real executable: asked of a running server over
loopback, read without a pass when one would change nothing, after a pass otherwise;
the same output whichever way, and ``--verbose`` saying which."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.api.conftest import BIN, Server, make_home, start_server

pytestmark = pytest.mark.e2e  # the installed executable and a real server

STATUS_KEYS = {
    "home",
    "branch",
    "head",
    "dirty",
    "changes",
    "pending_proposals",
    "open_loops",
    "active_decisions",
    "index",
    "sync",
    "conflicts",
    "reflection",
    "runtimes",
    "server",
}
#: What a command that needs no server, no index writer and no model must not load.
HEAVY = ("pygit2", "tantivy", "numpy", "yaml", "fastapi", "pydantic", "uvicorn", "watchfiles")


def status(root: Path, *args: str) -> tuple[dict[str, object], str]:
    proc = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), "status", "--json", "--verbose", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


def age(root: Path) -> None:
    """Every file last changed a minute ago (none too fresh for its signature to count)."""
    past = time.time() - 60
    for path in root.rglob("*"):
        if ".git" not in path.relative_to(root).parts:
            os.utime(path, (past, past), follow_symlinks=False)


def loaded_by(*argv: str, cwd: Path | None = None) -> list[str]:
    """The heavy modules a CLI command loads, run in a fresh interpreter."""
    code = (
        "import io, json, sys, contextlib\n"
        "from hearth.cli import _run\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    _run({list(argv)!r})\n"
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=cwd
    )
    return list(json.loads(proc.stdout))


def test_without_a_server_a_pass_runs_only_when_it_would_change_something(
    tmp_path: Path,
) -> None:
    root = make_home(tmp_path / "home")
    age(root)
    after_pass, how = status(root)
    assert "status after a reconcile pass" in how
    quick, how = status(root)
    assert "status read without a reconcile pass" in how
    assert set(quick) == STATUS_KEYS and quick == after_pass
    (root / "memory/topics").mkdir(parents=True)
    (root / "memory/topics/otters.md").write_text("# Otters\n\nBack at the river.\n")
    changed, how = status(root)
    assert "status after a reconcile pass" in how
    assert changed["index"]["files_indexed"] == after_pass["index"]["files_indexed"] + 1  # type: ignore[index]
    assert {"path": "memory/topics/otters.md", "state": "untracked"} in changed["changes"]  # type: ignore[operator]


def test_help_and_a_settled_status_load_none_of_the_machinery(tmp_path: Path) -> None:
    root = make_home(tmp_path / "home")
    age(root)
    status(root)  # the pass that settles it
    assert loaded_by("--help") == []
    assert loaded_by("--home", str(root), "status", "--json") == []
    (root / "memory").mkdir(exist_ok=True)
    assert loaded_by("status", "--json", cwd=root / "memory") == []  # the home found from here


def test_a_running_server_answers_and_verbose_says_so(server: Server) -> None:
    root = server.root
    before = server.get("/v1/status").body["snapshot"]["passes"]
    age(root)
    served = server.get("/v1/status").body
    deadline = time.monotonic() + 10
    # Current, and taken after the pass the aging's watcher events ask for (right
    # after ``age`` the snapshot still says current: no event has arrived yet).
    while time.monotonic() < deadline and not (
        served["snapshot"]["current"] and served["snapshot"]["passes"] > before
    ):
        time.sleep(0.05)
        served = server.get("/v1/status").body
    data, how = status(root)
    assert f"status answered by the server at {server.url}" in how
    assert set(data) == STATUS_KEYS
    # The server's own answer (its watcher may run another pass in between: the
    # time of the last one may move, nothing else on a home at rest).
    moving = {"last_reconcile"}
    index, served_index = data["index"], served["index"]
    assert isinstance(index, dict) and isinstance(served_index, dict)
    assert data["head"] == served["head"]
    assert {k: v for k, v in index.items() if k not in moving} == {
        k: v for k, v in served_index.items() if k not in moving
    }
    human = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), "status"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert human.startswith(f"home: {root}\nbranch: main\n")
    assert "index: fresh" in human
    # Stopped, it no longer answers: the command reads the home itself.
    assert server.stop() == 0
    alone, how = status(root)
    assert "answered by the server" not in how
    assert set(alone) == STATUS_KEYS and alone["head"] == data["head"]


def test_status_takes_the_hook_key_and_refuses_others(server: Server) -> None:
    key = json.loads((server.root / ".git/hearth/server.json").read_text())["hook_key"]
    assert server.get("/v1/status", token=key).status == 200
    refused = server.get("/v1/status", token=key + "x")
    assert refused.status == 401 and refused.error_code == "unauthorized"
    # The hook key reads status only: writes still want a token with a scope.
    written = server.post("/v1/daily", {"text": "a note"}, token=key)
    assert written.status == 401


def test_a_server_that_refuses_or_is_gone_leaves_it_to_the_command(tmp_path: Path) -> None:
    root = make_home(tmp_path / "home")
    server = start_server(root)
    try:
        record = root / ".git/hearth/server.json"
        data = json.loads(record.read_text())
        record.write_text(json.dumps({**data, "hook_key": "not-the-key"}))
        answer, how = status(root)
        assert "answered by the server" not in how and set(answer) == STATUS_KEYS
        assert f"(the server at {server.url} had no current answer)" in how
    finally:
        assert server.stop() == 0
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    record.write_text(json.dumps({**data, "pid": int(dead.stdout)}))
    answer, how = status(root)
    assert "server" not in how and set(answer) == STATUS_KEYS


def test_human_status_shows_how_far_embedding_has_got(tmp_path: Path) -> None:
    """Issue 50, case 5: the human ``hearth status`` says how many sections have
    vectors (on 2d32b4d only ``--json`` did)."""
    root = make_home(tmp_path / "home")
    env = {**os.environ, "HEARTH_SEMANTIC": "on"}
    proc = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), "status"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    as_json = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), "status", "--json"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    vectors = json.loads(as_json.stdout)["index"]["vectors"]
    line = next(x for x in proc.stdout.splitlines() if x.strip().startswith("vectors:"))
    assert f"{vectors['sections']} sections" in line, line
    assert ("all " in line) == vectors["complete"], line
    if not vectors["complete"]:
        assert f"{vectors['embedded']} of " in line, line


def test_a_read_beside_a_stopped_server_holding_the_lock_gives_up_soon(
    server: Server, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Case (hostile follow-up 1, reads): ``kill -STOP`` the server while its pass
    holds the reconcile lock: ``hearth status`` waited 5 s for the server, then
    60 s for the lock in its lean read and 60 more in its pass. Once the server
    did not answer, the command says so and waits for the lock only briefly
    (both bounds shortened here), then exits 1 naming the lock: no traceback."""
    import signal

    from hearth import wiring
    from hearth.cli import _run
    from hearth.client import transport
    from hearth.store import state
    from hearth.store.lock import write_lock

    monkeypatch.setattr(transport, "TIMEOUT", 1.0)
    monkeypatch.setattr(transport, "STUCK", [])
    monkeypatch.setattr(wiring, "STUCK_WAIT_SECONDS", 1.0)
    lock = server.root / ".git" / state.FOLDER / state.RECONCILE_LOCK
    # Held as the stopped server's pass would hold it; taken before the server
    # stops, which a pass of its own (the tests before this one wrote) may hold.
    with write_lock(lock, 60.0):
        os.kill(server.proc.pid, signal.SIGSTOP)
        try:
            code = _run(["--home", str(server.root), "status"])
        finally:
            os.kill(server.proc.pid, signal.SIGCONT)
    err = capsys.readouterr().err
    assert code == 1, err
    assert f"the home's server at {server.url} did not answer in 1 s; doing it here" in err
    assert "reconcile.lock for over 1 s; try again" in err and "Traceback" not in err
