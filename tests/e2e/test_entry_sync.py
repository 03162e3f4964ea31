"""USER.md, MEMORY.md and person notes across machines: merged entry by entry.

Real clones of a real bare remote; each machine's agent writes through the
app (the same operations as the API), a person edits with plain git, and the
machines meet through ``hearth sync`` or a plain ``git pull``.
"""

from __future__ import annotations

import os
import random
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hearth import wiring
from hearth.domain import entries, layout
from hearth.domain.entry_merge import parse_record
from tests.conftest import FakeClock, git
from tests.e2e.run import hearth


def run_git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=False, env=os.environ.copy()
    )


class Machine:
    def __init__(self, root: Path, clock: FakeClock) -> None:
        self.root = root
        self.app = wiring.open_app(root, clock)

    def sync(self):  # type: ignore[no-untyped-def]
        return self.app.syncer.sync()

    def pull_and_push(self) -> None:
        """A person's plain git: pull (merge), then push."""
        pulled = run_git(self.root, "pull", "-q", "--no-rebase", "--no-edit")
        assert pulled.returncode == 0, pulled.stderr
        pushed = run_git(self.root, "push", "-q")
        assert pushed.returncode == 0, pushed.stderr

    def entries(self, path: str = "MEMORY.md") -> list[str]:
        return [e.text for e in entries.list_entries((self.root / path).read_text())]

    def records(self) -> list[Path]:
        folder = self.root / layout.ENTRY_CONFLICTS_DIR
        return sorted(folder.rglob("*.md")) if folder.is_dir() else []


def clones(tmp_path: Path, clock: FakeClock, count: int) -> list[Path]:
    """A home pushed to a real bare remote (m0) and ``count - 1`` clones of it,
    each with hearth's hooks and merge drivers."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    first = tmp_path / "m0"
    wiring.initialize(first, clock)
    git(first, "remote", "add", "origin", str(remote))
    git(first, "push", "-q", "-u", "origin", "main")
    found = [first]
    for n in range(1, count):
        clone = tmp_path / f"m{n}"
        git(tmp_path, "clone", "-q", str(remote), str(clone))
        wiring.install_hooks(clone)
        found.append(clone)
    return found


def make_machines(tmp_path: Path, clock: FakeClock, count: int) -> list[Machine]:
    return [Machine(root, clock) for root in clones(tmp_path, clock, count)]


@pytest.fixture
def pair(tmp_path: Path, clock: FakeClock) -> list[Machine]:
    return make_machines(tmp_path, clock, 2)


@pytest.mark.parametrize("path", ["MEMORY.md", "USER.md", "users/sam.md"])
def test_an_entry_added_on_each_machine_is_kept_on_both(pair: list[Machine], path: str) -> None:
    laptop, desktop = pair
    laptop.app.entry_add(path, "Laptop fact: Sam likes tea", "agent")
    desktop.app.entry_add(path, "Desktop fact: Sam owns a cat", "agent")
    assert laptop.sync().action == "pushed"
    merged = desktop.sync()
    assert merged.action == "merged" and merged.conflicts == []
    assert laptop.sync().action == "fast-forward"
    for machine in pair:
        held = machine.entries(path)
        assert "Laptop fact: Sam likes tea" in held and "Desktop fact: Sam owns a cat" in held
        assert not (machine.root / layout.CONFLICTS_DIR).exists()


def test_a_removed_entry_stays_removed(pair: list[Machine]) -> None:
    laptop, desktop = pair
    laptop.app.entry_add("MEMORY.md", "Old fact: the car is blue", "agent")
    laptop.sync()
    desktop.sync()
    laptop.app.entry_remove("MEMORY.md", "Old fact: the car is blue", "agent")
    desktop.app.entry_add("MEMORY.md", "New fact: the bike is red", "agent")
    laptop.sync()
    desktop.sync()
    laptop.sync()
    for machine in pair:
        assert machine.entries() == ["New fact: the bike is red"]


def test_a_replacement_on_one_side_applies_in_place(pair: list[Machine]) -> None:
    laptop, desktop = pair
    for text in ("first", "second", "third"):
        laptop.app.entry_add("MEMORY.md", text, "agent")
    laptop.sync()
    desktop.sync()
    laptop.app.entry_replace("MEMORY.md", "second", "second, corrected", "agent")
    desktop.app.entry_add("MEMORY.md", "fourth", "agent")
    laptop.sync()
    desktop.sync()
    laptop.sync()
    for machine in pair:
        assert machine.entries() == ["first", "second, corrected", "third", "fourth"]


def test_two_different_changes_of_one_entry_keep_both_and_say_so(pair: list[Machine]) -> None:
    laptop, desktop = pair
    laptop.app.entry_add("MEMORY.md", "Sam lives in Porto", "agent")
    laptop.sync()
    desktop.sync()
    laptop.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Lisbon", "agent")
    desktop.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Braga", "agent")
    laptop.sync()
    result = desktop.sync()
    assert result.action == "merged"
    assert len(result.conflicts) == 1 and result.conflicts[0].startswith(layout.ENTRY_CONFLICTS_DIR)
    assert laptop.sync().action == "fast-forward"
    for machine in pair:
        # Both versions in the file (the merging machine's first), named by the record.
        assert machine.entries() == ["Sam lives in Braga", "Sam lives in Lisbon"]
        (record_file,) = machine.records()
        record = parse_record(str(record_file.relative_to(machine.root)), record_file.read_text())
        assert record is not None
        assert (record.base, record.kept, record.other) == (
            "Sam lives in Porto",
            "Sam lives in Braga",
            "Sam lives in Lisbon",
        )
        machine.app.reconcile()
        active = (machine.root / layout.ACTIVE_PATH).read_text()
        assert "in MEMORY.md: settle with" in active and "Sam lives in Lisbon" in active
        status = machine.app.status()
        assert any("entries" in c for c in status.as_dict()["conflicts"])  # type: ignore[union-attr]


def test_a_fast_forward_reports_no_conflict_it_did_not_make(
    pair: list[Machine], tmp_path: Path
) -> None:
    laptop, desktop = pair
    for machine, line in ((laptop, "laptop"), (desktop, "desktop")):
        soul = machine.root / "SOUL.md"
        soul.write_text(soul.read_text() + f"\n{line} soul line\n")
        git(machine.root, "commit", "-qam", f"persona: {line}")
    laptop.sync()
    merged = desktop.sync()
    (copy,) = merged.conflicts
    laptop_head = git(laptop.root, "rev-parse", "--short=7", "HEAD").strip()
    # The copy is named after the commit whose version it holds: the laptop's.
    assert copy.endswith(f"--{laptop_head}.md")
    forwarded = laptop.sync()
    assert forwarded.action == "fast-forward" and forwarded.conflicts == []
    laptop.app.reconcile()
    active = (laptop.root / layout.ACTIVE_PATH).read_text()
    assert "the other machine" not in active
    assert f"the version of commit {laptop_head} is kept at {copy}" in active


# -- rounds: many machines, agents and a person ---------------------------------------


@dataclass
class Tally:
    """What the rounds did and what the homes hold at the end."""

    changed: int = 0
    live: dict[str, str] = field(default_factory=dict)  # entry -> the machine that owns it
    gone: set[str] = field(default_factory=set)
    planted_conflicts: int = 0


def _rounds(machines: list[Machine], rounds: int, seed: int, meet: str) -> tuple[Tally, list[str]]:
    """Each round every machine's agent adds, removes or replaces its own entries
    (a person edits one by hand now and then), one entry is changed two ways on two
    machines every third round, and every machine meets the remote in turn."""
    rng = random.Random(seed)
    tally = Tally()
    names = [m.root.name for m in machines]
    for round_ in range(rounds):
        for n, machine in enumerate(machines):
            mine = sorted(e for e, owner in tally.live.items() if owner == names[n])
            action = rng.random()
            if action < 0.5 or not mine:
                text = f"r{round_} {names[n]} fact {rng.randrange(10**6)}"
                machine.app.entry_add("MEMORY.md", text, "agent")
                tally.live[text] = names[n]
            elif action < 0.7:
                old = rng.choice(mine)
                machine.app.entry_remove("MEMORY.md", old, "agent")
                del tally.live[old]
                tally.gone.add(old)
            elif action < 0.9:
                old = rng.choice(mine)
                new = f"{old} (replaced r{round_})"
                machine.app.entry_replace("MEMORY.md", old, new, "agent")
                del tally.live[old]
                tally.gone.add(old)
                tally.live[new] = names[n]
            else:  # a person's hand edit of one entry, committed with plain git
                old = rng.choice(mine)
                new = f"{old} (edited by hand r{round_})"
                target = machine.root / "MEMORY.md"
                target.write_text(target.read_text().replace(f"- {old}\n", f"- {new}\n"))
                git(machine.root, "commit", "-qam", "my edit")
                del tally.live[old]
                tally.gone.add(old)
                tally.live[new] = names[n]
            tally.changed += 1
        if round_ % 3 == 2 and len(machines) > 1:
            # Two machines replace the same (synced) entry two different ways.
            shared = f"shared r{round_}"
            machines[0].app.entry_add("MEMORY.md", shared, "agent")
            _meet(machines, meet)
            for n in (0, 1):
                machines[n].app.entry_replace("MEMORY.md", shared, f"{shared} by {names[n]}", "a")
            tally.planted_conflicts += 1
            tally.changed += 3
            tally.gone.add(shared)
            # Both versions stay in the file.
            tally.live[f"{shared} by ?"] = "both"
        _meet(machines, meet)
    _meet(machines, meet, writing=False)
    _meet(machines, meet, writing=False)
    return tally, machines[0].entries()


def _meet(machines: list[Machine], meet: str, writing: bool = True) -> None:
    """Every machine syncs in turn, one of them while its agent writes a note."""
    for n, machine in enumerate(machines):
        if meet == "pull":
            machine.pull_and_push()
            continue
        writer = None
        if n == 0 and writing:
            writer = threading.Thread(
                target=machine.app.note, args=(f"during sync {id(writer)}", None, "agent")
            )
            writer.start()
        machine.sync()
        if writer is not None:
            writer.join()


def _figures(machines: list[Machine], tally: Tally) -> dict[str, int]:
    final = machines[0].entries()
    lost = [
        e for e, owner in tally.live.items() if owner != "both" and e not in final
    ]  # every live entry is in the file
    resurrected = [e for e in tally.gone if e in final]
    records = {p.name for m in machines for p in m.records()}
    return {
        "entries changed": tally.changed,
        "entries lost": len(lost),
        "removals resurrected": len(resurrected),
        "conflicts reported": len(records),
        "conflicts planted": tally.planted_conflicts,
    }


@pytest.mark.torture  # its long form under ``make torture``
@pytest.mark.parametrize("count", [2, 3])
def test_rounds_of_entry_work_on_several_machines_lose_nothing(
    tmp_path: Path, clock: FakeClock, count: int
) -> None:
    results: dict[str, list[str]] = {}
    for meet in ("sync", "pull"):
        (tmp_path / meet).mkdir()
        machines = make_machines(tmp_path / meet, clock, count)
        # Three machines' long form runs under ``make torture``; the suite keeps
        # three machines' first rounds beside two machines' six.
        rounds = 6 if count == 2 or os.environ.get("HEARTH_TORTURE") == "long" else 3
        tally, final = _rounds(machines, rounds=rounds, seed=34, meet=meet)
        figures = _figures(machines, tally)
        print(f"{count} machines through {meet}: {figures}")
        heads = {git(m.root, "rev-parse", "HEAD").strip() for m in machines}
        assert len(heads) == 1
        for machine in machines:
            assert machine.entries() == final
        assert figures["entries lost"] == 0
        assert figures["removals resurrected"] == 0
        # hearth sync names each conflict in a record; a plain git pull names none,
        # and under both the two versions stand side by side in the file.
        planted = figures["conflicts planted"] if meet == "sync" else 0
        assert figures["conflicts reported"] == planted
        for both in (e for e, owner in tally.live.items() if owner == "both"):
            stem = both.removesuffix(" by ?")
            assert sum(1 for e in final if e.startswith(stem + " by ")) == 2
        results[meet] = [e for e in final if not e.startswith("shared ")]
    # The same entries whichever way the machines met (a planted conflict keeps
    # the merging machine's version, which is the same machine both ways).
    assert results["sync"] == results["pull"]


def test_an_empty_clone_becomes_the_remotes_home(tmp_path: Path, clock: FakeClock) -> None:
    # The remote's HEAD names master, the home is on main: git clone checks out nothing.
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "master", str(remote))
    first = tmp_path / "laptop"
    wiring.initialize(first, clock)
    (first / "BOOTSTRAP.md").unlink()
    git(first, "commit", "-qam", "onboarded")
    Machine(first, clock).app.entry_add("MEMORY.md", "Sam likes tea", "agent")
    git(first, "remote", "add", "origin", str(remote))
    git(first, "push", "-q", "-u", "origin", "main")
    clone = tmp_path / "desktop"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    proc = hearth("--home", str(clone), "init")
    assert proc.returncode == 0, proc.stderr
    assert "origin/main already holds this home" in proc.stdout
    assert git(clone, "rev-parse", "HEAD") == git(first, "rev-parse", "HEAD")
    assert git(clone, "branch", "--show-current").strip() == "main"
    assert not (clone / "BOOTSTRAP.md").exists()
    assert Machine(clone, clock).entries() == ["Sam likes tea"]
    # It syncs as the same home, and sync's advice elsewhere names the real branch.
    assert Machine(clone, clock).sync().action == "up-to-date"
    lone = tmp_path / "lone"
    git(tmp_path, "init", "-q", "-b", "trunk", str(lone))
    wiring.initialize(lone, clock)
    said = hearth("--home", str(lone), "sync")
    assert said.returncode == 1 and "(trunk)" in said.stderr and "main" not in said.stderr


def test_an_entry_conflict_is_settled_with_hearth_memory(pair: list[Machine]) -> None:
    laptop, desktop = pair
    laptop.app.entry_add("MEMORY.md", "Sam lives in Porto", "agent")
    laptop.sync()
    desktop.sync()
    laptop.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Lisbon", "agent")
    desktop.app.entry_remove("MEMORY.md", "Sam lives in Porto", "agent")
    laptop.sync()
    desktop.sync()  # replaced against removed: the replacement stays in the file
    laptop.sync()
    listed = hearth("--home", str(laptop.root), "memory", "conflicts")
    assert "--keep file:  «Sam lives in Lisbon»" in listed.stdout, listed.stdout
    assert "(removed there)" in listed.stdout
    (record,) = laptop.app.entry_conflicts()
    settled = hearth("--home", str(laptop.root), "memory", "settle", record.id, "--keep", "other")
    assert settled.returncode == 0, settled.stderr
    assert laptop.entries() == [] and laptop.app.entry_conflicts() == []
    assert git(laptop.root, "status", "--porcelain") == ""
    missing = hearth("--home", str(laptop.root), "memory", "settle", record.id, "--keep", "file")
    assert missing.returncode == 1 and "no entry conflict" in missing.stderr


def test_a_loop_resolved_on_one_machine_and_edited_on_the_other(pair: list[Machine]) -> None:
    laptop, desktop = pair
    written = laptop.app.add_loop("Call the plumber", "agent", summary="leak")
    key = written.path.rsplit("/", 1)[1].removesuffix(".md")
    laptop.sync()
    desktop.sync()
    laptop.app.resolve_loop(key, "agent", note="fixed")
    path = f"{layout.record_dir('loop')}/{key}.md"
    loop = desktop.root / path
    loop.write_text(loop.read_text().replace("leak", "leak under the sink"))
    git(desktop.root, "commit", "-qam", "my detail")
    laptop.sync()
    merged = desktop.sync()
    laptop.sync()
    for machine in pair:
        # Resolved stays resolved, and the edit is not lost: git follows the move
        # into the archive and carries it there (when it cannot, sync keeps the
        # edited version as a copy listed in status: test_entry_sync's records).
        assert not (machine.root / path).exists()
        assert [v.key for v in machine.app.records("loop")] == []
        (archived,) = (machine.root / layout.record_dir("loop") / "archive").glob("*.md")
        text = archived.read_text()
        assert "leak under the sink" in text and "resolution: fixed" in text
    assert merged.action == "merged"


def test_a_merge_over_the_bound_keeps_every_entry_and_says_which_could_move(
    pair: list[Machine],
) -> None:
    laptop, desktop = pair
    for machine in pair:
        (machine.root / "hearth.toml").write_text(
            (machine.root / "hearth.toml")
            .read_text()
            .replace("memory_md = 20000", "memory_md = 900")
        )
    git(laptop.root, "commit", "-qam", "settings: a small bound")
    laptop.sync()
    git(desktop.root, "checkout", "-q", "--", "hearth.toml")
    desktop.sync()
    size = len((laptop.root / "MEMORY.md").read_text())
    room = (900 - size) // 2
    laptop.app.entry_add("MEMORY.md", "L" * (room - 10), "agent")
    desktop.app.entry_add("MEMORY.md", "D" * (room - 10), "agent")
    laptop.app.entry_add("MEMORY.md", "laptop " * 3, "agent")
    desktop.app.entry_add("MEMORY.md", "desktop " * 3, "agent")
    laptop.sync()
    desktop.sync()
    held = desktop.entries()
    assert len(held) == 4  # nothing dropped to stay within the bound
    fresh = wiring.open_app(desktop.root)  # the settings as committed now
    fresh.reconcile()
    active = (desktop.root / layout.ACTIVE_PATH).read_text()
    assert "[size-bound] MEMORY.md has" in active
    checked = hearth("--home", str(desktop.root), "check")
    assert checked.returncode == 1 and "could move (repeated, then oldest): #" in checked.stdout


def test_a_home_from_before_the_entry_driver_is_told_and_moved_over(
    tmp_path: Path, clock: FakeClock
) -> None:
    root = tmp_path / "home"
    wiring.initialize(root, clock)
    attributes = root / ".gitattributes"
    attributes.write_text(
        "".join(
            line + "\n" for line in attributes.read_text().splitlines() if "entries" not in line
        )
    )
    git(root, "commit", "-qam", "as an older hearth wrote it")
    app = wiring.open_app(root, clock)
    app.reconcile()
    assert "does not name the entry merge driver" in (root / layout.ACTIVE_PATH).read_text()
    installed = hearth("--home", str(root), "hooks", "install")
    assert "updated .gitattributes" in installed.stdout
    assert "/MEMORY.md merge=hearth-entries" in attributes.read_text()
    driver = git(root, "config", "merge.hearth-entries.driver")
    assert "-m hearth.mergedriver %O %A %B %P" in driver
