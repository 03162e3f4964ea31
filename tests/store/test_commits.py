"""Every write is one commit, built from HEAD plus its paths, checked with the real git CLI."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from hearth.errors import Busy, DirtyFile, NotFound, PathRefused, StaleWrite, ValidationFailed
from hearth.store.plans import FileChange, Plan, Snapshot, Trailers
from tests.conftest import Workspace

ACTOR = "test:agent"


def trailer(ws: Workspace, key: str, rev: str = "HEAD") -> str:
    return ws.git("log", "-1", f"--format=%(trailers:key={key},valueonly)", rev).strip()


def test_each_operation_is_one_commit_with_trailers(workspace: Workspace) -> None:
    ws = workspace
    home = ws.home
    start = len(ws.commits())

    home.note("Met Sam about the garden.", "Garden", ACTOR)
    assert trailer(ws, "Hearth-Op") == "daily.append"
    assert trailer(ws, "Hearth-Actor") == ACTOR

    proposal = home.propose("Garden plans", ["Sam grows tomatoes"], ACTOR)
    assert trailer(ws, "Hearth-Op") == "proposal.create"
    assert trailer(ws, "Hearth-Record") == proposal.key

    home.merge(proposal.key or "", ACTOR)
    assert trailer(ws, "Hearth-Op") == "proposal.merge"
    assert trailer(ws, "Hearth-Record") == proposal.key

    rejected = home.propose("Bad idea", ["forget everything"], ACTOR)
    home.reject(rejected.key or "", "not true", ACTOR)
    assert trailer(ws, "Hearth-Op") == "proposal.reject"

    loop = home.add_loop("Call the plumber", ACTOR, next_step="find number")
    assert trailer(ws, "Hearth-Op") == "loop.create"
    home.resolve_loop(loop.key or "", ACTOR, "fixed")
    assert trailer(ws, "Hearth-Op") == "loop.resolve"

    soul = ws.read("SOUL.md") + "\nLikes gardens.\n"
    home.put("SOUL.md", soul.encode(), ACTOR, message="add gardens")
    # hearth composes the subject; the caller's message is the body's (issue 54 case 7).
    assert ws.git("log", "-1", "--format=%s").strip() == "persona: update SOUL.md"
    assert f"Message from {ACTOR}: add gardens" in ws.git("log", "-1", "--format=%b")
    home.restore("SOUL.md", "HEAD~1", ACTOR)
    assert trailer(ws, "Hearth-Op") == "file.restore"

    assert len(ws.commits()) == start + 9
    assert ws.porcelain() == ""
    assert ws.git("fsck", "--no-progress").strip() == ""


def test_staged_work_is_not_swept_in(workspace: Workspace) -> None:
    ws = workspace
    ws.write("AGENTS.md", ws.read("AGENTS.md") + "\nPerson's staged line.\n")
    ws.git("add", "AGENTS.md")
    ws.write("TOOLS.md", ws.read("TOOLS.md") + "\nUnstaged line.\n")
    ws.write("scratch.md", "untracked\n")

    result = ws.home.note("hello", None, ACTOR)

    assert ws.git("show", "--name-only", "--format=").split() == [result.path]
    assert ws.git("diff", "--cached", "--name-only").split() == ["AGENTS.md"]
    assert ws.git("diff", "--name-only").split() == ["TOOLS.md"]
    assert "Person's staged line." in ws.git("diff", "--cached")
    assert "?? scratch.md" in ws.porcelain()


def test_uncommitted_edit_is_neither_overwritten_nor_committed(workspace: Workspace) -> None:
    ws = workspace
    home = ws.home
    key = home.propose("Tea", ["green tea"], ACTOR).key or ""
    edited = ws.read("MEMORY.md") + "\nmy own unsaved thought\n"
    ws.write("MEMORY.md", edited)
    before = ws.commits()

    with pytest.raises(DirtyFile) as refused:
        home.merge(key, ACTOR)
    assert "MEMORY.md" in refused.value.message
    assert ws.read("MEMORY.md") == edited
    assert ws.commits() == before

    ws.write("SOUL.md", ws.read("SOUL.md") + "\nedit\n")
    with pytest.raises(DirtyFile):
        home.put("SOUL.md", (ws.read("SOUL.md") + "more").encode(), ACTOR)
    assert ws.commits() == before
    assert ws.git("diff", "--name-only").split() == ["MEMORY.md", "SOUL.md"]


def test_daily_append_never_rewrites_a_note_with_uncommitted_edits(
    workspace: Workspace,
) -> None:
    ws = workspace
    first = ws.home.note("first entry", None, ACTOR)
    edited = ws.read(first.path) + "\nperson typing here\n"
    ws.write(first.path, edited)
    before = ws.commits()

    with pytest.raises(DirtyFile) as refused:
        ws.home.note("second entry", None, ACTOR)

    assert refused.value.paths == (first.path,)
    assert ws.read(first.path) == edited
    assert ws.commits() == before
    ws.git("add", first.path)  # staged, the work tree the same: still the person's
    with pytest.raises(DirtyFile):
        ws.home.note("second entry", None, ACTOR)
    assert ws.read(first.path) == edited
    ws.git("commit", "-qm", "my edit")
    ws.home.note("second entry", None, ACTOR)  # committed: appended as always
    assert ws.read(first.path).endswith("second entry\n")
    assert "person typing here" in ws.read(first.path)


def test_daily_append_extends_a_staged_copy_the_work_tree_does_not_hold(
    workspace: Workspace,
) -> None:
    ws = workspace
    first = ws.home.note("first entry", None, ACTOR)
    clean = ws.read(first.path)
    ws.write(first.path, clean + "\nstaged thought\n")
    ws.git("add", first.path)
    ws.write(first.path, clean)  # the work tree put back; only the index differs

    ws.home.note("second entry", None, ACTOR)

    staged = ws.git("show", f":{first.path}")
    assert "staged thought" in staged
    assert "second entry" in staged
    assert "staged thought" not in ws.git("show", f"HEAD:{first.path}")
    assert "second entry" in ws.read(first.path)


def test_merge_touches_target_and_archive_in_one_commit(workspace: Workspace) -> None:
    ws = workspace
    key = ws.home.propose("Coffee", ["black, no sugar", "after 10am only"], ACTOR).key or ""
    ws.home.merge(key, ACTOR)

    status = ws.git("show", "--no-renames", "--name-status", "--format=").splitlines()
    assert "M\tMEMORY.md" in status
    assert f"D\tcontinuity/proposals/memory/{key}.md" in status
    assert any(
        line.startswith(f"A\tcontinuity/proposals/memory/archive/merged/{key}--") for line in status
    )
    assert len(status) == 3
    assert ws.porcelain() == ""
    assert "- black, no sugar\n- after 10am only\n" in ws.read("MEMORY.md")

    again = ws.home.propose("Coffee", ["black, no sugar", "decaf after 4pm"], ACTOR).key or ""
    ws.home.merge(again, ACTOR)
    memory = ws.read("MEMORY.md")
    assert memory.count("- black, no sugar") == 1
    assert "- decaf after 4pm" in memory
    archives = list((ws.root / "continuity/proposals/memory/archive/merged").iterdir())
    assert len(archives) == 2


def test_merge_refused_when_target_would_exceed_its_bound(workspace: Workspace) -> None:
    ws = workspace
    settings = ws.read("hearth.toml").replace("memory_md = 20000", "memory_md = 600")
    ws.home.put("hearth.toml", settings.encode(), ACTOR)
    home = ws.reopen()
    key = home.propose("Long", ["x" * 400], ACTOR).key or ""
    before = ws.commits()
    with pytest.raises(ValidationFailed) as refused:
        home.merge(key, ACTOR)
    assert refused.value.failures[0].rule == "size-bound"
    assert ws.commits() == before
    assert (ws.root / f"continuity/proposals/memory/{key}.md").exists()


def test_same_title_twice_is_one_file(workspace: Workspace) -> None:
    ws = workspace
    a = ws.home.propose("Likes Tea", ["green"], ACTOR)
    b = ws.home.propose("  likes   tea ", ["oolong"], ACTOR)
    assert a.key == b.key
    assert a.path == b.path
    files = list((ws.root / "continuity/proposals/memory").glob("*.md"))
    assert len(files) == 1
    text = files[0].read_text()
    assert "- green" in text
    assert "- oolong" in text
    loop_a = ws.home.add_loop("Renew passport", ACTOR)
    loop_b = ws.home.add_loop("renew passport", ACTOR, next_step="book photo")
    assert loop_a.path == loop_b.path
    assert len(list((ws.root / "continuity/open-loops").glob("*.md"))) == 1


def test_a_branch_moved_by_a_person_mid_write_is_not_lost(workspace: Workspace) -> None:
    ws = workspace
    calls = 0

    def operation(snap: Snapshot) -> Plan:
        nonlocal calls
        calls += 1
        if calls == 1:  # a person commits with plain git while hearth is planning
            ws.write("TOOLS.md", ws.read("TOOLS.md") + "\nperson's commit\n")
            ws.git("commit", "-qam", "person: tools")
        return Plan("files: add x", (FileChange("notes/x.md", b"x\n"),))

    result = ws.home.store.commit(operation, Trailers("test", ACTOR))

    assert calls == 2
    assert ws.git("log", "-1", "--format=%s", "HEAD~1").strip() == "person: tools"
    assert ws.git("rev-parse", "HEAD").strip() == result.commit
    assert "person's commit" in ws.git("show", "HEAD:TOOLS.md")
    assert ws.porcelain() == ""


def test_waits_for_gits_index_lock(workspace: Workspace) -> None:
    ws = workspace
    lock = ws.root / ".git/index.lock"
    lock.write_text("")
    threading.Timer(0.3, lock.unlink).start()
    started = time.monotonic()
    ws.home.note("after the lock", None, ACTOR)
    assert time.monotonic() - started >= 0.25
    assert ws.porcelain() == ""


def test_gives_up_cleanly_on_a_lock_that_stays(workspace: Workspace) -> None:
    ws = workspace
    ws.home.store.lock_timeout = 0.3
    (ws.root / ".git/index.lock").write_text("")
    before = ws.commits()
    with pytest.raises(Busy):
        ws.home.note("blocked", None, ACTOR)
    assert ws.commits() == before
    assert not (ws.root / "memory").exists()


def test_retries_while_the_branch_ref_is_locked(workspace: Workspace) -> None:
    ws = workspace
    ref_lock = ws.root / ".git/refs/heads/main.lock"
    ref_lock.write_text("")
    threading.Timer(0.3, ref_lock.unlink).start()
    result = ws.home.note("after the ref lock", None, ACTOR)
    assert ws.git("rev-parse", "HEAD").strip() == result.commit


def test_expected_oid_guards_against_lost_updates(workspace: Workspace) -> None:
    ws = workspace
    oid = ws.git("rev-parse", "HEAD:USER.md").strip()
    ws.home.put("USER.md", b"# User\n\nfirst\n", ACTOR, expected_oid=oid)
    with pytest.raises(StaleWrite):
        ws.home.put("USER.md", b"# User\n\nsecond\n", ACTOR, expected_oid=oid)
    assert ws.read("USER.md") == "# User\n\nfirst\n"


def test_restore_is_a_new_commit_keeping_history(workspace: Workspace) -> None:
    ws = workspace
    original = ws.read("SOUL.md")
    ws.home.put("SOUL.md", (original + "\nA new value.\n").encode(), ACTOR)
    changed_at = ws.git("rev-parse", "HEAD").strip()
    ws.home.restore("SOUL.md", "HEAD~1", ACTOR)
    assert ws.read("SOUL.md") == original
    assert ws.git("rev-parse", "HEAD~1").strip() == changed_at
    with pytest.raises(NotFound):
        ws.home.restore("nope.md", "HEAD", ACTOR)
    with pytest.raises(NotFound):
        ws.home.restore("SOUL.md", "no-such-rev", ACTOR)


def test_identical_put_makes_no_commit(workspace: Workspace) -> None:
    ws = workspace
    before = ws.commits()
    result = ws.home.put("SOUL.md", ws.read("SOUL.md").encode(), ACTOR)
    assert not result.changed
    assert ws.commits() == before


def test_a_file_already_holding_the_committed_bytes_is_left_in_place(
    workspace: Workspace,
) -> None:
    """Committing what the work tree already holds (init adopting a folder, a put
    of what a person saved) does not rewrite the file: same inode, same bytes."""
    ws = workspace
    text = "# Herons\n\nThe heron stood in the shallows.\n"
    ws.write("memory/topics/herons.md", text)
    before = (ws.root / "memory/topics/herons.md").stat()
    result = ws.home.put("memory/topics/herons.md", text.encode(), ACTOR)
    assert result.changed
    after = (ws.root / "memory/topics/herons.md").stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert ws.read("memory/topics/herons.md") == text
    assert ws.git("show", "HEAD:memory/topics/herons.md") == text
    assert ws.porcelain() == ""
    # Other bytes are still written (a new file, by rename).
    ws.home.put("memory/topics/herons.md", (text + "Again.\n").encode(), ACTOR)
    assert (ws.root / "memory/topics/herons.md").stat().st_ino != before.st_ino
    assert ws.porcelain() == ""


def test_symlink_inside_home_is_refused(workspace: Workspace, tmp_path: Path) -> None:
    ws = workspace
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws.root / "escape").symlink_to(outside)
    (ws.root / "link.md").symlink_to(outside / "target.md")
    before = ws.commits()
    for path in ("escape/x.md", "link.md"):
        with pytest.raises(PathRefused):
            ws.home.put(path, b"# x\n", ACTOR)
    assert list(outside.iterdir()) == []
    assert ws.commits() == before


def test_secret_is_refused_before_history(workspace: Workspace) -> None:
    ws = workspace
    before = ws.commits()
    with pytest.raises(ValidationFailed) as refused:
        ws.home.note("my key is AKIAIOSFODNN7EXAMPLE", None, ACTOR)
    assert refused.value.failures[0].rule == "secret-text"
    assert ws.commits() == before
    assert ws.git("log", "--all", "-p").count("AKIAIOSFODNN7EXAMPLE") == 0


def test_concurrent_writers_lose_nothing(workspace: Workspace) -> None:
    from hearth import wiring

    ws = workspace
    before = len(ws.commits())
    homes = [wiring.open_writes(ws.root, ws.home.clock) for _ in range(4)]
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(5):
                homes[n].note(f"writer {n} entry {i}", None, f"writer-{n}")
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len(ws.commits()) == before + 20
    note = next((ws.root / "memory").iterdir()).read_text()
    for n in range(4):
        for i in range(5):
            assert f"writer {n} entry {i}" in note
    assert ws.porcelain() == ""
    assert ws.git("fsck", "--no-progress").strip() == ""


def test_staging_between_two_hearth_writes_survives(workspace: Workspace) -> None:
    ws = workspace
    ws.home.note("one", None, ACTOR)
    ws.write("AGENTS.md", ws.read("AGENTS.md") + "\nstaged between writes\n")
    ws.git("add", "AGENTS.md")
    ws.home.note("two", None, ACTOR)
    assert ws.git("diff", "--cached", "--name-only").split() == ["AGENTS.md"]
    assert ws.git("diff", "--name-only").split() == []
    assert not (ws.root / ".git/index.lock").exists()


def test_changed_paths_agrees_with_libgit2s_diff(workspace: Workspace) -> None:
    import itertools
    import random

    import pygit2

    from hearth.store.tree_diff import changed_paths

    ws = workspace
    rng = random.Random(3)
    names = [f"{d}/f{n}.md" for d in ("a", "a/b", "c/d/e", "memory") for n in range(4)]
    for step in range(12):
        for path in rng.sample(names, 3):
            target = ws.root / path
            if target.exists() and rng.random() < 0.3:
                target.unlink()
            else:
                ws.write(path, f"{path} {step} {rng.random()}\n")
        ws.git("add", "-A")
        ws.git("commit", "-qm", f"step {step}", "--allow-empty")
    repo = ws.home.store.repo
    commits = ws.commits()[:8]
    for old, new in itertools.combinations(commits, 2):
        a = repo.revparse_single(old).peel(pygit2.Tree)
        b = repo.revparse_single(new).peel(pygit2.Tree)
        expected = sorted(
            {p for d in a.diff_to_tree(b).deltas for p in (d.old_file.path, d.new_file.path)}
        )
        assert sorted(changed_paths(repo, old, new, 1000) or []) == expected
    assert changed_paths(repo, commits[0], commits[-1], 1) is None
    assert changed_paths(repo, "nope", commits[0], 10) is None


def test_a_folder_whose_last_file_goes_leaves_the_tree_and_others_stay(
    workspace: Workspace,
) -> None:
    ws = workspace
    store = ws.home.store

    def add(snap: Snapshot) -> Plan:
        return Plan(
            "files: add",
            (FileChange("notes/deep/a.md", b"a\n"), FileChange("notes/deep/b.md", b"b\n")),
        )

    def remove_one(snap: Snapshot) -> Plan:
        return Plan("files: remove a", (FileChange("notes/deep/a.md", None),))

    def remove_last(snap: Snapshot) -> Plan:
        return Plan("files: remove b", (FileChange("notes/deep/b.md", None),))

    store.commit(add, Trailers("test", ACTOR))
    store.commit(remove_one, Trailers("test", ACTOR))
    assert ws.git("ls-tree", "-r", "--name-only", "HEAD", "notes").split() == ["notes/deep/b.md"]
    store.commit(remove_last, Trailers("test", ACTOR))
    assert ws.git("ls-tree", "HEAD", "notes") == ""  # no empty tree left behind
    assert "SOUL.md" in ws.git("ls-tree", "--name-only", "HEAD").split()
    assert ws.git("fsck", "--strict", "--no-progress", "--no-dangling") == ""
    assert ws.porcelain() == ""


@pytest.mark.parametrize("how", ["core.autocrlf", ".gitattributes"])
def test_a_file_git_checked_out_with_crlf_is_not_an_uncommitted_edit(
    workspace: Workspace, how: str
) -> None:
    """git writes LF blobs out with CRLF line endings when a person's config says
    so (``core.autocrlf=true``, as on a machine set up for Windows) or a committed
    ``.gitattributes`` does (``*.md text eol=crlf``, which a synced commit can
    bring): ``git status`` is clean, yet every write to such a file was refused
    as "uncommitted edits" that no commit or restore could clear. hearth now
    judges the work tree as git does, through its clean filters; a real edit of
    such a file is still refused."""
    ws = workspace
    if how == "core.autocrlf":
        ws.git("config", "core.autocrlf", "true")
    else:
        ws.write(".gitattributes", ws.read(".gitattributes") + "*.md text eol=crlf\n")
        ws.git("commit", "-qm", "attributes", "--no-verify", ".gitattributes")
    for path in ("USER.md", "MEMORY.md"):
        (ws.root / path).unlink()
    ws.git("checkout", "--", "USER.md", "MEMORY.md")
    assert b"\r\n" in (ws.root / "USER.md").read_bytes()
    assert ws.porcelain() == ""

    view = ws.app.get_file("MEMORY.md")
    assert not view.dirty and view.oid == ws.git("rev-parse", "HEAD:MEMORY.md").strip()
    ws.home.put("MEMORY.md", view.content.replace("\r\n", "\n").encode(), ACTOR, view.oid)
    ws.home.entry_add("USER.md", "Sam takes tea without milk", ACTOR)
    assert "Sam takes tea without milk" in ws.git("show", "HEAD:USER.md")
    assert ws.porcelain() == ""

    edited = (ws.root / "MEMORY.md").read_bytes() + b"- my own unsaved thought\r\n"
    (ws.root / "MEMORY.md").write_bytes(edited)
    before = ws.commits()
    with pytest.raises(DirtyFile):
        ws.home.entry_add("MEMORY.md", "Sam likes walnuts", ACTOR)
    assert (ws.root / "MEMORY.md").read_bytes() == edited
    assert ws.commits() == before
