"""A server always starts, whatever a crash left behind in git's locks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hearth.store import lock
from tests.api.conftest import make_home, start_server, wait_for
from tests.conftest import git

pytestmark = pytest.mark.e2e  # real servers started and killed


def _boot_id() -> str:
    return Path("/proc/sys/kernel/random/boot_id").read_text().strip()


def _leave_a_killed_hearths_lock(root: Path, pid: int, start: str | None) -> None:
    """What a hearth killed inside a write leaves: its marked index.lock and owner record."""
    mark = f"hearth-lock {pid} {_boot_id()}" + (f" {start}" if start else "") + "\n"
    (root / ".git/index.lock").write_text(mark)
    (root / ".git/hearth/index.lock.owner").write_text(mark)


def _process_start(pid: int) -> str:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rfind(")") + 2 :].split()[19]


def test_a_lock_whose_owner_is_a_zombie_does_not_keep_the_server_down(tmp_path: Path) -> None:
    root = make_home(tmp_path / "home")
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    # Not reaped: the process is a zombie, and kill(pid, 0) still succeeds for it.
    assert wait_for(lambda: Path(f"/proc/{zombie.pid}/stat").read_text().split()[2] == "Z")
    os.kill(zombie.pid, 0)
    _leave_a_killed_hearths_lock(root, zombie.pid, None)
    try:
        server = start_server(root)
        try:
            reply = server.post("/v1/daily", {"text": "after the zombie"}, token="write")
            assert reply.status == 200, reply.body
            assert not (root / ".git/index.lock").exists()
            assert "after the zombie" in git(root, "log", "-p", "-1")
        finally:
            assert server.stop() == 0
    finally:
        zombie.wait()


def test_a_reused_process_id_is_not_the_locks_owner(tmp_path: Path) -> None:
    root = make_home(tmp_path / "home")
    # A live process holds the id in the mark, but it started at another time
    # than the hearth that took the lock: the id was reused.
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        other_start = str(int(_process_start(alive.pid)) + 1)
        _leave_a_killed_hearths_lock(root, alive.pid, other_start)
        server = start_server(root)
        try:
            assert server.post("/v1/daily", {"text": "pid reused"}, token="write").status == 200
        finally:
            assert server.stop() == 0
    finally:
        alive.kill()
        alive.wait()


def test_the_mark_names_this_process_with_its_start_time() -> None:
    fields = lock.lock_mark().split()
    assert fields[:3] == ["hearth-lock", str(os.getpid()), _boot_id()]
    assert fields[3] == _process_start(os.getpid())


def test_a_lock_held_by_a_running_git_at_start_up(tmp_path: Path) -> None:
    """``git commit -a`` holds index.lock while its editor runs; a dead hearth's write
    waits for it."""
    root = make_home(tmp_path / "home")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (root / "scratch.md").write_text("a person's work\n")
    git(root, "add", "scratch.md")
    release = tmp_path / "release"
    editor = tmp_path / "editor.sh"
    editor.write_text(
        f'#!/bin/sh\nwhile [ ! -e "{release}" ]; do sleep 0.05; done\n'
        'echo "person: scratch" > "$1"\n'
    )
    editor.chmod(0o755)
    person = subprocess.Popen(
        ["git", "commit", "-q", "-a"],
        cwd=root,
        env={**os.environ, "GIT_EDITOR": str(editor)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server = None
    try:
        assert wait_for((root / ".git/index.lock").exists, 10)
        # A hearth was killed inside a write before the person's commit began.
        mark = f"hearth-lock {dead.pid} {_boot_id()} 1\n"
        (root / ".git/hearth/index.lock.owner").write_text(mark)
        server = start_server(root)
        status = server.get("/v1/status").body
        assert status["locks"]["recovery_pending"] is True
        held = status["locks"]["index_lock"]
        assert held["holder"] == "a git command (not hearth)" and held["since"]
        active = server.get("/v1/active").body["content"]
        assert "index lock" in active and "a git command" in active
        # Meanwhile a write is refused as busy, never half-done.
        head = git(root, "rev-parse", "HEAD")
        reply = server.post("/v1/daily", {"text": "while locked"}, token="write")
        assert reply.status == 409 and reply.error_code == "busy"
        release.touch()
        assert person.wait(30) == 0
        assert git(root, "rev-parse", "HEAD") != head  # the person's commit landed
        assert wait_for(lambda: not server.get("/v1/status").body["locks"]["recovery_pending"], 10)
        reply = server.post("/v1/daily", {"text": "after the release"}, token="write")
        assert reply.status == 200, reply.body
        assert wait_for(lambda: "index lock" not in server.get("/v1/active").body["content"], 5)
        assert "person: scratch" in git(root, "log", "--format=%s")
    finally:
        release.touch()
        person.wait(30)
        if server is not None:
            assert server.stop() == 0


def test_debris_of_a_write_killed_inside_the_index_write_is_cleared(tmp_path: Path) -> None:
    """libgit2 writes hearth's scratch index through its own lock file; a kill there
    left it behind and every later start failed (found by the long torture run)."""
    root = make_home(tmp_path / "home")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    _leave_a_killed_hearths_lock(root, dead.pid, "1")
    (root / ".git/hearth/index.scratch").write_bytes((root / ".git/index").read_bytes())
    (root / ".git/hearth/index.scratch.lock").write_bytes(b"DIRC")
    server = start_server(root)
    try:
        assert server.post("/v1/daily", {"text": "after the debris"}, token="write").status == 200
        assert not (root / ".git/hearth/index.scratch.lock").exists()
    finally:
        assert server.stop() == 0
    assert git(root, "status", "--porcelain") == ""
