"""Plain git as a client: the hooks, and sync between machines through a bare remote."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import subprocess
import threading
import time
from pathlib import Path

import pytest

from hearth import wiring
from hearth.errors import Conflict, NoUpstream, SyncBlocked
from hearth.reconcile import freshness
from tests.conftest import FakeClock, git
from tests.e2e.run import BIN, hearth
from tests.e2e.test_entry_sync import clones


def run_git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=False, env=os.environ.copy()
    )


# -- hooks ---------------------------------------------------------------------------


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    wiring.initialize(root)
    return root


BAD_COMMITS = {
    "identity-name": ("IDENTITY.md", "# Identity\n\nno name line\n"),
    "soul-length": ("SOUL.md", "too short\n"),
    "secret-text": ("memory/topics/keys.md", "# Keys\n\nAKIAABCDEFGHIJKLMNOP\n"),
    "record-parse": ("continuity/open-loops/broken--x.md", "no front matter at all\n"),
    "size-bound": ("MEMORY.md", "# Memory\n\n" + "x" * 20_100 + "\n"),
}


@pytest.mark.parametrize("rule", sorted(BAD_COMMITS))
def test_pre_commit_stops_bad_commits_and_names_the_rule(home: Path, rule: str) -> None:
    path, text = BAD_COMMITS[rule]
    target = home / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    git(home, "add", path)
    head = git(home, "rev-parse", "HEAD")
    proc = run_git(home, "commit", "-qm", "bad")
    assert proc.returncode != 0
    assert path in proc.stderr and f"[{rule}]" in proc.stderr
    assert git(home, "rev-parse", "HEAD") == head
    # --no-verify still commits, and hearth check then reports the problem.
    assert run_git(home, "commit", "--no-verify", "-qm", "forced").returncode == 0
    check = hearth("--home", str(home), "check")
    assert check.returncode == 1 and f"[{rule}]" in check.stdout


def test_pre_commit_checks_the_staged_blob_not_the_work_tree(home: Path) -> None:
    (home / "SOUL.md").write_text("short\n")
    git(home, "add", "SOUL.md")
    (home / "SOUL.md").write_text("A long enough soul. " * 10 + "\n")  # fixed, but not staged
    assert run_git(home, "commit", "-qm", "staged is short").returncode != 0
    git(home, "add", "SOUL.md")
    assert run_git(home, "commit", "-qm", "now fine").returncode == 0


def test_forced_in_active_md_is_stopped(home: Path) -> None:
    hearth("--home", str(home), "active")
    git(home, "add", "-f", "continuity/ACTIVE.md")
    proc = run_git(home, "commit", "-qm", "sneak it in")
    assert proc.returncode != 0 and "[active-generated]" in proc.stderr


def test_commit_all_and_commit_path_check_what_they_stage(home: Path) -> None:
    """`git commit -a` and `git commit PATH` stage into a temporary index (GIT_INDEX_FILE)."""
    head = git(home, "rev-parse", "HEAD")
    (home / "SOUL.md").write_text("short\n")  # tracked, changed, not added
    all_ = run_git(home, "commit", "-qam", "bad through -a")
    assert all_.returncode != 0 and "SOUL.md: [soul-length]" in all_.stderr
    path = run_git(home, "commit", "-qm", "bad through a path", "SOUL.md")
    assert path.returncode != 0 and "SOUL.md: [soul-length]" in path.stderr
    assert git(home, "rev-parse", "HEAD") == head
    (home / "SOUL.md").write_text("A long enough soul. " * 10 + "\n")
    assert run_git(home, "commit", "-qam", "fixed through -a").returncode == 0


def wait_for_hook_log(home: Path, needle: str, timeout: float = 60.0) -> str:
    """The background pass's line in .git/hearth/hooks.log, once it holds ``needle``."""
    log = home / ".git/hearth/hooks.log"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and needle in (text := log.read_text()):
            return text
        time.sleep(0.02)
    raise AssertionError(f"no {needle!r} in {log} after {timeout} s")


def test_post_commit_indexes_without_a_server_in_the_background(home: Path) -> None:
    hearth("--home", str(home), "reindex")
    (home / "memory/topics").mkdir(parents=True, exist_ok=True)
    (home / "memory/topics/bats.md").write_text("# Bats\n\nPipistrelles at dusk.\n")
    git(home, "add", "memory/topics/bats.md")
    proc = run_git(home, "commit", "-m", "memory: bats")
    assert proc.returncode == 0
    # git hands a hook's output to the user on stderr; the commit did not wait
    # for the pass, which writes its own line to .git/hearth/hooks.log.
    lines = [line for line in proc.stderr.splitlines() if line.startswith("hearth:")]
    assert len(lines) == 1 and "in the background" in lines[0] and "open loops" in lines[0]
    logged = wait_for_hook_log(home, "indexed")
    assert "post-commit: hearth: indexed 1 changed" in logged and "open loops" in logged
    # Found by a reconciler that runs no pass of its own: the hook indexed it.
    fresh = wiring.open_app(home).reconciler
    assert [h.path for h in fresh.catch_up().search("pipistrelles").hits] == [
        "memory/topics/bats.md"
    ]
    assert freshness.status(fresh).indexed_head == git(home, "rev-parse", "HEAD").strip()


def test_hearth_hook_by_hand_reconciles_in_the_foreground(home: Path) -> None:
    hearth("--home", str(home), "reindex")
    (home / "memory/topics").mkdir(parents=True, exist_ok=True)
    (home / "memory/topics/owls.md").write_text("# Owls\n\nTawny owls at night.\n")
    git(home, "-c", "core.hooksPath=/dev/null", "add", "memory/topics/owls.md")
    git(home, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "memory: owls")
    proc = hearth("--home", str(home), "hook", "post-commit")
    assert proc.returncode == 0
    lines = [line for line in proc.stdout.splitlines() if line.startswith("hearth:")]
    assert len(lines) == 1 and "indexed 1 changed" in lines[0] and "open loops" in lines[0]
    fresh = wiring.open_app(home).reconciler
    assert [h.path for h in fresh.catch_up().search("tawny").hits] == ["memory/topics/owls.md"]


def test_a_hook_that_was_there_before_still_runs(tmp_path: Path) -> None:
    root = tmp_path / "home"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    marker = tmp_path / "marker"
    original = f"#!/bin/sh\necho ran >> {marker}\n"
    hook = root / ".git/hooks/post-commit"
    hook.write_text(original)
    hook.chmod(0o755)
    wiring.initialize(root)  # installs the hooks, keeping this one
    assert hearth("--home", str(root), "hooks", "install").returncode == 0  # idempotent
    proc = run_git(root, "commit", "--allow-empty", "-m", "person: empty")
    assert proc.returncode == 0
    assert marker.read_text() == "ran\n"
    assert "hearth:" in proc.stderr
    assert (root / ".git/hooks/post-commit.before-hearth").read_text() == original


def test_git_hearth_review(home: Path) -> None:
    hearth("--home", str(home), "propose", "--title", "Tea", "--entry", "Sam likes tea")
    hearth("--home", str(home), "loop", "add", "--title", "Fix the gate")
    proc = subprocess.run(
        ["git", "hearth", "review"],
        cwd=home / "memory" if (home / "memory").exists() else home,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "tea--" in proc.stdout and "fix-the-gate--" in proc.stdout


# -- sync ----------------------------------------------------------------------------


class Machine:
    def __init__(self, root: Path, clock: FakeClock) -> None:
        self.root = root
        self.app = wiring.open_app(root, clock)
        self.home = self.app.writes

    def sync(self):  # type: ignore[no-untyped-def]
        return self.app.syncer.sync()

    def edit(self, path: str, text: str, message: str) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        git(self.root, "add", path)
        git(self.root, "commit", "-qm", message)

    def read(self, path: str) -> str:
        return (self.root / path).read_text()


@pytest.fixture
def machines(tmp_path: Path, clock: FakeClock) -> list[Machine]:
    return [Machine(root, clock) for root in clones(tmp_path, clock, 3)]


def test_no_upstream_is_a_clear_refusal(home: Path) -> None:
    with pytest.raises(NoUpstream, match="no upstream"):
        wiring.open_app(home).syncer.sync()
    proc = hearth("--home", str(home), "sync")
    assert proc.returncode == 1 and "no upstream" in proc.stderr


def test_ahead_pushes_behind_fast_forwards(machines: list[Machine]) -> None:
    a, b, _ = machines
    a.home.note("From machine A.", "A", "test")
    assert a.sync().action == "pushed"
    result = b.sync()
    assert result.action == "fast-forward"
    assert "From machine A." in b.read(a.home.note("x", None, "t").path)  # same day's note
    assert a.sync().action == "pushed"
    assert b.sync().action == "fast-forward"
    assert b.sync().action == "up-to-date"


def test_same_days_notes_on_two_machines_merge_entry_by_entry(machines: list[Machine]) -> None:
    a, b, _ = machines
    path = a.home.note("Breakfast on A.", "A", "test").path
    b.home.note("Breakfast on B.", "B", "test")
    a.sync()
    result = b.sync()
    assert result.action == "merged" and result.conflicts == []
    a.sync()
    for machine in (a, b):
        text = machine.read(path)
        assert "Breakfast on A." in text and "Breakfast on B." in text
        assert "<<<<<<<" not in text and ">>>>>>>" not in text
    assert git(a.root, "rev-parse", "HEAD") == git(b.root, "rev-parse", "HEAD")


def _same_minute(machine: Machine, text: str) -> str:
    """A daily entry written at 11:32 UTC, whatever the machine's clock says."""
    at = dt.datetime(2026, 11, 22, 11, 32, tzinfo=dt.UTC)
    home = wiring.open_writes(machine.root, lambda: at)
    try:
        return home.note(text, "note", "test").path
    finally:
        home.files.close()


def _assert_two_entries(text: str) -> None:
    assert text.count("## 11:32 UTC — note") == 2, text
    assert "Bought bread on A." in text and "Called Sam on B." in text
    a_at, b_at = text.index("Bought bread on A."), text.index("Called Sam on B.")
    between = text[min(a_at, b_at) : max(a_at, b_at)]
    assert "## 11:32 UTC — note" in between  # each text under its own heading
    assert "<<<<<<<" not in text and "=======" not in text


def test_same_minute_entries_keep_their_own_headings_on_every_clone(
    machines: list[Machine],
) -> None:
    a, b, c = machines
    path = _same_minute(a, "Bought bread on A.")
    _same_minute(b, "Called Sam on B.")
    a.sync()
    assert b.sync().conflicts == []
    a.sync()
    c.sync()
    for machine in machines:
        _assert_two_entries(machine.read(path))
        status = json.loads(hearth("--home", str(machine.root), "status", "--json").stdout)
        assert status["conflicts"] == []
    active = b.read("continuity/ACTIVE.md")
    today = active.split("## Today", 1)[1].split("\n## ", 1)[0]
    assert "Bought bread on A." in today and "Called Sam on B." in today


def test_a_plain_git_pull_merges_daily_notes_the_same_way(machines: list[Machine]) -> None:
    a, b, _ = machines
    path = _same_minute(a, "Bought bread on A.")
    _same_minute(b, "Called Sam on B.")
    git(a.root, "push", "-q")
    pulled = run_git(b.root, "pull", "-q", "--no-rebase", "--no-edit")
    assert pulled.returncode == 0, pulled.stderr
    _assert_two_entries(b.read(path))
    assert run_git(b.root, "diff", "--quiet", "HEAD").returncode == 0


def test_a_module_a_commit_brings_never_runs_in_the_merge_driver(
    machines: list[Machine], tmp_path: Path
) -> None:
    """hostile: git runs the merge driver at the top of the work tree, and
    ``python -m`` puts that folder first on the module path, so a ``.py`` file a
    hostile commit brought by sync (``dataclasses.py``, ``hearth/``) ran as the
    person on the next ``git pull`` that merged a daily note."""
    a, b, _ = machines
    ran = tmp_path / "ran"
    planted = f"open({str(ran)!r}, 'a').write('ran')\nfrom dataclasses import *\n"
    (a.root / "dataclasses.py").write_text(planted)
    git(a.root, "add", "dataclasses.py")
    git(a.root, "commit", "-qm", "a module", "--no-verify")
    git(a.root, "push", "-q")
    assert run_git(b.root, "pull", "-q", "--no-rebase", "--no-edit").returncode == 0
    path = _same_minute(a, "Bought bread on A.")
    _same_minute(b, "Called Sam on B.")
    git(a.root, "push", "-q")
    pulled = run_git(b.root, "pull", "-q", "--no-rebase", "--no-edit")
    assert not ran.exists(), "the home's own dataclasses.py ran in the merge driver"
    assert pulled.returncode == 0, pulled.stderr
    _assert_two_entries(b.read(path))


def test_a_clone_without_the_driver_falls_back_to_a_visible_conflict(
    machines: list[Machine], tmp_path: Path
) -> None:
    a, _, _ = machines
    bare = tmp_path / "plain"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(bare))  # no hooks install
    path = _same_minute(a, "Bought bread on A.")
    git(a.root, "push", "-q")
    git(bare, "pull", "-q", "--no-rebase")
    (bare / path).write_text((bare / path).read_text() + "\n## 11:32 UTC — note\n\nPlain.\n")
    git(bare, "commit", "-qam", "plain")
    _same_minute(a, "Called Sam on B.")
    git(a.root, "push", "-q")
    pulled = run_git(bare, "pull", "-q", "--no-rebase", "--no-edit")
    # git's own line merge: a conflict the person sees, nothing spliced silently.
    assert pulled.returncode != 0
    assert "<<<<<<<" in (bare / path).read_text()


def test_a_topic_note_changed_on_both_sides_is_never_spliced(machines: list[Machine]) -> None:
    a, b, _ = machines
    topic = "memory/topics/garden-shed.md"
    a.edit(topic, "# Garden shed\n\nGarden shed: planned\n", "memory: shed")
    a.sync()
    b.sync()
    a.edit(topic, "# Garden shed\n\nGarden shed: done\n", "memory: shed done")
    b.edit(topic, "# Garden shed\n\nGarden shed: cancelled\n", "memory: shed cancelled")
    a.sync()
    result = b.sync()
    assert result.action == "merged" and len(result.conflicts) == 1
    copy = result.conflicts[0]
    assert copy.startswith(f"continuity/conflicts/{topic}--")
    assert b.read(topic) == "# Garden shed\n\nGarden shed: cancelled\n"  # ours, whole
    assert "Garden shed: done" in b.read(copy)  # theirs, as a copy
    history = git(b.root, "log", "-p", "--all")
    assert "Garden shed: done" in history and "Garden shed: cancelled" in history
    status = json.loads(hearth("--home", str(b.root), "status", "--json").stdout)
    assert status["conflicts"] == [copy]
    assert copy in b.read("continuity/ACTIVE.md")


def test_old_gitattributes_are_migrated_in_one_commit(tmp_path: Path) -> None:
    root = tmp_path / "home"
    wiring.initialize(root)
    legacy = (
        "*.png binary\n"
        "# Written by hearth init. Daily notes are append-only: merge both sides' lines.\n"
        "memory/*.md merge=union\n"
    )
    (root / ".gitattributes").write_text(legacy)
    git(root, "commit", "-qam", "as older hearths wrote it")
    before = git(root, "rev-list", "--count", "HEAD")
    proc = hearth("--home", str(root), "hooks", "install")
    assert proc.returncode == 0, proc.stderr
    assert "updated .gitattributes" in proc.stdout
    assert int(git(root, "rev-list", "--count", "HEAD")) == int(before) + 1
    text = (root / ".gitattributes").read_text()
    assert "merge=union" not in text and "*.png binary" in text
    assert "merge=hearth-daily" in text
    assert git(root, "show", "--stat", "--format=%B", "HEAD").count(".gitattributes") == 1
    assert "Hearth-Op: home.attributes" in git(root, "log", "-1", "--format=%B")
    assert "-m hearth.mergedriver %O %A %B %P" in git(root, "config", "merge.hearth-daily.driver")
    # Running it again changes nothing; init agrees.
    again = hearth("--home", str(root), "hooks", "install")
    assert again.returncode == 0 and "updated" not in again.stdout
    assert hearth("init", str(root)).returncode == 0
    assert int(git(root, "rev-list", "--count", "HEAD")) == int(before) + 1
    attributes = git(root, "check-attr", "merge", "--", "memory/2026-11-22.md", "memory/x.md")
    assert "memory/2026-11-22.md: merge: hearth-daily" in attributes
    assert "memory/x.md: merge: unspecified" in attributes


def test_soul_edited_on_both_keeps_one_in_place_and_the_other_as_a_copy(
    machines: list[Machine],
) -> None:
    a, b, _ = machines
    base = a.read("SOUL.md")
    a.edit("SOUL.md", base + "\nA says: be brief.\n", "persona: brief")
    b.edit("SOUL.md", base + "\nB says: be thorough.\n", "persona: thorough")
    a.sync()
    result = b.sync()
    assert result.action == "merged" and len(result.conflicts) == 1
    copy = result.conflicts[0]
    assert copy.startswith("continuity/conflicts/SOUL.md--") and copy.endswith(".md")
    assert "B says: be thorough." in b.read("SOUL.md")  # local stays in place
    assert "A says: be brief." in b.read(copy)  # remote kept as a copy
    history = git(b.root, "log", "-p", "--all")
    assert "A says: be brief." in history and "B says: be thorough." in history
    status = json.loads(hearth("--home", str(b.root), "status", "--json").stdout)
    assert status["conflicts"] == [copy]
    assert status["sync"]["last_result"] == "merged"
    assert copy in b.read("continuity/ACTIVE.md")
    # A person resolves it: edit the file, delete the copy, commit.
    (b.root / copy).unlink()
    git(b.root, "commit", "-qam", "persona: resolve the conflict")
    b.sync()
    a.sync()
    assert not (a.root / copy).exists() and "B says" in a.read("SOUL.md")
    assert json.loads(hearth("--home", str(a.root), "status", "--json").stdout)["conflicts"] == []


def test_sync_never_overwrites_uncommitted_edits(machines: list[Machine]) -> None:
    a, b, _ = machines
    a.edit("USER.md", a.read("USER.md") + "\nfrom A\n", "user: from A")
    a.sync()
    mine = b.read("USER.md") + "\nB's unsaved thought\n"
    (b.root / "USER.md").write_text(mine)
    head = git(b.root, "rev-parse", "HEAD")
    with pytest.raises(SyncBlocked, match=r"USER\.md"):
        b.sync()
    assert b.read("USER.md") == mine
    assert git(b.root, "rev-parse", "HEAD") == head
    proc = hearth("--home", str(b.root), "sync")
    assert proc.returncode == 1 and "USER.md" in proc.stderr
    status = json.loads(hearth("--home", str(b.root), "status", "--json").stdout)
    assert status["sync"]["last_result"] == "refused"


def test_two_machines_pushing_at_once_both_land(machines: list[Machine]) -> None:
    a, b, c = machines
    for n, machine in enumerate((a, b)):
        machine.edit(f"memory/topics/race-{n}.md", f"# Race {n}\n", f"memory: race {n}")
    errors: list[BaseException] = []

    def run(machine: Machine) -> None:
        try:
            machine.sync()
        except (Conflict, OSError) as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(m,)) for m in (a, b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors
    c.sync()
    assert (c.root / "memory/topics/race-0.md").exists()
    assert (c.root / "memory/topics/race-1.md").exists()


@pytest.mark.torture  # its long form under ``make torture``
def test_rounds_of_random_work_lose_nothing(machines: list[Machine]) -> None:
    """Twenty rounds in the suite (the first twenty of the long form's fifty, the
    same seed), fifty under ``make torture`` (``HEARTH_TORTURE=long``)."""
    rng = random.Random(50)
    written_notes: list[str] = []
    soul_versions: list[str] = []
    rounds = 50 if os.environ.get("HEARTH_TORTURE") == "long" else 20
    for round_ in range(rounds):
        machine = rng.choice(machines)
        action = rng.random()
        if action < 0.45:
            text = f"note {round_} from {machine.root.name}"
            machine.home.note(text, f"r{round_}", "test")
            written_notes.append(text)
        elif action < 0.7:
            version = f"\nsoul line {round_} from {machine.root.name}\n"
            machine.edit("SOUL.md", machine.read("SOUL.md") + version, f"persona: {round_}")
            soul_versions.append(version.strip())
        else:
            machine.edit(f"memory/topics/t{round_}.md", f"# T{round_}\n", f"memory: t{round_}")
        if rng.random() < 0.6:
            rng.choice(machines).sync()
    for _ in range(2):
        for machine in machines:
            machine.sync()
    heads = {git(m.root, "rev-parse", "HEAD").strip() for m in machines}
    assert len(heads) == 1
    history = git(machines[0].root, "log", "-p", "--all")
    for text in written_notes:
        assert text in history
    for version in soul_versions:
        assert version in history
    for machine in machines:
        assert machine.home.store.repo.state() == 0
        assert run_git(machine.root, "fsck", "--no-progress").returncode == 0
        assert "<<<<<<<" not in "".join(
            p.read_text() for p in (machine.root / "memory").glob("*.md")
        )


def test_a_shared_hooks_path_is_left_alone(tmp_path: Path) -> None:
    shared = tmp_path / "shared-hooks"
    shared.mkdir()
    Path(os.environ["HOME"], ".gitconfig").write_text(f"[core]\n\thooksPath = {shared}\n")
    # A new process: libgit2 reads the global config's location once, at start.
    init = hearth("init", str(tmp_path / "home"), "--json")
    assert init.returncode == 0, init.stderr
    assert list(shared.iterdir()) == []
    assert any("core.hooksPath" in w["message"] for w in json.loads(init.stdout)["warnings"])
    proc = hearth("--home", str(tmp_path / "home"), "hooks", "install")
    assert proc.returncode == 1 and "core.hooksPath" in proc.stderr


def test_an_unmigrated_home_is_told_in_active_md(tmp_path: Path) -> None:
    root = tmp_path / "home"
    wiring.initialize(root)
    (root / ".gitattributes").write_text("memory/*.md merge=union\n")
    git(root, "commit", "-qam", "as older hearths wrote it")
    proc = hearth("--home", str(root), "active")
    assert proc.returncode == 0
    assert "hearth hooks install" in (root / "continuity/ACTIVE.md").read_text()
    assert hearth("--home", str(root), "hooks", "install").returncode == 0
    hearth("--home", str(root), "active")
    assert "hearth hooks install" not in (root / "continuity/ACTIVE.md").read_text()


def test_init_migrates_old_gitattributes_too(tmp_path: Path) -> None:
    root = tmp_path / "home"
    wiring.initialize(root)
    (root / ".gitattributes").write_text("memory/*.md merge=union\n")
    git(root, "commit", "-qam", "as older hearths wrote it")
    before = int(git(root, "rev-list", "--count", "HEAD"))
    assert hearth("init", str(root)).returncode == 0
    assert int(git(root, "rev-list", "--count", "HEAD")) == before + 1
    text = (root / ".gitattributes").read_text()
    assert "merge=union" not in text and "merge=hearth-daily" in text
    assert git(root, "status", "--porcelain") == ""
