"""Trying to break hearth: concurrency, crashes, churn, hostile input, a full disk.

Short form in ``make test``; ``make torture`` sets ``HEARTH_TORTURE=long`` for
more rounds. Everything runs against the real CLI, the real server and the
real git CLI.
"""

from __future__ import annotations

import contextlib
import errno
import http.client
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearth import wiring
from hearth.errors import Busy, StoreError
from tests.api.conftest import Server, make_home, start_server, wait_for
from tests.conftest import Workspace, consistent_since, git, settle_point

pytestmark = pytest.mark.torture

LONG = os.environ.get("HEARTH_TORTURE") == "long"
BIN = Path(sys.executable).parent


def scale(short: int, long: int) -> int:
    return long if LONG else short


def assert_repository_sound(root: Path) -> None:
    assert (
        subprocess.run(
            ["git", "fsck", "--no-progress", "--strict"], cwd=root, capture_output=True, check=False
        ).returncode
        == 0
    )
    assert not (root / ".git/index.lock").exists()
    assert git(root, "status", "--porcelain", "--untracked-files=no") == ""


# -- concurrency ------------------------------------------------------------------------


def test_api_writers_cli_writers_and_a_person_together_lose_nothing(server: Server) -> None:
    s = server
    per_writer = scale(8, 40)
    texts: list[str] = []
    errors: list[str] = []
    lock = threading.Lock()

    def api_writer(n: int) -> None:
        for i in range(per_writer):
            text = f"api{n}w{i}"
            reply = s.post("/v1/daily", {"text": text}, token="write")
            with lock:
                (texts.append(text) if reply.status == 200 else errors.append(str(reply.body)))

    def cli_writer(n: int) -> None:
        for i in range(per_writer // 2):
            text = f"cli{n}w{i}"
            proc = subprocess.run(
                [str(BIN / "hearth"), "--home", str(s.root), "note", text],
                capture_output=True,
                text=True,
                check=False,
                env=os.environ.copy(),
            )
            with lock:
                (texts.append(text) if proc.returncode == 0 else errors.append(proc.stderr))

    def person() -> None:
        for i in range(per_writer // 2):
            (s.root / "memory/topics").mkdir(parents=True, exist_ok=True)
            (s.root / f"memory/topics/person-{i}.md").write_text(f"# P{i}\n\nperson{i}\n")
            for _ in range(50):  # git's own lock may be held by hearth for a moment
                add = subprocess.run(
                    ["git", "add", f"memory/topics/person-{i}.md"],
                    cwd=s.root,
                    capture_output=True,
                    check=False,
                )
                commit = (
                    subprocess.run(
                        ["git", "commit", "-qm", f"person {i}"],
                        cwd=s.root,
                        capture_output=True,
                        check=False,
                    )
                    if add.returncode == 0
                    else add
                )
                if commit.returncode == 0:
                    with lock:
                        texts.append(f"person{i}")
                    break
                time.sleep(0.05)
            else:
                with lock:
                    errors.append(f"person {i} could not commit")

    threads = [threading.Thread(target=api_writer, args=(n,)) for n in range(4)]
    threads += [threading.Thread(target=cli_writer, args=(n,)) for n in range(2)]
    threads.append(threading.Thread(target=person))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert not errors, errors[:5]
    history = git(s.root, "log", "-p")
    missing = [t for t in texts if t not in history]
    assert not missing, missing[:10]
    assert_repository_sound(s.root)
    assert not (s.root / ".git/hearth/index.lock.owner").exists()
    assert wait_for(lambda: s.get("/v1/status").body["index"]["fresh"], 10)


# -- crashes ------------------------------------------------------------------------------


def test_sigkill_during_writes_then_restart_converges(tmp_path: Path) -> None:
    root = make_home(tmp_path / "home")
    acknowledged: list[str] = []
    rng = random.Random(9)
    for round_ in range(scale(3, 12)):
        server = start_server(root)
        stop = threading.Event()

        def writer(srv: Server = server, r: int = round_, halt: threading.Event = stop) -> None:
            n = 0
            while not halt.is_set():
                text = f"crash{r}x{n}"
                try:
                    reply = srv.post("/v1/daily", {"text": text}, token="write")
                except (OSError, http.client.HTTPException):
                    # Killed before or while it answered (the headers sent, not the
                    # body: IncompleteRead): not acknowledged.
                    return
                if reply.status == 200:
                    acknowledged.append(text)
                n += 1

        thread = threading.Thread(target=writer)
        thread.start()
        time.sleep(rng.uniform(0.2, 1.2))
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait()
        stop.set()
        thread.join(30)
        with contextlib.suppress(Exception):
            server.stop()
        assert (
            subprocess.run(
                ["git", "fsck", "--no-progress", "--strict"],
                cwd=root,
                capture_output=True,
                check=False,
            ).returncode
            == 0
        )
        lock = root / ".git/index.lock"
        if lock.exists():  # killed while holding git's lock: it says so, for the next write
            mark = lock.read_text().split()
            assert mark[:2] == ["hearth-lock", str(server.proc.pid)]
    # Every write the server acknowledged is in history; a new server converges.
    history = git(root, "log", "-p")
    assert [t for t in acknowledged if t not in history] == []
    server = start_server(root)
    try:
        assert server.post("/v1/daily", {"text": "after the crashes"}).status == 200
        assert wait_for(lambda: server.get("/v1/status").body["index"]["fresh"], 10)
        assert server.search("after the crashes")
        index = server.get("/v1/status").body["index"]
        assert index["files_on_disk"] == index["files_indexed"]
    finally:
        assert server.stop() == 0
    assert_repository_sound(root)
    temp_files = [p for p in root.rglob(".hearth-tmp-*") if ".git" not in p.parts]
    assert git(root, "status", "--porcelain") == ""  # temp files are ignored, never committed
    assert all(p.name.startswith(".hearth-tmp-") for p in temp_files)


def test_a_stale_index_lock_of_a_dead_hearth_is_cleared(workspace: Workspace) -> None:
    ws = workspace
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock = ws.root / ".git/index.lock"
    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    lock.write_text(f"hearth-lock {dead.pid} {boot}\n")  # what a killed hearth leaves
    result = ws.home.note("after a crash", None, "test")
    assert result.changed and not lock.exists()
    assert_repository_sound(ws.root)


def test_a_live_gits_index_lock_is_waited_for_not_broken(workspace: Workspace) -> None:
    ws = workspace
    lock = ws.root / ".git/index.lock"
    lock.write_bytes(b"DIRC\x00\x00\x00\x02")  # git's lock holds index data, not hearth's mark
    ws.home.store.lock_timeout = 0.5
    head = ws.git("rev-parse", "HEAD")
    with pytest.raises(Busy):
        ws.home.note("must wait", None, "test")
    assert lock.exists() and ws.git("rev-parse", "HEAD") == head
    lock.unlink()


# -- churn ----------------------------------------------------------------------------------


def test_churn_while_searching(server: Server) -> None:
    s = server
    rng = random.Random(4)
    folder = s.root / "churn"
    folder.mkdir()
    stop = threading.Event()
    failures: list[str] = []

    def searcher() -> None:
        while not stop.is_set():
            reply = s.get("/v1/search?q=churn", token="read")
            if reply.status != 200:
                failures.append(str(reply.status))

    thread = threading.Thread(target=searcher)
    thread.start()
    for step in range(scale(300, 3000)):
        name = folder / f"f{rng.randrange(40)}.md"
        action = rng.random()
        if action < 0.4:
            name.write_text(f"# F\n\nchurn {step}\n")
        elif action < 0.6 and name.exists():
            temp = name.with_name(f".{name.name}.swp")
            temp.write_text(f"# F\n\nchurn replaced {step}\n")
            temp.replace(name)
        elif action < 0.8:
            name.unlink(missing_ok=True)
        elif action < 0.85:
            target = s.root / f"churn-moved-{step}"
            folder.rename(target)
            target.rename(folder)
    stop.set()
    thread.join(30)
    assert not failures

    # Status is a snapshot: the one to trust was taken after the churn ended.
    since = settle_point(s.root)
    assert wait_for(lambda: consistent_since(s.get("/v1/status").body, since), 15)
    on_disk = {f"churn/{p.name}" for p in folder.glob("*.md")}
    # Browsing (all=true): this checks what the index holds, not relevance. The
    # floor may leave out a word most files hold, and Tantivy counts deleted
    # documents in a word's frequency until their segments merge, so whether it
    # does depends on the churn's history.
    found = s.search("churn", path="churn/", all="true")
    assert found == on_disk


# -- hostile input ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from tests.api.conftest import isolated_env

    env = isolated_env(tmp_path_factory.mktemp("userhome"))
    root = make_home(tmp_path_factory.mktemp("hostile") / "home", env)
    server = start_server(root, env=env)
    yield server
    assert server.stop() == 0


def _outside_untouched(server: Server) -> list[str]:
    return sorted(p.name for p in server.root.parent.iterdir())


@settings(
    max_examples=scale(40, 400),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    path=st.text(min_size=1, max_size=120),
    title=st.text(max_size=300),
    body=st.text(max_size=500),
    query=st.text(max_size=200),
)
def test_generated_paths_titles_and_bodies_never_get_a_500(
    hostile_server: Server, path: str, title: str, body: str, query: str
) -> None:
    s = hostile_server
    before = _outside_untouched(s)
    replies = [
        s.get(f"/v1/files/{quote(path, safe='')}"),
        s.put(f"/v1/files/{quote(path, safe='')}", {"content": body}, token="write"),
        s.get(f"/v1/history/{quote(path, safe='')}"),
        s.post("/v1/proposals", {"title": title, "entries": [body or "x"]}, token="write"),
        s.post("/v1/loops", {"title": title, "summary": body}, token="write"),
        s.get(f"/v1/search?q={quote(query, safe='')}&path={quote(path[:200], safe='')}"),
        s.post(f"/v1/proposals/{quote(title[:100], safe='')}/merge", token="write"),
        s.post(
            "/v1/daily",
            raw_body=body.encode("utf-8", "surrogatepass"),
            headers={"Content-Type": "application/json"},
            token="write",
        ),
    ]
    for reply in replies:
        assert reply.status < 500, (reply.status, reply.raw[:300])
        if reply.status >= 400:
            assert "error" in reply.body
    assert _outside_untouched(s) == before


def test_special_files_are_skipped_with_reasons(tmp_path: Path) -> None:
    real = make_home(tmp_path / "real")
    link = tmp_path / "linked-home"
    link.symlink_to(real)  # a symlinked home root is followed once, to the real home
    (real / "memory/topics").mkdir(parents=True, exist_ok=True)
    with (real / "memory/topics/huge.md").open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    (real / "memory/topics/latin1.md").write_bytes(b"caf\xe9 au lait\n")
    os.mkfifo(real / "memory/topics/pipe.md")
    (real / "memory/topics/escape").symlink_to(tmp_path)
    started = time.monotonic()
    proc = subprocess.run(
        [str(BIN / "hearth"), "--home", str(link), "status", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=os.environ.copy(),
    )
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 60
    import json

    parked = {p["path"]: p["reason"] for p in json.loads(proc.stdout)["index"]["parked"]}
    assert "MiB" in parked["memory/topics/huge.md"]
    assert "UTF-8" in parked["memory/topics/latin1.md"]
    assert "regular file" in parked["memory/topics/pipe.md"]
    assert "symlink" in parked["memory/topics/escape"]


# -- a full disk --------------------------------------------------------------------------------


def test_an_injected_enospc_fails_the_write_cleanly(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = workspace
    head = ws.git("rev-parse", "HEAD")
    memory = ws.read("MEMORY.md")

    def full(path: str, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ws.home.files, "write", full)
    with pytest.raises(StoreError, match="nothing was committed"):
        ws.home.put("MEMORY.md", (memory + "\nmore\n").encode(), "test")
    monkeypatch.undo()
    assert ws.git("rev-parse", "HEAD") == head
    assert ws.read("MEMORY.md") == memory
    assert ws.porcelain() == ""
    assert ws.home.put("MEMORY.md", (memory + "\nmore\n").encode(), "test").changed


def test_a_really_full_filesystem_fails_the_write_cleanly(tmp_path: Path, clock) -> None:  # type: ignore[no-untyped-def]
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount_point)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here; the injected ENOSPC test covers the seam")
    try:
        root = mount_point / "home"
        wiring.initialize(root, clock)
        home = wiring.open_writes(root, clock)
        filler = mount_point / "filler"
        with contextlib.suppress(OSError), filler.open("wb") as handle:
            while True:
                handle.write(b"x" * 65536)
                handle.flush()
                os.fsync(handle.fileno())
        head = git(root, "rev-parse", "HEAD")
        failed = 0
        for n in range(5):
            try:
                home.note("n" * 30_00 + str(n), None, "test")
            except (StoreError, OSError):
                failed += 1
        assert failed >= 1
        assert (
            subprocess.run(
                ["git", "fsck", "--no-progress"], cwd=root, capture_output=True, check=False
            ).returncode
            == 0
        )
        filler.unlink()
        log = git(root, "log", "--format=%H")
        assert head.strip() in log
        assert git(root, "status", "--porcelain", "--untracked-files=no") == ""
        home.note("after freeing space", None, "test")
        assert (
            "after freeing space"
            in (root / "memory")
            .joinpath(next(p.name for p in (root / "memory").glob("*.md")))
            .read_text()
        )
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def test_a_write_killed_between_commit_and_work_tree_update_is_finished(
    workspace: Workspace,
) -> None:
    """As if SIGKILLed right after the commit: HEAD has the entry, the files do not."""
    ws = workspace
    first = ws.home.note("first entry", None, "test")
    before = ws.read(first.path)
    staged_before = ws.git("rev-parse", f":{first.path}").strip()
    second = ws.home.note("second entry", None, "test")
    # Undo the work-tree and index update of the second write, keep its commit.
    (ws.root / first.path).write_text(before)
    ws.git("update-index", "--cacheinfo", f"100644,{staged_before},{first.path}")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    (ws.home.store.state_dir / "index.lock.owner").write_text(f"{dead.pid} 0 {boot}")
    assert ws.porcelain().strip() == f"M  {first.path}"  # the stale copy looks staged
    ws.reopen().note("third entry", None, "test")
    text = ws.read(second.path)
    assert "first entry" in text and "second entry" in text and "third entry" in text
    assert ws.porcelain() == ""
    assert_repository_sound(ws.root)


def test_a_ref_lock_left_inside_a_killed_commit_is_cleared(workspace: Workspace) -> None:
    ws = workspace
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    (ws.home.store.state_dir / "index.lock.owner").write_text(f"{dead.pid} 0 {boot}")
    (ws.root / ".git/refs/heads/main.lock").write_text("")  # made while it held the index
    started = time.monotonic()
    assert ws.home.note("after a killed commit", None, "test").changed
    assert time.monotonic() - started < 8
    assert not (ws.root / ".git/refs/heads/main.lock").exists()
    assert_repository_sound(ws.root)
