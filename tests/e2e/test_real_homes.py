"""Real homes adopted through the real CLI and the real git CLI: a LionClaw home
(continuity records and daily notes as LionClaw's renderers write them), OpenClaw
workspaces (brand-new and finished bootstrapping, with and without .git), home
discovery from the working folder, and the migration of a home with old keys."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import git
from tests.domain import lionclaw_files as lc
from tests.e2e.test_cli_e2e import BIN, hearth, ok, refused

LIONCLAW_MEMORY = (
    "# Memory\n\nKeep durable facts, conventions, and important long-term context here.\n\n"
    "## Entries\n"
)
SOUL = "I am a careful, candid assistant who keeps notes and says what I do not know. " * 2


def write(root: Path, path: str, text: str) -> Path:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    return target


# -- a LionClaw home -------------------------------------------------------------------


@pytest.fixture
def lionclaw_home(tmp_path: Path) -> Path:
    """A LionClaw workspace as LionClaw leaves it, before hearth: no .git."""
    root = tmp_path / "lionclaw"
    write(root, "SOUL.md", SOUL)
    write(root, "IDENTITY.md", "# Identity\n\n- **Name**: Clawd\n- **Creature**: lion\n")
    write(root, "MEMORY.md", LIONCLAW_MEMORY)
    write(
        root,
        "continuity/ACTIVE.md",
        "# Active Context\n\nNo active continuity signals have been recorded yet.\n",
    )
    write(
        root,
        lc.daily_path("2026-04-03"),
        lc.daily_header("2026-04-03")
        + lc.daily_entry("09:30", "Scheduled brief completed", ["artifact continuity/x.md"])
        + lc.daily_entry("10:05", "Heron sighting", ["A grey heron stood in the reeds"]),
    )
    for title, entries in (("CAFÉ au lait", ["Likes it strong"]), ("Tag from main", ["Always"])):
        write(
            root,
            f"continuity/proposals/memory/{lc.proposal_key(title)}.md",
            lc.proposal(title, entries, "session:main", "Said so twice"),
        )
    write(
        root,
        f"continuity/open-loops/{lc.proposal_key('Ünïcode loop')}.md",
        lc.open_loop("Ünïcode loop", "Check the accents", "Ask Sam", "telegram"),
    )
    return root


def test_a_lionclaw_home_is_adopted_and_passes_check(lionclaw_home: Path) -> None:
    result = json.loads(ok("init", str(lionclaw_home), "--json"))
    assert result["daily_layout"] == "lionclaw"
    assert lc.daily_path("2026-04-03") in result["adopted"]
    assert "BOOTSTRAP.md" not in result["added"]  # IDENTITY.md already names Clawd
    assert result["bootstrap_skipped"] == "IDENTITY.md already names the assistant"
    assert not (lionclaw_home / "BOOTSTRAP.md").exists()
    assert 'layout = "lionclaw"' in (lionclaw_home / "hearth.toml").read_text()
    # The adopted folder others can read: init warned, and check says so too,
    # with the command that fixes it (a warning, not a failure).
    assert result["exposed"]["fix"] == f"chmod 700 {lionclaw_home}"
    checked = json.loads(ok("--home", str(lionclaw_home), "check", "--json"))
    warnings = checked.pop("warnings")
    assert checked == {"ok": True, "failures": [], "legacy_keys": []}
    assert [w["fix"] for w in warnings] == [f"chmod 700 {lionclaw_home}"]
    lionclaw_home.chmod(0o700)
    checked = json.loads(ok("--home", str(lionclaw_home), "check", "--json"))
    assert checked == {"ok": True, "failures": [], "legacy_keys": [], "warnings": []}
    assert git(lionclaw_home, "status", "--porcelain") == ""


def test_lionclaw_records_are_reviewed_merged_and_resolved_as_they_are(
    lionclaw_home: Path,
) -> None:
    ok("init", str(lionclaw_home))
    h = ("--home", str(lionclaw_home))
    cafe = lc.proposal_key("CAFÉ au lait")
    listed = json.loads(ok(*h, "proposals", "--json"))["proposals"]
    by_key = {p["key"]: p for p in listed}
    assert set(by_key) == {cafe, lc.proposal_key("Tag from main")}
    assert by_key[cafe]["entries"] == ["Likes it strong"]
    assert by_key[cafe]["style"] == "lionclaw" and by_key[cafe]["title"] == "CAFÉ au lait"

    # The same title reaches the same file, and it stays in LionClaw's format.
    again = json.loads(
        ok(*h, "propose", "--title", "CAFÉ au lait", "--entry", "No sugar", "--json")
    )
    assert again["key"] == cafe
    folder = lionclaw_home / "continuity/proposals/memory"
    assert sorted(p.name for p in folder.glob("*.md")) == sorted(
        [f"{cafe}.md", f"{lc.proposal_key('Tag from main')}.md"]
    )
    text = (folder / f"{cafe}.md").read_text()
    assert text.startswith("# Memory Proposal: CAFÉ au lait\n\n- Status: proposed\n")
    assert "## Candidate Entries\n- Likes it strong\n- No sugar\n" in text

    ok(*h, "merge", cafe)
    memory = (lionclaw_home / "MEMORY.md").read_text()
    assert memory.startswith(LIONCLAW_MEMORY)
    assert memory.endswith("## Entries\n\n- Likes it strong\n- No sugar\n")
    (archived,) = (folder / "archive/merged").iterdir()
    assert archived.name.startswith(f"{cafe}--")
    archived_text = archived.read_text()
    assert f"- Key: {cafe}.md\n" in archived_text and "\n- Status: merged\n" in archived_text
    assert "---" not in archived_text  # not turned into front matter

    ok(*h, "reject", lc.proposal_key("Tag from main"), "--reason", "not true")
    (rejected,) = (folder / "archive/rejected").iterdir()
    assert "- Reason: not true\n- Status: rejected\n" in rejected.read_text()

    loop = lc.proposal_key("Ünïcode loop")
    assert "Ünïcode loop (next: Ask Sam)" in ok(*h, "loops")
    ok(*h, "loop", "resolve", loop, "--note", "asked")
    (resolved,) = (lionclaw_home / "continuity/open-loops/archive").iterdir()
    assert resolved.read_text().startswith("# Ünïcode loop\n\n- Key: ")
    assert "- Resolution: asked\n- Status: resolved\n" in resolved.read_text()

    assert json.loads(ok(*h, "check", "--json"))["ok"] is True
    assert git(lionclaw_home, "status", "--porcelain") == ""


def test_lionclaw_daily_notes_are_daily_notes(lionclaw_home: Path) -> None:
    ok("init", str(lionclaw_home))
    h = ("--home", str(lionclaw_home))
    hits = json.loads(ok(*h, "search", "heron", "--kind", "daily", "--json"))["hits"]
    assert [hit["path"] for hit in hits] == [lc.daily_path("2026-04-03")]

    written = json.loads(ok(*h, "note", "--title", "Garden", "--json", "--", "- watered the beans"))
    today = dt.datetime.now(dt.UTC).date()
    assert written["path"] == lc.daily_path(today.isoformat())
    note = (lionclaw_home / written["path"]).read_text()
    assert note.startswith(f"# Daily Continuity {today.isoformat()}\n\n## ")
    assert note.endswith(" UTC - Garden\n- watered the beans\n\n")
    assert not (lionclaw_home / "memory").exists()  # no second layout

    active = ok(*h, "active")
    assert f"From `{written['path']}`" in active and "Garden: - watered the beans" in active

    digest = json.loads(ok(*h, "rollup", "--week", "2026-W14", "--json"))
    rollup = (lionclaw_home / digest["path"]).read_text()
    assert "- 10:05 Heron sighting: - A grey heron stood in the reeds" in rollup


def test_the_pre_commit_hook_takes_lionclaw_records(lionclaw_home: Path) -> None:
    ok("init", str(lionclaw_home))
    key = lc.proposal_key("Prefers mornings")
    write(
        lionclaw_home,
        f"continuity/proposals/memory/{key}.md",
        lc.proposal("Prefers mornings", ["Meetings before noon"]),
    )
    git(lionclaw_home, "add", "-A")
    git(lionclaw_home, "commit", "-qm", "lionclaw wrote a proposal")
    assert git(lionclaw_home, "status", "--porcelain") == ""

    wrong = lc.proposal("Prefers evenings", ["x"]).replace("- Key: ", "- Key: other-")
    write(
        lionclaw_home,
        f"continuity/proposals/memory/{lc.proposal_key('Prefers evenings')}.md",
        wrong,
    )
    git(lionclaw_home, "add", "-A")
    proc = subprocess.run(
        ["git", "commit", "-qm", "bad key line"],
        cwd=lionclaw_home,
        capture_output=True,
        text=True,
        check=False,
        env=os.environ.copy(),
    )
    assert proc.returncode != 0
    assert "[record-key]" in proc.stderr


# -- OpenClaw workspaces -----------------------------------------------------------------

OPENCLAW_IDENTITY_NEW = (
    "# IDENTITY.md - Who Am I?\n\n_Fill this in during your first conversation. Make it yours._\n\n"
    "- **Name:**\n  _(pick something you like)_\n- **Creature:**\n  _(AI? robot? familiar?)_\n"
)
OPENCLAW_IDENTITY_DONE = (
    "# IDENTITY.md - Who Am I?\n\n- **Name:** Clawd\n- **Creature:** lobster\n- **Emoji:** 🦞\n"
)
OPENCLAW_AGENTS = (
    "# AGENTS.md - Your Workspace\n\nIf `BOOTSTRAP.md` exists, that's your birth certificate. "
    "Follow it, figure out who you are, then delete it.\n"
)


def openclaw_workspace(root: Path, *, finished: bool) -> Path:
    write(root, "AGENTS.md", OPENCLAW_AGENTS)
    write(root, "SOUL.md", SOUL)
    write(root, "USER.md", "# USER.md\n\n- **Name:** Sam\n")
    write(root, "memory/2026-03-01.md", "# 2026-03-01\n\nFirst day.\n")
    state = {"version": 1, "bootstrapSeededAt": "2026-03-01T10:00:00.000Z"}
    if finished:
        write(root, "IDENTITY.md", OPENCLAW_IDENTITY_DONE)
        state["onboardingCompletedAt"] = "2026-03-01T10:30:00.000Z"
    else:
        write(root, "IDENTITY.md", OPENCLAW_IDENTITY_NEW)
        write(root, "BOOTSTRAP.md", "# BOOTSTRAP.md - Hello, World\n\nOpenClaw's own ritual.\n")
    write(root, ".openclaw/workspace-state.json", json.dumps(state))
    return root


def test_a_finished_openclaw_workspace_never_gets_bootstrap(tmp_path: Path) -> None:
    root = openclaw_workspace(tmp_path / "ws", finished=True)
    result = json.loads(ok("init", str(root), "--json"))
    assert not (root / "BOOTSTRAP.md").exists()
    assert result["bootstrap_skipped"] == "IDENTITY.md already names the assistant"
    assert {"AGENTS.md", "IDENTITY.md", "memory/2026-03-01.md"} <= set(result["adopted"])
    assert "HEARTBEAT.md" in result["added"] and "hearth.toml" in result["added"]
    assert (root / "IDENTITY.md").read_text() == OPENCLAW_IDENTITY_DONE
    assert json.loads(ok("--home", str(root), "check", "--json"))["ok"] is True
    # init again, after the person deleted nothing: still no BOOTSTRAP.md
    assert "nothing to add" in ok("init", str(root))
    assert not (root / "BOOTSTRAP.md").exists()


def test_a_finished_openclaw_workspace_in_git_lists_what_it_left_untracked(
    tmp_path: Path,
) -> None:
    root = openclaw_workspace(tmp_path / "ws", finished=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "AGENTS.md", "SOUL.md", "IDENTITY.md")
    git(root, "commit", "-qm", "workspace")
    out = ok("init", str(root))
    assert "BOOTSTRAP.md not added: the repository already has history" in out
    assert "left untracked (3 files" in out
    for path in ("USER.md", "memory/2026-03-01.md", ".openclaw/workspace-state.json"):
        assert f"\n  {path}" in out
    result = json.loads(ok("init", str(root), "--json"))
    assert result["untracked"] == [
        ".openclaw/workspace-state.json",
        "USER.md",
        "memory/2026-03-01.md",
    ]
    assert not (root / "BOOTSTRAP.md").exists()
    assert "USER.md" not in git(root, "ls-files").split()


def test_a_brand_new_openclaw_workspace_keeps_its_own_bootstrap(tmp_path: Path) -> None:
    root = openclaw_workspace(tmp_path / "ws", finished=False)
    result = json.loads(ok("init", str(root), "--json"))
    assert "BOOTSTRAP.md" in result["adopted"]
    assert (root / "BOOTSTRAP.md").read_text().startswith("# BOOTSTRAP.md - Hello, World")
    assert [w["rule"] for w in result["warnings"]] == ["identity-name"]


def test_a_brand_new_folder_gets_bootstrap(tmp_path: Path) -> None:
    result = json.loads(ok("init", str(tmp_path / "new"), "--json"))
    assert "BOOTSTRAP.md" in result["added"] and result["bootstrap_skipped"] == ""
    assert result["daily_layout"] == "hearth"
    assert git(tmp_path / "new", "ls-files", "BOOTSTRAP.md").strip() == "BOOTSTRAP.md"


# -- finding the home from the working folder ----------------------------------------------


def test_init_dot_then_check_in_the_same_folder(tmp_path: Path) -> None:
    root = openclaw_workspace(tmp_path / "ws", finished=True)
    ok("init", ".", cwd=root)
    assert "all rules pass" in ok("check", cwd=root)
    status = json.loads(ok("status", "--json", cwd=root / "memory"))
    assert status["home"] == str(root)
    proc = subprocess.run(
        ["git", "hearth", "check", "--json"],
        cwd=root / "memory",
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"},
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ok"] is True


def test_discovery_order_is_option_env_folder_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / "here"
    there = tmp_path / "there"
    ok("init", str(here))
    ok("init", str(there))
    assert json.loads(ok("status", "--json", cwd=here))["home"] == str(here)
    monkeypatch.setenv("HEARTH_HOME", str(there))
    assert json.loads(ok("status", "--json", cwd=here))["home"] == str(there)
    proc = hearth("status", "--json", cwd=here, exe="git-hearth")
    assert json.loads(proc.stdout)["home"] == str(there)  # git hearth alike
    assert json.loads(ok("--home", str(here), "status", "--json", cwd=here))["home"] == str(here)
    monkeypatch.delenv("HEARTH_HOME")

    # A git repository that is not a hearth home is not taken for one.
    plain = tmp_path / "plain"
    plain.mkdir()
    git(plain, "init", "-q", "-b", "main")
    message = refused("status", cwd=plain)
    assert ".hearth/home does not exist" in message and "hearth init" in message
    # The walk stops at the first repository, as git's does: a plain repository
    # inside a home hides the home.
    nested = here / "vendor/plain"
    nested.mkdir(parents=True)
    git(nested, "init", "-q", "-b", "main")
    assert ".hearth/home does not exist" in refused("status", cwd=nested)


# -- a home made with older keys -----------------------------------------------------------

# Files as the previous release of hearth named them (its keys folded to ASCII and
# cut slugs at 60 characters); LionClaw names them otherwise.
OLD = {
    "CAFÉ au lait": "cafe-au-lait--2eee7670-9c01-5b3e-8452-7d1796f4862b",
    "Ünïcode loop": "unicode-loop--ed05707c-3c73-580c-b9a5-215ca1ed210c",
    "Straße": "strae--b13a8342-b5dd-5089-8bcf-c222a6713edf",
}


def old_record(title: str, kind: str, status: str) -> str:
    head = f"---\ntitle: {title}\nstatus: {status}\ncreated: '2026-01-01T00:00:00Z'\n"
    if kind == "proposal":
        return head + "updated: '2026-01-01T00:00:00Z'\n---\n\n- an entry\n"
    return head + "updated: '2026-01-01T00:00:00Z'\n---\n\nsomething open\n"


@pytest.fixture
def old_home(tmp_path: Path) -> Path:
    root = tmp_path / "old"
    ok("init", str(root))
    write(
        root,
        f"continuity/proposals/memory/{OLD['CAFÉ au lait']}.md",
        old_record("CAFÉ au lait", "proposal", "pending"),
    )
    write(
        root,
        f"continuity/open-loops/{OLD['Ünïcode loop']}.md",
        old_record("Ünïcode loop", "loop", "open"),
    )
    archived = f"continuity/proposals/memory/archive/rejected/{OLD['Straße']}--1f0c.md"
    write(root, archived, old_record("Straße", "proposal", "rejected"))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "records from an older hearth")
    return root


def test_a_home_with_old_keys_keeps_working(old_home: Path) -> None:
    h = ("--home", str(old_home))
    checked = json.loads(ok(*h, "check", "--json"))
    assert checked["ok"] is True
    assert len(checked["legacy_keys"]) == 3
    assert [p["key"] for p in json.loads(ok(*h, "proposals", "--json"))["proposals"]] == [
        OLD["CAFÉ au lait"]
    ]
    # The same title updates the old file rather than starting a second one.
    key = json.loads(ok(*h, "propose", "--title", "CAFÉ au lait", "--entry", "b", "--json"))["key"]
    assert key == OLD["CAFÉ au lait"]
    assert len(list((old_home / "continuity/proposals/memory").glob("*.md"))) == 1
    ok(*h, "merge", key)
    assert "- an entry\n- b\n" in (old_home / "MEMORY.md").read_text()
    ok(*h, "loop", "resolve", OLD["Ünïcode loop"])
    assert json.loads(ok(*h, "check", "--json"))["ok"] is True


def test_fix_keys_renames_old_keys_in_one_commit_keeping_history(old_home: Path) -> None:
    before = git(old_home, "rev-parse", "HEAD").strip()
    fixed = json.loads(ok("--home", str(old_home), "check", "--fix-keys", "--json"))
    assert fixed["ok"] is True and fixed["legacy_keys"] == []
    assert git(old_home, "rev-parse", "HEAD~1").strip() == before  # exactly one commit
    renames = git(old_home, "show", "-M", "--name-status", "--format=%s%n%b", "HEAD")
    new = {
        "CAFÉ au lait": f"continuity/proposals/memory/{lc.proposal_key('CAFÉ au lait')}.md",
        "Ünïcode loop": f"continuity/open-loops/{lc.proposal_key('Ünïcode loop')}.md",
        "Straße": "continuity/proposals/memory/archive/rejected/"
        f"{lc.proposal_key('Straße')}--1f0c.md",
    }
    assert renames.startswith("records: rename 3 records to LionClaw's keys")
    for title, path in new.items():
        assert (old_home / path).is_file()
        assert "R100\t" in renames and path in renames
        followed = git(old_home, "log", "--follow", "--format=%s", "--", path).splitlines()
        assert followed[-1] == "records from an older hearth", (title, followed)
    assert "Hearth-Op: records.fix-keys" in renames
    assert git(old_home, "status", "--porcelain") == ""
    again = json.loads(ok("--home", str(old_home), "check", "--fix-keys", "--json"))
    assert again["fixed"] == {"commit": None, "renamed": [], "blocked": []}


def test_fix_keys_never_overwrites(old_home: Path) -> None:
    taken = f"continuity/proposals/memory/{lc.proposal_key('CAFÉ au lait')}.md"
    write(old_home, taken, lc.proposal("CAFÉ au lait", ["from LionClaw"]))
    git(old_home, "add", "-A")
    git(old_home, "commit", "-qm", "LionClaw wrote the same title")
    fixed = json.loads(ok("--home", str(old_home), "check", "--fix-keys", "--json"))["fixed"]
    assert [b["path"] for b in fixed["blocked"]] == [
        f"continuity/proposals/memory/{OLD['CAFÉ au lait']}.md"
    ]
    assert len(fixed["renamed"]) == 2
    assert lc.proposal("CAFÉ au lait", ["from LionClaw"]) == (old_home / taken).read_text()


def test_fix_keys_refuses_over_uncommitted_edits(old_home: Path) -> None:
    edited = old_home / f"continuity/open-loops/{OLD['Ünïcode loop']}.md"
    edited.write_text(edited.read_text() + "my uncommitted edit\n")
    head = git(old_home, "rev-parse", "HEAD")
    message = refused("--home", str(old_home), "check", "--fix-keys")
    assert OLD["Ünïcode loop"] in message
    assert git(old_home, "rev-parse", "HEAD") == head
    assert edited.read_text().endswith("my uncommitted edit\n")
    assert not (old_home / f"continuity/open-loops/{lc.proposal_key('Ünïcode loop')}.md").exists()
