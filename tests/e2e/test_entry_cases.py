"""The twelve cases of "memory survives every edit people really make": each
seen on 2d32b4d with real clones of a real bare remote, each its own test.

Machine A and machine B are clones of one home; an agent writes through the
app, a person edits with a plain text write and commits with git (hooks
included), and the machines meet through ``hearth sync``, a plain ``git pull``
or ``git pull --rebase``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hearth import wiring
from hearth.domain import entries, layout
from hearth.hooks.install import merge_driver_config
from tests.conftest import FakeClock, git
from tests.e2e.run import hearth
from tests.e2e.test_entry_sync import Machine, make_machines, run_git


@pytest.fixture
def ab(tmp_path: Path, clock: FakeClock) -> list[Machine]:
    return make_machines(tmp_path, clock, 2)


def seed(a: Machine, b: Machine, *texts: str, path: str = "MEMORY.md") -> None:
    """Entries both machines hold (added on A, synced to B)."""
    for text in texts:
        a.app.entry_add(path, text, "agent")
    a.sync()
    b.sync()


def edit(m: Machine, change: Callable[[str], str], path: str = "MEMORY.md") -> None:
    """A person's editor edit, committed with plain git."""
    target = m.root / path
    target.write_bytes(change(target.read_bytes().decode()).encode())
    git(m.root, "commit", "-qam", f"edit {path} by hand")


def both_ways(a: Machine, b: Machine) -> None:
    a.sync()
    b.sync()
    a.sync()


def records(m: Machine) -> list[Path]:
    folder = m.root / layout.ENTRY_CONFLICTS_DIR
    return sorted(folder.rglob("*.md")) if folder.is_dir() else []


def untracked(m: Machine) -> str:
    return git(m.root, "status", "--porcelain", "--untracked-files=all")


def test_case1_a_removal_beside_an_unrelated_addition_is_no_edit(ab: list[Machine]) -> None:
    """Case 1: A removes "Sam likes tea" and adds "Sam owns a cat"; B replaces it
    with "Sam likes green tea": both new entries are in the file, the old one gone."""
    a, b = ab
    seed(a, b, "Uses vim", "Sam likes tea", "Works from home")
    edit(a, lambda t: t.replace("- Sam likes tea\n", "- Sam owns a cat\n"))
    b.app.entry_replace("MEMORY.md", "Sam likes tea", "Sam likes green tea", "agent")
    both_ways(a, b)
    for m in ab:
        held = m.entries()
        assert "Sam owns a cat" in held and "Sam likes green tea" in held
        assert "Sam likes tea" not in held
    # Removed on A, changed on B: that conflict names the change, never the addition.
    (found,) = b.app.entry_conflicts()
    assert (found.kept, found.other) == ("Sam likes green tea", None)
    b.app.entry_settle(found.id, "other", "person")
    assert b.entries() == ["Uses vim", "Sam owns a cat", "Works from home"]


def test_case1_a_plain_removal_beside_one_addition_is_no_conflict(ab: list[Machine]) -> None:
    """Case 1 (one side adding): A replaces "Uses vim" by "Uses zsh" in place, B
    removes "Uses vim": no false conflict whose settling could delete "Uses zsh"."""
    a, b = ab
    seed(a, b, "Likes walks", "Uses vim", "Works from home")
    edit(a, lambda t: t.replace("- Uses vim\n", "- Uses zsh\n"))
    b.app.entry_remove("MEMORY.md", "Uses vim", "agent")
    both_ways(a, b)
    for m in ab:
        assert m.entries() == ["Likes walks", "Uses zsh", "Works from home"]
        assert records(m) == []


def test_case2_an_entrys_sub_bullet_travels_with_it(ab: list[Machine]) -> None:
    """Case 2: A adds "Project Beta" with a sub-bullet another entry's sub-bullet
    already holds; B adds an unrelated entry: the sub-bullet stays."""
    a, b = ab
    seed(a, b, "Likes walks")
    edit(a, lambda t: t + "- Project Alpha\n  - status: done\n")
    both_ways(a, b)
    edit(a, lambda t: t + "- Project Beta\n  - status: done\n")
    b.app.entry_add("MEMORY.md", "Owns a bike", "agent")
    both_ways(a, b)
    for m in ab:
        text = (m.root / "MEMORY.md").read_text()
        assert "- Project Alpha\n  - status: done\n" in text
        assert "- Project Beta\n  - status: done\n" in text
        assert "Owns a bike" in m.entries()


def test_case3_pull_rebase_keeps_both_versions_in_a_commit(ab: list[Machine]) -> None:
    """Case 3: A replaces an entry with Lisbon and pushes; B replaces it with Braga
    and runs ``git pull --rebase``: Braga is in a commit on the remote, beside Lisbon."""
    a, b = ab
    seed(a, b, "Sam lives in Porto")
    a.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Lisbon", "agent")
    a.sync()
    b.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Braga", "agent")
    pulled = run_git(b.root, "pull", "-q", "--rebase")
    assert pulled.returncode == 0, pulled.stderr
    assert run_git(b.root, "push", "-q").returncode == 0
    remote = git(b.root, "show", "origin/main:MEMORY.md")
    held = [e.text for e in entries.list_entries(remote)]
    assert "Sam lives in Braga" in held and "Sam lives in Lisbon" in held
    assert "Sam lives in Porto" not in held and untracked(b) == ""


def _title(text: str, title: str) -> str:
    return title + text[text.index("\n") :]


def test_case4_a_frame_conflict_under_git_pull_shows_markers(ab: list[Machine]) -> None:
    """Case 4: both machines edit the title line and add an entry; ``git pull``
    stops with git's markers around both titles, both entries in the file, and
    neither ``hearth check`` nor the pre-commit hook lets the markers through."""
    a, b = ab
    edit(a, lambda t: _title(t, "# Memory of the laptop"))
    a.app.entry_add("MEMORY.md", "Laptop fact", "agent")
    a.sync()
    edit(b, lambda t: _title(t, "# Memory of the desktop"))
    b.app.entry_add("MEMORY.md", "Desktop fact", "agent")
    pulled = run_git(b.root, "pull", "--no-rebase", "--no-edit")
    assert pulled.returncode != 0 and "CONFLICT" in pulled.stdout
    text = (b.root / "MEMORY.md").read_text()
    assert "<<<<<<< ours\n# Memory of the desktop\n=======\n# Memory of the laptop\n>>>>>>>" in text
    assert "- Laptop fact" in text and "- Desktop fact" in text
    git(b.root, "add", "MEMORY.md")
    committed = run_git(b.root, "commit", "--no-edit")
    assert committed.returncode != 0 and "conflict-markers" in committed.stderr
    checked = hearth("--home", str(b.root), "check")
    assert checked.returncode == 1 and "conflict-markers" in checked.stdout + checked.stderr


def test_case4_a_driver_whose_interpreter_is_gone_leaves_markers(ab: list[Machine]) -> None:
    """Case 4 (no interpreter): the registered driver command falls back to
    git's line merge, so the conflict shows as markers, not as ours alone."""
    a, b = ab
    for key, value in merge_driver_config("/nonexistent/python3").items():
        git(b.root, "config", key, value)
    edit(a, lambda t: _title(t, "# Memory of the laptop") + "- Laptop fact\n")
    a.sync()
    edit(b, lambda t: _title(t, "# Memory of the desktop") + "- Desktop fact\n")
    pulled = run_git(b.root, "pull", "--no-rebase", "--no-edit")
    assert pulled.returncode != 0
    text = (b.root / "MEMORY.md").read_text()
    assert "<<<<<<< " in text and "# Memory of the laptop" in text and "Laptop fact" in text


def test_case5_a_wrapped_entry_or_new_subheading_blocks_nothing(ab: list[Machine]) -> None:
    """Case 5: A wraps one entry onto a continuation line and adds a subheading
    and a blank line; B removes one later entry and replaces another: neither
    comes back, and nothing is a conflict."""
    a, b = ab
    long = "Sam prefers short answers in the morning and long ones at night"
    seed(a, b, long, "Uses vim daily", "Lives in Porto", "Has a cat")
    wrapped = "- Sam prefers short answers in the morning\n  and long ones at night\n"
    edit(a, lambda t: t.replace(f"- {long}\n", wrapped + "\n### Places\n"))
    b.app.entry_remove("MEMORY.md", "Uses vim daily", "agent")
    b.app.entry_replace("MEMORY.md", "Lives in Porto", "Lives in Braga", "agent")
    both_ways(a, b)
    for m in ab:
        assert m.entries() == [long, "Lives in Braga", "Has a cat"]
        text = (m.root / "MEMORY.md").read_text()
        assert wrapped in text and "### Places" in text and records(m) == []


def test_case6_a_move_does_not_bring_back_a_removal(ab: list[Machine]) -> None:
    """Case 6: A removes "Sam lives in Porto"; B moves it to the end of the list."""
    a, b = ab
    seed(a, b, "Sam lives in Porto", "Uses vim", "Has a cat")
    a.app.entry_remove("MEMORY.md", "Sam lives in Porto", "agent")
    edit(b, lambda t: t.replace("- Sam lives in Porto\n", "") + "- Sam lives in Porto\n")
    both_ways(a, b)
    for m in ab:
        assert m.entries() == ["Uses vim", "Has a cat"] and records(m) == []


def _deleted_and_changed(tmp: Path, clock: FakeClock, deleter_merges: bool) -> tuple[bool, str]:
    tmp.mkdir()
    a, b = make_machines(tmp, clock, 2)
    seed(a, b, "Bob likes chess", path="users/bob.md")
    git(a.root, "rm", "-q", "users/bob.md")
    git(a.root, "commit", "-qm", "forget Bob")
    b.app.entry_add("users/bob.md", "Bob moved to Lyon", "agent")
    first, second = (b, a) if deleter_merges else (a, b)
    first.sync()
    merged = second.sync()
    first.sync()
    copies = [c for c in merged.conflicts if c.startswith(layout.CONFLICTS_DIR)]
    assert len(copies) == 1, merged.conflicts
    held = {((m.root / "users/bob.md").exists(), (m.root / copies[0]).read_text()) for m in (a, b)}
    assert len(held) == 1  # both machines hold the same
    first.app.reconcile()
    assert copies[0] in (first.root / layout.ACTIVE_PATH).read_text()
    return held.pop()


def test_case7_deleted_against_changed_is_reported_whoever_merges(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Case 7: A deletes users/bob.md, B adds an entry to it: in either merge
    order the file stays deleted and B's version is a reported copy."""
    one = _deleted_and_changed(tmp_path / "one", clock, deleter_merges=True)
    other = _deleted_and_changed(tmp_path / "other", clock, deleter_merges=False)
    assert one[0] is False and "Bob moved to Lyon" in one[1]
    assert [one[0], entries.list_entries(one[1])] == [other[0], entries.list_entries(other[1])]


def test_case8_a_move_and_an_edit_give_the_edit_once(ab: list[Machine]) -> None:
    """Case 8: A replaces Porto with Braga; B moves the Porto entry."""
    a, b = ab
    seed(a, b, "Sam lives in Porto", "Uses vim", "Has a cat")
    a.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Braga", "agent")
    edit(b, lambda t: t.replace("- Sam lives in Porto\n", "") + "- Sam lives in Porto\n")
    both_ways(a, b)
    for m in ab:
        assert sorted(m.entries()) == ["Has a cat", "Sam lives in Braga", "Uses vim"]
        assert records(m) == []


def test_case9_crlf_on_one_side_keeps_the_other_sides_entry_in_place(ab: list[Machine]) -> None:
    """Case 9: A converts MEMORY.md to CRLF, B adds an entry: the entry is listed,
    the title stays first, every line ends CRLF, and hearth's own add and
    replace keep CRLF."""
    a, b = ab
    seed(a, b, "Uses vim")
    edit(a, lambda t: t.replace("\n", "\r\n"))
    b.app.entry_add("MEMORY.md", "Has a cat", "agent")
    both_ways(a, b)
    a.app.entry_add("MEMORY.md", "Likes tea", "agent")
    a.app.entry_replace("MEMORY.md", "Uses vim", "Uses vim and tmux", "agent")
    both_ways(a, b)
    for m in ab:
        data = (m.root / "MEMORY.md").read_bytes()
        assert data.startswith(b"# MEMORY.md") and data.count(b"\n") == data.count(b"\r\n")
        assert m.entries() == ["Uses vim and tmux", "Has a cat", "Likes tea"]


def test_case10_the_first_add_and_a_preamble_edit_merge_cleanly(ab: list[Machine]) -> None:
    """Case 10: A's first ``memory add`` into the template's empty section, B's
    preamble edit: both land, with no whole-file copy."""
    a, b = ab
    a.app.entry_add("MEMORY.md", "Uses vim", "agent")
    edit(b, lambda t: t.replace("Durable things learned", "Lasting things learned"))
    both_ways(a, b)
    for m in ab:
        text = (m.root / "MEMORY.md").read_text()
        assert "Lasting things learned" in text and m.entries() == ["Uses vim"]
        assert not (m.root / layout.CONFLICTS_DIR).exists()


def test_case11_a_persons_re_indent_is_kept(ab: list[Machine]) -> None:
    """Case 11: A re-indents every entry; B adds one: the unchanged entries keep
    A's indentation."""
    a, b = ab
    seed(a, b, "Uses vim", "Has a cat")
    edit(a, lambda t: t.replace("- Uses vim\n- Has a cat\n", "  - Uses vim\n  - Has a cat\n"))
    b.app.entry_add("MEMORY.md", "Likes tea", "agent")
    both_ways(a, b)
    for m in ab:
        text = (m.root / "MEMORY.md").read_text()
        assert "  - Uses vim\n  - Has a cat\n" in text
        assert m.entries() == ["Uses vim", "Has a cat", "Likes tea"]


def _two_ways(a: Machine, b: Machine) -> None:
    seed(a, b, "Sam lives in Porto")
    a.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Lisbon", "agent")
    a.sync()
    b.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Braga", "agent")


def test_case12_a_plain_pull_leaves_nothing_untracked(ab: list[Machine]) -> None:
    """Case 12 (plain pull): an entry changed two ways leaves both versions in
    the file and nothing untracked, so the other machine sees both."""
    a, b = ab
    _two_ways(a, b)
    b.pull_and_push()
    assert untracked(b) == ""
    a.pull_and_push()
    for m in ab:
        assert sorted(m.entries()) == ["Sam lives in Braga", "Sam lives in Lisbon"]


def test_case12_an_aborted_pull_leaves_no_record_for_a_later_sync(ab: list[Machine]) -> None:
    """Case 12 (aborted pull): a pull that merged an entry changed two ways,
    stopped on another file's conflict and was aborted leaves nothing that a
    later, unrelated sync would commit."""
    a, b = ab
    _two_ways(a, b)
    edit(a, lambda t: t + "\nThe laptop's line.\n", path="SOUL.md")
    a.sync()
    edit(b, lambda t: t + "\nThe desktop's line.\n", path="SOUL.md")
    assert run_git(b.root, "pull", "--no-rebase", "--no-edit").returncode != 0
    git(b.root, "merge", "--abort")
    assert untracked(b) == ""


def test_case12_a_criss_cross_merge_completes(ab: list[Machine]) -> None:
    """Case 12 (criss-cross): two machines each merge the other's conflicting
    change, then merge again: git completes, both versions in the file."""
    a, b = ab
    _two_ways(a, b)
    git(b.root, "fetch", "-q")
    a_tip = git(b.root, "rev-parse", "origin/main").strip()
    b_tip = git(b.root, "rev-parse", "HEAD").strip()
    git(b.root, "merge", "-q", "--no-edit", a_tip)  # B merges A's
    git(b.root, "branch", "other", a_tip)
    git(b.root, "checkout", "-q", "other")
    edit(b, lambda t: t + "- Other side fact\n")
    git(b.root, "merge", "-q", "--no-edit", b_tip)  # A's line merges B's
    git(b.root, "checkout", "-q", "main")
    done = run_git(b.root, "merge", "--no-edit", "other")  # two merge bases
    assert done.returncode == 0, done.stdout + done.stderr
    held = b.entries()
    assert {"Sam lives in Braga", "Sam lives in Lisbon", "Other side fact"} <= set(held)
    assert untracked(b) == ""


def test_case12_settle_leaves_exactly_the_version_chosen(ab: list[Machine]) -> None:
    """Case 12 (true words): ``hearth sync`` names the conflict in a committed
    record; settling keeps exactly the chosen version."""
    a, b = ab
    _two_ways(a, b)
    result = b.sync()
    (record,) = [c for c in result.conflicts if c.startswith(layout.ENTRY_CONFLICTS_DIR)]
    assert git(b.root, "ls-files", record).strip() == record
    assert b.entries() == ["Sam lives in Braga", "Sam lives in Lisbon"]  # both, side by side
    (found,) = b.app.entry_conflicts()
    b.app.entry_settle(found.id, "other", "person")
    assert b.entries() == [found.other] and records(b) == []


def test_case12_the_same_histories_give_the_same_entries_whoever_merges(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Case 12 (symmetric): the same two histories merged on either machine give
    the same entries."""
    held = []
    for name, merger in (("x", 0), ("y", 1)):
        (tmp_path / name).mkdir()
        a, b = make_machines(tmp_path / name, clock, 2)
        seed(a, b, "Sam lives in Porto", "Uses vim", "Has a cat", "Likes tea")
        a.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Lisbon", "agent")
        a.app.entry_remove("MEMORY.md", "Has a cat", "agent")
        edit(a, lambda t: t.replace("- Uses vim\n", "") + "- Uses vim\n")
        b.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Braga", "agent")
        b.app.entry_add("MEMORY.md", "Owns a bike", "agent")
        edit(b, lambda t: t.replace("- Likes tea\n", "- Likes tea\n  and coffee\n"))
        first, second = (b, a) if merger == 0 else (a, b)
        first.sync()
        second.sync()
        held.append(sorted(second.entries()))
    assert held[0] == held[1]
    assert "Has a cat" not in held[0] and "Owns a bike" in held[0]


def test_check_refuses_a_committed_marker(tmp_path: Path, clock: FakeClock) -> None:
    """``hearth check`` names a file holding conflict markers."""
    root = tmp_path / "home"
    wiring.initialize(root, clock)
    memory = root / "MEMORY.md"
    memory.write_text(memory.read_text() + "<<<<<<< ours\n- a\n=======\n- b\n>>>>>>> theirs\n")
    git(root, "commit", "-qam", "markers", "--no-verify")
    checked = hearth("--home", str(root), "check")
    assert checked.returncode == 1 and "conflict-markers" in checked.stdout + checked.stderr


def test_a_cherry_pick_keeps_both_versions(ab: list[Machine]) -> None:
    """git's own verbs: a cherry-pick of an entry's replacement onto a branch
    that replaced it otherwise completes with both versions in the file."""
    a, b = ab
    _two_ways(a, b)
    git(b.root, "fetch", "-q")
    picked = run_git(b.root, "cherry-pick", "origin/main")
    assert picked.returncode == 0, picked.stdout + picked.stderr
    assert sorted(b.entries()) == ["Sam lives in Braga", "Sam lives in Lisbon"]
    assert untracked(b) == ""


def test_a_person_note_made_on_both_machines_merges_entry_by_entry(ab: list[Machine]) -> None:
    """Two machines each make users/ana.md: ``hearth sync`` keeps every entry of
    both in the file (and, their frames differing, the other machine's file as a copy)."""
    a, b = ab
    a.app.entry_add("users/ana.md", "Ana plays chess", "agent")
    a.sync()
    b.app.entry_add("users/ana.md", "Ana lives in Lyon", "agent")
    edit(b, lambda t: t.replace("\n", "\n\nAbout Ana.\n", 1), path="users/ana.md")
    b.sync()
    held = sorted(e.text for e in entries.list_entries((b.root / "users/ana.md").read_text()))
    assert held == ["Ana lives in Lyon", "Ana plays chess"]


def test_a_record_another_machines_sync_made_is_hearths_after_a_merge(
    ab: list[Machine],
) -> None:
    """A conflict record is acted on only when hearth's sync wrote it. B's sync
    makes the record; A, with a commit of its own, merges B's history (no fast
    forward): the merge that brings the record in did not make it, yet the
    record is B's sync's, so A lists it and can settle it (it was named forged)."""
    a, b = ab
    seed(a, b, "Sam likes tea", "Works from home")
    a.app.entry_replace("MEMORY.md", "Sam likes tea", "Sam likes green tea", "agent")
    b.app.entry_replace("MEMORY.md", "Sam likes tea", "Sam likes black tea", "agent")
    a.sync()  # pushed (only ahead)
    b.sync()  # diverged: B merges and commits the record
    assert len(b.app.entry_conflicts()) == 1
    a.app.entry_add("MEMORY.md", "Reads on Sundays", "agent")
    a.sync()  # diverged again: A merges B's history, record and all
    assert git(a.root, "rev-list", "--parents", "-n", "1", "HEAD").count(" ") == 2
    (found,) = a.app.entry_conflicts()
    assert {found.kept, found.other} == {"Sam likes green tea", "Sam likes black tea"}
    a.app.entry_settle(found.id, "file", "person")
    assert "Reads on Sundays" in a.entries() and len(a.app.entry_conflicts()) == 0


def test_case12_a_plain_pull_names_the_entry_conflict_until_it_is_settled(
    ab: list[Machine],
) -> None:
    """Case (6) of the data-trust leftovers: a plain ``git pull`` (the real git
    CLI, a real bare remote) that meets an entry changed two ways leaves both
    versions in the file and nothing in the work tree but the merge, tells the
    person on git's output which entry conflicts (what it was, both versions,
    how to settle it), and ``hearth status``, ``hearth memory conflicts`` and
    ACTIVE.md keep naming it until it is settled; settling leaves the chosen
    version."""
    a, b = ab
    _two_ways(a, b)
    pulled = run_git(b.root, "pull", "--no-rebase", "--no-edit")
    assert pulled.returncode == 0, pulled.stderr
    assert sorted(b.entries()) == ["Sam lives in Braga", "Sam lives in Lisbon"]
    assert untracked(b) == ""
    (found,) = b.app.entry_conflicts()
    assert (found.path, found.base) == ("MEMORY.md", "Sam lives in Porto")
    assert {found.kept, found.other} == {"Sam lives in Braga", "Sam lives in Lisbon"}
    said = (
        f"hearth: MEMORY.md: entry conflict {found.id}: «Sam lives in Porto» was changed "
        f"two ways; both versions are in the file: «{found.kept}» and «{found.other}». "
        f"Settle it with 'hearth memory settle {found.id} --keep file'"
    )
    assert said in pulled.stderr.replace("\n", " ")
    status = hearth("--home", str(b.root), "status")
    assert f"entry conflict {found.id} in MEMORY.md, left by git pull" in status.stdout
    listed = hearth("--home", str(b.root), "memory", "conflicts")
    assert found.id in listed.stdout and "Sam lives in Lisbon" in listed.stdout
    b.app.reconcile()  # what the post-merge hook starts: ACTIVE.md names it for the assistant
    active = (b.root / layout.ACTIVE_PATH).read_text()
    assert f"entry conflict {found.id} in MEMORY.md: settle with" in active
    b.app.entry_settle(found.id, "other", "person")
    assert b.entries() == [found.other]
    assert b.app.entry_conflicts() == []
    assert "left by git pull" not in hearth("--home", str(b.root), "status").stdout
    active = (b.root / layout.ACTIVE_PATH).read_text()
    assert f"entry conflict {found.id} in MEMORY.md" not in active
