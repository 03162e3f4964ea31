"""The status snapshot: taken after each pass, served at once, never wrong once current.

The contract tested here: once ``snapshot.current`` is true (no pass due or
running since it was taken, the watcher running), the snapshot shows every
write and every hand edit whose pass has run. Tests wait for the pass (a
search that finds the edit) and for ``current``, then assert the figures. The
served cases share the module's server, each with its own files and records,
and assert what changed from the status they read first.
"""

from __future__ import annotations

import shutil
import threading
import time
from typing import Any

from hearth import wiring
from hearth.app.results import HomeStatus
from hearth.app.status.snapshot import QUIET_SECONDS, StatusBoard
from hearth.errors import StoreError
from hearth.reconcile.reports import IndexStatus, PassReport
from tests.api.conftest import Server, free_port, wait_for
from tests.conftest import Workspace, git


def current_status(s: Server) -> dict[str, Any]:
    """The status, once its snapshot is current (the pass after the last change ran)."""
    found: dict[str, Any] = {}

    def current() -> bool:
        found.update(s.get("/v1/status").body)
        return bool(found["snapshot"]["current"])

    assert wait_for(current, 10.0), found.get("snapshot")
    return found


def test_status_says_when_its_snapshot_was_taken(shared_server: Server) -> None:
    status = current_status(shared_server)
    snap = status["snapshot"]
    assert snap["as_of"].endswith("+00:00") and snap["age_seconds"] >= 0
    assert snap["passes"] >= 0 and snap["error"] is None
    assert status["index"]["fresh"] is True
    assert status["index"]["files_on_disk"] == status["index"]["files_indexed"]
    # The live parts are there too.
    assert status["watcher"]["running"] is True and status["worker"]["idle"] is True


def test_a_hand_edit_shows_in_status_after_its_pass(shared_server: Server) -> None:
    s = shared_server
    before = current_status(s)
    topic = s.root / "memory/topics/kestrels.md"
    topic.parent.mkdir(parents=True, exist_ok=True)
    topic.write_text("# Kestrels\n\nKestrels hover over the verge.\n")
    assert wait_for(lambda: s.search("kestrels") == {"memory/topics/kestrels.md"}, 5.0)
    after = current_status(s)
    assert after["snapshot"]["as_of"] >= before["snapshot"]["as_of"]
    assert after["snapshot"]["passes"] > before["snapshot"]["passes"]
    index = after["index"]
    assert index["files_on_disk"] == before["index"]["files_on_disk"] + 1
    assert index["files_indexed"] == index["files_on_disk"] and index["fresh"] is True
    assert {"path": "memory/topics/kestrels.md", "state": "untracked"} in after["changes"]
    assert after["dirty"] is True

    # Removed by hand: gone from the counts and from the changes after its pass.
    topic.unlink()
    assert wait_for(lambda: s.search("kestrels") == set(), 5.0)
    gone = current_status(s)
    assert gone["index"]["files_on_disk"] == before["index"]["files_on_disk"]
    assert all(c["path"] != "memory/topics/kestrels.md" for c in gone["changes"])


def test_a_person_committing_with_git_moves_the_snapshot_head(shared_server: Server) -> None:
    s = shared_server
    (s.root / "memory/topics").mkdir(parents=True, exist_ok=True)
    (s.root / "memory/topics/plovers.md").write_text("# Plovers\n\nRinged plovers run.\n")
    git(s.root, "add", "memory/topics/plovers.md")
    git(s.root, "commit", "-qm", "memory: plovers, by hand")
    head = git(s.root, "rev-parse", "HEAD").strip()

    def indexed() -> bool:
        index = s.get("/v1/status").body["index"]
        return bool(index["fresh"]) and index["indexed_head"] == head

    assert wait_for(indexed, 10.0)
    status = current_status(s)
    assert status["head"] == head and status["index"]["head"] == head
    assert all(c["path"] != "memory/topics/plovers.md" for c in status["changes"])


def test_writes_show_in_the_snapshot_once_current(shared_server: Server) -> None:
    s = shared_server
    before = current_status(s)
    made = s.post("/v1/proposals", {"title": "Owls", "entries": ["Owls roost in the barn."]})
    assert made.status == 200, made.body
    assert s.post("/v1/loops", {"title": "Fix the gate", "next_step": "buy a hinge"}).status == 200
    # A write asks for a pass (ACTIVE.md), so the snapshot is not current until
    # the one taken after that pass; then it shows both records.
    after = current_status(s)
    assert after["pending_proposals"] == before["pending_proposals"] + 1
    assert after["open_loops"] == before["open_loops"] + 1
    assert after["head"] == git(s.root, "rev-parse", "HEAD").strip()
    assert after["dirty"] is False
    merged = s.post(f"/v1/proposals/{made.body['key']}/merge")
    assert merged.status == 200, merged.body
    assert current_status(s)["pending_proposals"] == before["pending_proposals"]


def test_the_health_page_shows_the_snapshot_time(shared_server: Server) -> None:
    for _ in range(20):
        status = current_status(shared_server)
        page = shared_server.get("/ui/health", token="read")
        assert page.status == 200
        html = page.raw.decode()
        assert 'id="as-of"' in html
        if shared_server.get("/v1/status").body["snapshot"]["as_of"] == status["snapshot"]["as_of"]:
            break  # no snapshot was taken between the two reads (a late pass's can be)
    assert status["snapshot"]["as_of"] in html


# -- the board itself ----------------------------------------------------------------


def _fresh_home() -> HomeStatus:
    index = IndexStatus(True, 1, 1, 1, 0, "h", "h", "t", [], [], None)
    return HomeStatus("/home", "main", "h", [], 0, 0, index=index)


def test_requests_made_while_a_snapshot_is_taken_fold_into_one_more() -> None:
    entered, release = threading.Event(), threading.Event()
    taken: list[int] = []

    def compute() -> dict[str, Any]:
        taken.append(len(taken))
        if len(taken) == 1:
            entered.set()
            assert release.wait(10)
        return {"n": len(taken)}

    board = StatusBoard(compute, lambda: 0, lambda: "now")
    board.start()
    try:
        board.request()
        assert entered.wait(10)
        tickets = [board.request() for _ in range(5)]  # all while the first is taken
        release.set()
        assert board.wait(tickets[-1], 10)
        assert taken == [0, 1]  # one more, not five
        latest = board.latest()
        assert latest is not None and latest.data == {"n": 2}
    finally:
        board.stop()


def test_a_status_asked_while_the_first_snapshot_is_taken_waits_for_it() -> None:
    """Issue 52, start to settled at 100,000 files: a server's first status call,
    made while the board's thread lists the home for its first snapshot, gets
    that snapshot; before, it listed the whole home a second time (one listing
    at a time, so the start's status waited for both)."""
    entered, release = threading.Event(), threading.Event()
    taken: list[str] = []

    def compute() -> HomeStatus:
        taken.append(threading.current_thread().name)
        if len(taken) == 1:
            entered.set()
            assert release.wait(10)
        return _fresh_home()

    board = StatusBoard(compute, lambda: 0, lambda: "now")
    board.start()
    try:
        board.request()
        assert entered.wait(10)
        viewed: list[HomeStatus] = []
        asking = threading.Thread(target=lambda: viewed.append(board.view(idle=True)[0]))
        asking.start()
        time.sleep(0.2)  # the status call is waiting
        release.set()
        asking.join(10)
        assert viewed == [_fresh_home()]
        assert taken == ["hearth-status"]
    finally:
        board.stop()


def test_the_board_does_not_take_again_what_a_status_call_just_took() -> None:
    """Issue 52, start to settled at 100,000 files: a snapshot a status call took
    (the board's thread still waiting for requests to stop) covers the start's
    request, so the thread does not list the home again right after it."""
    taken: list[str] = []

    def compute() -> HomeStatus:
        taken.append(threading.current_thread().name)
        time.sleep(0.2)  # a listing takes a while: the thread is awake meanwhile
        return _fresh_home()

    board = StatusBoard(compute, lambda: 0, lambda: "now")
    board.start()
    try:
        ticket = board.request()
        assert board.view(idle=True)[0] == _fresh_home()  # taken here, at once (mostly)
        assert board.wait(ticket, 10)
        time.sleep(QUIET_SECONDS + 0.5)  # past the thread's wait for quiet
        assert len(taken) == 1  # here, or by the thread had it started first
        later = board.request()  # a later request is still served by the thread
        assert board.wait(later, 10)
        assert taken[1:] == ["hearth-status"]
    finally:
        board.stop()


def test_a_failed_snapshot_keeps_the_previous_one_and_says_why() -> None:
    fail = threading.Event()

    def compute() -> HomeStatus:
        if fail.is_set():
            raise StoreError("the disk said no")
        return _fresh_home()

    board = StatusBoard(compute, lambda: 0, lambda: "then")
    board.start()
    try:
        assert board.wait(board.request(), 10)
        fail.set()
        assert board.wait(board.request(), 10)
        home, snapshot = board.view(idle=True)
        assert home == _fresh_home()
        assert snapshot.error is not None
        assert "the disk said no" in snapshot.error
    finally:
        board.stop()


def test_a_snapshot_older_than_the_last_pass_is_not_current() -> None:
    passes = [3]
    board = StatusBoard(_fresh_home, lambda: passes[0], lambda: "t")
    board.start()
    try:
        assert board.wait(board.request(), 10)
        assert board.view(idle=True)[1].current is True
        assert board.view(idle=False)[1].current is False
        passes[0] = 4  # a pass finished after the snapshot was taken
        home, snapshot = board.view(idle=True)
        assert snapshot.current is False
        assert home.index is not None and home.index.fresh is False
    finally:
        board.stop()


def test_an_unserved_service_takes_a_snapshot_per_call(workspace: Workspace) -> None:
    """Without the board's thread (a home opened, not served) status is computed each time."""
    service = wiring.open_service(workspace.root, workspace.home.clock)
    try:
        first = service.status().as_dict()
        before = first["index"]["files_on_disk"]
        workspace.write("memory/topics/wrens.md", "# Wrens\n\nLoud for their size.\n")
        # Each snapshot's repository let go of git's index after the one before
        # (``board_for``): git's status is read anew, and right.
        second = service.status().as_dict()
        assert second["index"]["files_on_disk"] == before + 1
        wrens = {"path": "memory/topics/wrens.md", "state": "untracked"}
        assert wrens not in first["changes"] and wrens in second["changes"]
        workspace.git("add", "memory/topics/wrens.md")
        staged = {"path": "memory/topics/wrens.md", "state": "staged"}
        assert staged in service.status().as_dict()["changes"]
    finally:
        service.stop()


def test_snapshots_after_targeted_passes_are_patched_and_say_what_a_whole_one_says(
    workspace: Workspace,
) -> None:
    """A served home's snapshot after targeted passes (hand edits, a person's
    commits with hearth's hooks) lists again only what the passes looked at,
    and git's state of those, of the paths shown changed before and of what
    HEAD's move changed; what it says is what listing everything says."""
    ws = workspace
    ws.write("notes.txt", "not markdown\n")
    with open(ws.root / ".gitignore", "a") as ignore:
        ignore.write("private/\n")
    for name in ("swifts", "martins", "swallows"):
        ws.write(f"memory/topics/{name}.md", f"# {name.title()}\n\nThey fly.\n")
    ws.git("add", "-A")
    ws.git("-c", "core.hooksPath=/dev/null", "commit", "-qm", "birds")
    reports: list[PassReport] = []
    service = wiring.open_service(ws.root, ws.home.clock, on_pass=reports.append)
    service.start()
    # The hooks find this process's pid in server.json: the post-commit hook
    # nudges it (the pre-commit hook finds nothing listening and checks itself).
    service.publish_address(f"http://127.0.0.1:{free_port()}")
    whole = wiring.open_service(ws.root, ws.home.clock)  # never served: lists everything
    try:

        def settled() -> dict[str, Any]:
            head = ws.git("rev-parse", "HEAD").strip()
            seen: dict[str, Any] = {}

            def current() -> bool:
                status = service.status()
                seen.update(status.as_dict())
                return status.snapshot.current and seen["index"]["indexed_head"] == head

            assert wait_for(current, 10.0), seen.get("snapshot")
            return seen

        def same_as_whole(step: str) -> dict[str, Any]:
            # A pass may run between the two reads (the start-up pass's own
            # ACTIVE.md, seen by the watcher after the snapshot said current):
            # then the pair is asked again.
            for _ in range(20):
                passes = len(reports)
                served, listed = settled(), whole.status().as_dict()
                # ...nor without saying why (issue 50): its watcher is not running.
                listed["index"]["stale_reasons"] = [
                    why for why in listed["index"]["stale_reasons"] if "watcher" not in why
                ]
                if len(reports) == passes and served["index"] == listed["index"] | {
                    "fresh": served["index"]["fresh"]
                }:
                    break
                time.sleep(0.2)
            # (An unserved home never calls its index fresh: no watcher keeps it so.)
            assert served["index"].pop("fresh") is True, step
            listed["index"].pop("fresh")
            for key in ("head", "dirty", "changes", "index", "pending_proposals", "open_loops"):
                assert served[key] == listed[key], (step, key, served[key], listed[key])
            return served

        same_as_whole("start")
        reads = dict(service.board.tree_reads)
        since = len(reports)

        (ws.root / "memory/topics/swifts.md").write_text("# Swifts\n\nThey sleep flying.\n")
        ws.write("memory/topics/kites.md", "# Kites\n\nRed kites circle.\n")
        (ws.root / "memory/topics/martins.md").unlink()
        ws.write("private/diary.md", "# Diary\n\nIgnored by git.\n")
        (ws.root / "memory/topics/link.md").symlink_to("swallows.md")  # parked
        assert wait_for(lambda: service.search("kites").hits != [], 5.0)
        edited = same_as_whole("hand edits")
        assert {"path": "memory/topics/martins.md", "state": "modified"} in edited["changes"]
        assert [p["path"] for p in edited["index"]["parked"]] == ["memory/topics/link.md"]
        ws.git("add", "memory/topics/kites.md")  # staged, no pass: shown after the commit

        ws.write("notes.txt", "still not markdown, changed\n")
        ws.git("add", "notes.txt", "memory/topics/swifts.md")
        ws.git("commit", "-qm", "swifts and notes, by hand")  # hearth's hooks run
        committed = same_as_whole("a commit")
        assert {"path": "memory/topics/kites.md", "state": "staged"} not in committed["changes"]
        assert all(c["path"] != "notes.txt" for c in committed["changes"])

        ws.git("commit", "-qam", "the rest, by hand")
        done = same_as_whole("commit -a")
        assert done["changes"] == [{"path": "memory/topics/link.md", "state": "untracked"}]
        # Every pass since the start was targeted, every snapshot a patch.
        assert reports[since:] and not any(r.full for r in reports[since:])
        assert service.board.tree_reads["whole"] == reads["whole"]
        assert service.board.tree_reads["patched"] > reads["patched"]

        # A folder git tracked files in, removed: git's status of what was in it
        # comes from a whole snapshot.
        shutil.rmtree(ws.root / "memory/topics")
        assert wait_for(lambda: service.search("swallows").hits == [], 5.0)
        gone = same_as_whole("a tracked folder removed")
        assert {"path": "memory/topics/swallows.md", "state": "modified"} in gone["changes"]
    finally:
        service.stop()
        whole.stop()
