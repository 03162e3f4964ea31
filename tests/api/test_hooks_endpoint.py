"""The pre-commit hook with a server running: the shim asks ``POST /v1/hooks/pre-commit``
over loopback, and falls back to the local check on any other answer."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.api.conftest import Server, free_port, make_home, start_server
from tests.conftest import git
from tests.e2e.test_hooks_and_sync import BAD_COMMITS

pytestmark = pytest.mark.e2e  # homes made by the installed executable, git hooks, real servers

LISTING = ["-c", "core.quotePath=false", "diff-index", "--cached", "--no-renames", "HEAD"]
GOOD_SOUL = "A long enough soul. " * 10 + "\n"


def commit(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "HEARTH_HOOK_VERBOSE": "1", **env},
    )


def stage(root: Path, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    git(root, "add", path)


def unstage(root: Path, path: str) -> None:
    """Back to HEAD's version of ``path`` (or none), staged and on disk."""
    git(root, "reset", "-q", "HEAD", "--", path)
    if git(root, "ls-files", "--", path):
        git(root, "checkout", "-q", "--", path)
    else:
        (root / path).unlink(missing_ok=True)


def hook_key(root: Path) -> str:
    return str(json.loads((root / ".git/hearth/server.json").read_text())["hook_key"])


def listing(root: Path) -> bytes:
    return subprocess.run(["git", *LISTING], cwd=root, capture_output=True, check=True).stdout


def ask(s: Server, body: bytes, token: str | None) -> tuple[int, dict[str, object]]:
    reply = s.request(
        "POST",
        "/v1/hooks/pre-commit",
        token=token,
        raw_body=body,
        headers={"Content-Type": "text/plain"},
    )
    return reply.status, reply.body


def test_server_file_names_a_hook_key_only_its_owner_reads(shared_server: Server) -> None:
    path = shared_server.root / ".git/hearth/server.json"
    key = hook_key(shared_server.root)
    assert len(key) >= 32 and key.replace("-", "").replace("_", "").isalnum()
    assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0


def test_a_good_commit_is_checked_by_the_server(shared_server: Server) -> None:
    s = shared_server
    stage(s.root, "memory/topics/kestrels.md", "# Kestrels\n\nHovering over the verge.\n")
    proc = commit(s.root / "memory", "-qm", "memory: kestrels")  # from a subfolder
    assert proc.returncode == 0, proc.stderr
    assert f"hearth: pre-commit: the server at {s.url} checked the staged files" in proc.stderr
    assert "checked the staged files here" not in proc.stderr


@pytest.mark.parametrize("rule", sorted(BAD_COMMITS))
def test_the_server_refuses_what_the_local_check_refuses(shared_server: Server, rule: str) -> None:
    s = shared_server
    path, text = BAD_COMMITS[rule]
    stage(s.root, path, text)
    try:
        status, body = ask(s, listing(s.root), hook_key(s.root))
        assert status == 422 and body["error"]["code"] == "validation_failed"  # type: ignore[index]
        failures = body["error"]["detail"]["failures"]  # type: ignore[index]
        assert {(f["path"], f["rule"]) for f in failures} == {(path, rule)}
        head = git(s.root, "rev-parse", "HEAD")
        proc = commit(s.root, "-qm", "bad")
        assert proc.returncode != 0
        assert path in proc.stderr and f"[{rule}]" in proc.stderr
        assert git(s.root, "rev-parse", "HEAD") == head
    finally:
        unstage(s.root, path)


def test_the_server_checks_the_staged_blob_not_the_work_tree(shared_server: Server) -> None:
    s = shared_server
    stage(s.root, "SOUL.md", "short\n")
    (s.root / "SOUL.md").write_text(GOOD_SOUL)  # fixed on disk, not staged
    try:
        assert commit(s.root, "-qm", "staged is short").returncode != 0
        all_ = commit(s.root, "-qam", "now from the work tree")  # -a stages the fix
        assert all_.returncode == 0, all_.stderr
        assert "the server at" in all_.stderr
    finally:
        unstage(s.root, "SOUL.md")


def test_paths_git_quotes_reach_the_server_intact(shared_server: Server) -> None:
    s = shared_server
    name = 'memory/topics/a "quoted"\\ tab\there ü.md'
    stage(s.root, name, "# Odd name\n\nFine text.\n")
    # In a UTF-8 locale too, where bash counts characters unless told otherwise.
    proc = commit(s.root, "-qm", "odd name", LC_ALL="C.UTF-8")
    assert proc.returncode == 0, proc.stderr
    assert "the server at" in proc.stderr
    secret = 'memory/topics/"key"\\x.md'
    stage(s.root, secret, "# Keys\n\nAKIAABCDEFGHIJKLMNOP\n")
    try:
        status, body = ask(s, listing(s.root), hook_key(s.root))
        assert status == 422
        failures = body["error"]["detail"]["failures"]  # type: ignore[index]
        assert [f["path"] for f in failures] == [secret]
    finally:
        unstage(s.root, secret)


def test_the_endpoint_wants_the_hook_key_or_a_read_token(shared_server: Server) -> None:
    s = shared_server
    assert ask(s, b"", None)[0] == 401
    assert ask(s, b"", "not-the-key")[0] == 401
    assert ask(s, b"", "read") == (200, {"checked": 0})
    assert ask(s, b"", hook_key(s.root)) == (200, {"checked": 0})
    # The Host guard holds here as on every route.
    reply = s.request(
        "POST",
        "/v1/hooks/pre-commit",
        token=hook_key(s.root),
        raw_body=b"",
        headers={"Host": "evil.example"},
    )
    assert reply.status == 400 and reply.error_code == "host_refused"


def test_bad_listings_are_refused_with_4xx(shared_server: Server) -> None:
    s = shared_server
    key = hook_key(s.root)
    status, body = ask(s, b"not a listing at all\n", key)
    assert status == 422 and body["error"]["code"] == "invalid_input"  # type: ignore[index]
    missing = b":000000 100644 " + b"0" * 40 + b" " + b"1" * 40 + b" A\tmemory/topics/x.md\n"
    status, body = ask(s, missing, key)
    assert status == 404 and "not in the repository" in body["error"]["message"]  # type: ignore[index]
    status, body = ask(s, b':000000 100644 0 1 A\t"bad\\q"\n', key)
    assert status == 422 and body["error"]["code"] == "invalid_input"  # type: ignore[index]


def _write_server_file(root: Path, pid: int, port: int, key: str, url: str = "") -> None:
    state = root / ".git/hearth"
    state.mkdir(parents=True, exist_ok=True)
    url = url or f"http://127.0.0.1:{port}"
    data = {"url": url, "pid": pid, "started": "x", "hook_key": key}
    (state / "server.json").write_text(json.dumps(data))


def _bad_then_good(root: Path) -> None:
    """A bad commit is stopped and a good one goes through, both checked locally."""
    stage(root, "SOUL.md", "short\n")
    bad = commit(root, "-qm", "bad")
    assert bad.returncode != 0 and "SOUL.md: [soul-length]" in bad.stderr
    stage(root, "SOUL.md", GOOD_SOUL)
    good = commit(root, "-qm", "good")
    assert good.returncode == 0, good.stderr
    assert "hearth: pre-commit: checked the staged files here (no server)" in good.stderr


def test_a_dead_servers_file_falls_back_to_the_local_check(tmp_path: Path) -> None:
    root = make_home(tmp_path / "home")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    _write_server_file(root, dead.pid, free_port(), "k" * 43)
    _bad_then_good(root)


def test_a_live_pid_with_nothing_listening_falls_back(tmp_path: Path) -> None:
    root = make_home(tmp_path / "home")
    _write_server_file(root, os.getpid(), free_port(), "k" * 43)
    _bad_then_good(root)


def test_a_unix_socket_server_is_checked_locally(tmp_path: Path) -> None:
    root = make_home(tmp_path / "home")
    _write_server_file(root, os.getpid(), 0, "k" * 43, url=f"unix:{tmp_path}/hearth.sock")
    _bad_then_good(root)


def test_another_homes_server_at_that_address_falls_back(
    shared_server: Server, tmp_path: Path
) -> None:
    root = make_home(tmp_path / "home")
    # A live hearth server, but not this home's: it does not know this key (401).
    _write_server_file(root, shared_server.proc.pid, shared_server.port, "k" * 43)
    _bad_then_good(root)


def test_a_listener_that_says_nothing_useful_falls_back(tmp_path: Path) -> None:
    root = make_home(tmp_path / "home")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        # Connections queue in the backlog and get no answer: the shim's read
        # times out and the local check runs.
        _write_server_file(root, os.getpid(), port, "k" * 43)
        stage(root, "SOUL.md", "short\n")
        bad = commit(root, "-qm", "bad")
    assert bad.returncode != 0 and "SOUL.md: [soul-length]" in bad.stderr


def test_a_shim_without_bash_checks_locally(tmp_path: Path) -> None:
    from hearth.hooks.install import install_hooks

    root = make_home(tmp_path / "home")
    install_hooks(root, sys.executable, shell="/bin/sh")
    assert (root / ".git/hooks/pre-commit").read_text().startswith("#!/bin/sh\n")
    server = start_server(root)
    try:
        _bad_then_good(root)
    finally:
        assert server.stop() == 0
