"""Plain git as a client: the hooks, and sync between machines through a bare remote."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hearth import wiring
from hearth.errors import Conflict
from hearth.sync import NoUpstream, SyncBlocked
from tests.conftest import FakeClock, git

BIN = Path(sys.executable).parent


def run_git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=False, env=os.environ.copy()
    )


def hearth(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "hearth"), *args],
        capture_output=True,
        text=True,
        check=False,
        env=os.environ.copy(),
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


def test_post_commit_indexes_without_a_server_and_prints_one_line(home: Path) -> None:
    hearth("--home", str(home), "reindex")
    (home / "memory/topics").mkdir(parents=True, exist_ok=True)
    (home / "memory/topics/bats.md").write_text("# Bats\n\nPipistrelles at dusk.\n")
    git(home, "add", "memory/topics/bats.md")
    proc = run_git(home, "commit", "-m", "memory: bats")
    assert proc.returncode == 0
    # git hands a hook's output to the user on stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("hearth:")]
    assert len(lines) == 1 and "indexed 1 changed" in lines[0] and "open loops" in lines[0]
    # Found by a reconciler that runs no pass of its own: the hook indexed it.
    fresh = wiring.reconciler_of(wiring.open_home(home))
    assert [h.path for h in fresh.search("pipistrelles")] == ["memory/topics/bats.md"]
    assert fresh.status().indexed_head == git(home, "rev-parse", "HEAD").strip()


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
        self.home = wiring.open_home(root, clock)

    def sync(self):  # type: ignore[no-untyped-def]
        return wiring.syncer_of(self.home).sync()

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
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    first = tmp_path / "m0"
    wiring.initialize(first, clock)
    git(first, "remote", "add", "origin", str(remote))
    git(first, "push", "-q", "-u", "origin", "main")
    found = [Machine(first, clock)]
    for n in (1, 2):
        clone = tmp_path / f"m{n}"
        git(tmp_path, "clone", "-q", str(remote), str(clone))
        wiring.install_hooks(clone)
        found.append(Machine(clone, clock))
    return found


def test_no_upstream_is_a_clear_refusal(home: Path) -> None:
    with pytest.raises(NoUpstream, match="no upstream"):
        wiring.syncer_of(wiring.open_home(home)).sync()
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


def test_same_days_notes_on_two_machines_merge_as_a_union(machines: list[Machine]) -> None:
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


def test_fifty_rounds_of_random_work_lose_nothing(machines: list[Machine]) -> None:
    rng = random.Random(50)
    written_notes: list[str] = []
    soul_versions: list[str] = []
    for round_ in range(50):
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
