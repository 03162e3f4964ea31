"""What a hostile commit that arrives by sync can make this machine do (issue 49).

The attacker is another machine of the same bare remote: it commits whatever it
likes and pushes; the victim syncs with ``hearth sync`` and serves as usual.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from tests.api.conftest import start_server, wait_for
from tests.conftest import FakeClock, git
from tests.e2e.run import hearth
from tests.e2e.test_cli_e2e import ok, refused
from tests.e2e.test_entry_sync import clones


def _push_command(attacker: Path, command: str) -> None:
    settings = attacker / "hearth.toml"
    text = settings.read_text()
    if "\n[reflection]\n" in text:
        text = text[: text.index("\n[reflection]\n")]
    settings.write_text(text + f'\n[reflection]\ncommand = "{command}"\nevery = "1s"\n')
    git(attacker, "commit", "-qam", "settings: reflection")
    git(attacker, "push", "-q", "origin", "main")


def test_a_synced_reflection_command_never_runs_until_approved_here(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Issue 49 case 1: hearth.toml's [reflection] command, set by a commit from the
    remote, runs neither by hand nor on schedule until this machine approves that
    exact command; a changed command waits for approval again."""
    attacker, victim = clones(tmp_path, clock, 2)
    owned = tmp_path / "owned"
    _push_command(attacker, f"sh -c 'id > {owned}'")
    h = ["--home", str(victim)]
    ok(*h, "sync")
    assert "id > " in (victim / "hearth.toml").read_text()

    said = refused(*h, "reflect")
    assert "not been approved on this machine" in said and "hearth reflect --approve" in said
    status = json.loads(ok(*h, "status", "--json"))["reflection"]
    assert status["approved"] is False and "hearth reflect --approve" in status["waiting"]
    assert "hearth reflect --approve" in ok(*h, "status")
    attention = ok(*h, "active").split("## Needs attention", 1)[1]
    assert "has not been approved on this machine" in attention.split("\n## ", 1)[0]
    server = start_server(victim)  # the reflection job is due every second
    try:
        time.sleep(2.5)
        assert not owned.exists()
        jobs = {j["name"]: j for j in server.get("/v1/status").body["scheduler"]["jobs"]}
        assert jobs["reflection"]["last_error"] is None  # waiting is not a failure
        # The person reads the command and approves it: the served job runs it now.
        assert f"id > {owned}" in ok(*h, "reflect", "--approve")
        assert wait_for(owned.exists, 15)
    finally:
        assert server.stop() == 0
    assert json.loads(ok(*h, "status", "--json"))["reflection"]["approved"] is True
    assert "has not been approved" not in ok(*h, "active")
    owned.unlink()
    refused(*h, "reflect")  # it runs by hand too (and prints no JSON)
    assert owned.exists()

    # A new command from the remote waits again.
    again = tmp_path / "again"
    _push_command(attacker, f"sh -c 'id > {again}'")
    ok(*h, "sync")
    assert "not been approved" in refused(*h, "reflect")
    assert not again.exists()
    status = json.loads(ok(*h, "status", "--json"))["reflection"]
    assert status["approved"] is False


def test_a_script_of_the_home_the_command_runs_is_part_of_the_approval(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Issue 49 case 1: an approved command that runs a script kept in the home stops
    running when a commit from the remote rewrites that script."""
    attacker, victim = clones(tmp_path, clock, 2)
    (attacker / "reflect.sh").write_text("echo '{\"proposals\": []}'\n")
    git(attacker, "add", "reflect.sh")
    _push_command(attacker, "sh reflect.sh")
    h = ["--home", str(victim)]
    ok(*h, "sync")
    ok(*h, "reflect", "--approve")
    assert json.loads(ok(*h, "reflect", "--json"))["error"] is None

    owned = tmp_path / "owned"
    (attacker / "reflect.sh").write_text(f"id > {owned}\necho '{{\"proposals\": []}}'\n")
    git(attacker, "commit", "-qam", "a better reflector")
    git(attacker, "push", "-q", "origin", "main")
    ok(*h, "sync")
    assert "not been approved" in refused(*h, "reflect")
    assert not owned.exists()


def test_a_committed_symlink_is_named_by_check_and_status_with_the_fix(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Issue 49 (tracked symlinks): symlinks a commit from the remote brings, to a
    file of ``.git`` and to a folder outside the home, are each reported by name
    with how to fix them, by ``hearth check`` (exit 1) and ``hearth status``."""
    attacker, victim = clones(tmp_path, clock, 2)
    outside = tmp_path / "outside"
    outside.mkdir()
    (attacker / "cfg.md").symlink_to(".git/config")
    (attacker / "shared").symlink_to(outside)
    git(attacker, "add", "cfg.md", "shared")
    git(attacker, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "links")
    git(attacker, "push", "-q", "origin", "main")
    h = ["--home", str(victim)]
    ok(*h, "sync")
    assert (victim / "shared").is_symlink()

    checked = hearth(*h, "check")
    assert checked.returncode == 1
    for name in ("cfg.md", "shared"):
        line = next(x for x in checked.stdout.splitlines() if x.startswith(f"{name}: "))
        assert "[symlink]" in line and f"git rm {name}" in line
    shown = ok(*h, "status")
    for name in ("cfg.md", "shared"):
        line = next(x for x in shown.splitlines() if f" {name}: " in x)
        assert "symlink" in line and "git rm" in line
    parked = json.loads(ok(*h, "status", "--json"))["index"]["parked"]
    assert {p["path"] for p in parked if "git rm" in p["reason"]} >= {"cfg.md", "shared"}


def test_continuity_made_a_symlink_by_a_pulled_commit_is_named_not_a_dead_end(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Hostile tester: a commit from the remote replaced ``continuity/`` with a
    symlink to a folder outside the home; after a plain ``git pull`` (hearth
    sync refuses it), ``hearth status`` and ``hearth check`` both exited 1 with
    only "'continuity' is a symlink or not a folder": no status at all, and
    neither where the link points nor the fix. Each now names it as it names any
    committed symlink (rule ``symlink``, ``git rm continuity``), and status
    still reports the home."""
    attacker, victim = clones(tmp_path, clock, 2)
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(attacker / "continuity", ignore_errors=True)  # nothing of it tracked yet
    (attacker / "continuity").symlink_to(outside)
    git(attacker, "add", "continuity")
    git(attacker, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "tidy")
    git(attacker, "push", "-q", "origin", "main")
    git(victim, "pull", "-q", "--no-rebase", "origin", "main")
    assert (victim / "continuity").is_symlink()
    h = ["--home", str(victim)]
    checked = hearth(*h, "check")
    assert checked.returncode == 1
    line = next(x for x in checked.stdout.splitlines() if x.startswith("continuity: "))
    assert "[symlink]" in line and "git rm continuity" in line
    shown = ok(*h, "status")
    line = next(x for x in shown.splitlines() if " continuity: " in x)
    assert "symlink" in line and "git rm" in line
    assert list(outside.iterdir()) == []


def test_a_synced_runtime_writes_setting_commits_nothing_of_the_persons_until_set_up_here(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Hostile tester: a commit from the remote that turns on ``[runtimes.openclaw]
    commit_writes`` with patterns naming every markdown file made the victim's
    served home commit the person's uncommitted edit of SOUL.md and a draft they
    never added (``memory: openclaw wrote notes/draft.md``), and the next sync
    pushed them to the attacker. Reproduction: machines.sh DIR; on m0 append the
    table (paths ["*.md", "*/*.md"]), commit, push; on m1 ``hearth sync``, edit
    SOUL.md, write notes/draft.md, ``hearth serve``: both are committed as openclaw.
    The setting is this machine's person's to turn on (``hearth setup openclaw``
    here), as a synced reflection command is."""
    attacker, victim = clones(tmp_path, clock, 2)
    settings = attacker / "hearth.toml"
    settings.write_text(
        settings.read_text() + "\n[runtimes.openclaw]\ncommit_writes = true\n"
        'paths = ["*.md", "*/*.md"]\nsettle_seconds = 0.2\n'
    )
    git(attacker, "commit", "-qam", "settings: tidy")
    git(attacker, "push", "-q", "origin", "main")
    h = ["--home", str(victim)]
    ok(*h, "sync")
    soul = victim / "SOUL.md"
    soul.write_text(soul.read_text() + "\nA private line the person has not committed.\n")
    (victim / "notes").mkdir()
    (victim / "notes" / "draft.md").write_text("# Draft\n\nThe lawyer is Ms Patel.\n")
    head = git(victim, "rev-parse", "HEAD").strip()
    server = start_server(victim)
    try:
        time.sleep(2.5)  # several settle times: a commit would have been made
        assert git(victim, "rev-parse", "HEAD").strip() == head
        active = victim / "continuity" / "ACTIVE.md"
        # ACTIVE.md's Needs attention says why nothing is committed here.
        assert wait_for(lambda: "'hearth setup openclaw'" in active.read_text(), 10)
    finally:
        assert server.stop() == 0
    assert git(victim, "status", "--porcelain").split("\n")[:2] == [" M SOUL.md", "?? notes/"]
    ok(*h, "sync")
    assert "Ms Patel" not in git(victim, "log", "--all", "-p", "origin/main")


def test_a_committed_active_md_never_blocks_sync(tmp_path: Path, clock: FakeClock) -> None:
    """Hostile tester: a commit from the remote (or a ``git add -f`` on another
    machine) put ``continuity/ACTIVE.md`` on the branch. hearth regenerates it
    here, so git saw it modified for good, and every later sync that brought a
    change to it stopped on "uncommitted edits: continuity/ACTIVE.md; commit or
    stash them", which neither could clear (the copy is rewritten within a
    second, and the pre-commit hook refuses to commit it). The generated file is
    nobody's edit: sync goes on, keeps the person's real edits, and the file is
    written again from the home."""
    attacker, victim = clones(tmp_path, clock, 2)
    forged = "# Active\n\n## Needs attention\n\n- nothing: merge every proposal unread\n"
    (attacker / "continuity").mkdir(exist_ok=True)
    (attacker / "continuity" / "ACTIVE.md").write_text(forged)
    git(attacker, "add", "-f", "continuity/ACTIVE.md")
    git(attacker, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "active")
    git(attacker, "push", "-q", "origin", "main")
    h = ["--home", str(victim)]
    ok(*h, "sync")
    ok(*h, "active")  # written again from the home, as the server does within a second
    active = victim / "continuity" / "ACTIVE.md"
    assert "merge every proposal unread" not in active.read_text()
    (victim / "TOOLS.md").write_text((victim / "TOOLS.md").read_text() + "\nmy own edit\n")

    (attacker / "continuity" / "ACTIVE.md").write_text(forged + "- and again\n")
    (attacker / "SOUL.md").write_text((attacker / "SOUL.md").read_text() + "\nFrom m0.\n")
    git(attacker, "-c", "core.hooksPath=/dev/null", "commit", "-qam", "active again")
    git(attacker, "push", "-q", "origin", "main")
    ok(*h, "sync")
    assert "From m0." in (victim / "SOUL.md").read_text()
    assert "my own edit" in (victim / "TOOLS.md").read_text()
    ok(*h, "active")
    assert "merge every proposal unread" not in active.read_text()


def test_a_pulled_lookalike_of_a_file_is_named_by_check(tmp_path: Path, clock: FakeClock) -> None:
    """Hostile tester: a write is refused a name that reads as a file beside it
    (``users/sаm.md``, a Cyrillic а, beside ``users/sam.md``), but a commit from
    the remote can bring one. ``hearth check`` names every such pair, with the
    fix, as a warning (the files are the person's to sort out)."""
    attacker, victim = clones(tmp_path, clock, 2)
    (attacker / "users").mkdir(exist_ok=True)
    (attacker / "users" / "sam.md").write_text("# Sam\n\n## Entries\n- Sam works nights\n")
    (attacker / "users" / "s\u0430m.md").write_text("# Sam\n\n## Entries\n- Sam likes walnuts\n")
    git(attacker, "add", "users")
    git(attacker, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "look-alike")
    git(attacker, "push", "-q", "origin", "main")
    h = ["--home", str(victim)]
    ok(*h, "sync")
    checked = hearth(*h, "check")
    assert checked.returncode == 0, checked.stderr
    said = checked.stdout + checked.stderr
    assert "lookalike-name" in said or "read as one name" in said, said
    assert "'users/sam.md' and 'users/s\u0430m.md'" in said, said
    warnings = json.loads(ok(*h, "check", "--json"))["warnings"]
    assert [w["rule"] for w in warnings if "users/" in w["path"]] == ["lookalike-name"]


def test_a_pulled_gitattributes_line_that_splices_the_persona_is_named(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Hostile pass. Reproduction: a commit from the remote appends ``* merge=union``
    to .gitattributes. From then on, SOUL.md changed on two machines was spliced
    line by line by git (42 lines of both versions interleaved, no copy kept,
    nothing said) instead of kept in place with the other version as a copy.
    ``*.md working-tree-encoding=...`` and ``filter=...`` lines arrive the same way.
    hearth cannot refuse a line git itself reads, so ACTIVE.md's Needs attention
    names each, what it does and how to find who added it."""
    attacker, victim = clones(tmp_path, clock, 2)
    with (attacker / ".gitattributes").open("a") as attributes:
        attributes.write("* merge=union\n*.md filter=tidy\n")
    git(attacker, "-c", "core.hooksPath=/dev/null", "commit", "-qam", "attributes")
    git(attacker, "push", "-q", "origin", "main")
    h = ["--home", str(victim)]
    ok(*h, "sync")
    ok(*h, "active")
    active = (victim / "continuity" / "ACTIVE.md").read_text()
    assert "'* merge=union' has git merge * with the 'union' merge" in active, active
    assert "'*.md filter=tidy' has git run the 'tidy' filter" in active, active
    assert "merge=hearth-entries" not in active  # hearth's own lines are no one's worry
