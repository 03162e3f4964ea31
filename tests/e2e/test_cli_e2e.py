"""The real ``hearth`` and ``git-hearth`` executables against real repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git

BIN = Path(sys.executable).parent


def hearth(*args: str, cwd: Path | None = None, stdin: str | None = None, exe: str = "hearth"):
    return subprocess.run(
        [str(BIN / exe), *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        check=False,
        text=True,
        env=os.environ.copy(),
    )


def ok(*args: str, **kwargs: object) -> str:
    proc = hearth(*args, **kwargs)  # type: ignore[arg-type]
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def refused(*args: str, **kwargs: object) -> str:
    proc = hearth(*args, **kwargs)  # type: ignore[arg-type]
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.startswith("hearth: ")
    assert "Traceback" not in proc.stderr
    return proc.stderr


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    ok("init", str(root))
    return root


def test_init_twice_changes_nothing(home: Path) -> None:
    head = git(home, "rev-parse", "HEAD")
    out = ok("init", str(home))
    assert "nothing to add" in out
    assert git(home, "rev-parse", "HEAD") == head
    assert git(home, "status", "--porcelain") == ""
    assert "continuity/ACTIVE.md" in (home / ".gitignore").read_text()
    assert "merge=union" in (home / ".gitattributes").read_text()


def test_init_uses_hearth_home_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEARTH_HOME", str(tmp_path / "env-home"))
    ok("init")
    assert (tmp_path / "env-home/SOUL.md").is_file()
    status = json.loads(ok("status", "--json"))
    assert status["home"] == str(tmp_path / "env-home")


def test_adopts_an_existing_workspace_without_git(tmp_path: Path) -> None:
    root = tmp_path / "workspace"
    (root / "memory").mkdir(parents=True)
    soul = "My own soul text, which is long enough to pass the rule. " * 3
    (root / "SOUL.md").write_text(soul)
    (root / "memory/2026-01-01.md").write_text("# 2026-01-01\n\nold note\n")
    (root / ".env").write_text("TOKEN=abc\n")
    (root / "leak.md").write_text("ghp_" + "a" * 36 + "\n")

    out = ok("init", str(root), "--json")
    result = json.loads(out)

    assert (root / "SOUL.md").read_text() == soul
    tracked = git(root, "ls-files").split()
    assert "memory/2026-01-01.md" in tracked
    assert "SOUL.md" in tracked
    assert "IDENTITY.md" in tracked
    assert ".env" not in tracked
    assert "leak.md" not in tracked
    assert {f["path"] for f in result["skipped"]} == {".env", "leak.md"}
    assert git(root, "rev-list", "--count", "HEAD").strip() == "1"


def test_adopts_an_existing_repository_without_sweeping_staged_work(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "AGENTS.md").write_text("# my agents file\n")
    git(root, "add", "AGENTS.md")
    git(root, "commit", "-qm", "mine")
    (root / "AGENTS.md").write_text("# my agents file\nstaged change\n")
    git(root, "add", "AGENTS.md")
    (root / "draft.md").write_text("untracked draft\n")

    ok("init", str(root))

    assert (root / "AGENTS.md").read_text() == "# my agents file\nstaged change\n"
    assert git(root, "diff", "--cached", "--name-only").split() == ["AGENTS.md"]
    committed = git(root, "show", "--name-only", "--format=", "HEAD").split()
    assert "AGENTS.md" not in committed
    assert "draft.md" not in committed
    assert "SOUL.md" in committed
    assert git(root, "rev-list", "--count", "HEAD").strip() == "2"


def test_record_workflow_through_the_cli(home: Path) -> None:
    h = ("--home", str(home))
    created = json.loads(
        ok(
            *h,
            "propose",
            "--title",
            "Likes tea",
            "--entry",
            "green",
            "--entry",
            "no sugar",
            "--json",
        )
    )
    assert set(created) == {"key", "path", "commit"}
    key = created["key"]
    listed = json.loads(ok(*h, "proposals", "--json"))["proposals"]
    assert [p["key"] for p in listed] == [key]
    assert listed[0]["entries"] == ["green", "no sugar"]
    ok(*h, "merge", key)
    assert "- green\n- no sugar\n" in (home / "MEMORY.md").read_text()
    assert json.loads(ok(*h, "proposals", "--json"))["proposals"] == []
    assert git(home, "status", "--porcelain") == ""

    loop_key = ok(*h, "loop", "add", "--title", "Call Sam", "--next", "find number").strip()
    assert "Call Sam" in ok(*h, "loops")
    ok(*h, "loop", "resolve", loop_key, "--note", "called")
    assert ok(*h, "loops").strip() == "none"

    other = ok(*h, "propose", "--title", "Wrong", "--entry", "x").strip()
    ok(*h, "reject", other, "--reason", "not true")
    archived = list((home / "continuity/proposals/memory/archive/rejected").iterdir())
    assert "reason: not true" in archived[0].read_text()


def test_put_get_history_restore(home: Path) -> None:
    h = ("--home", str(home))
    view = json.loads(ok(*h, "get", "USER.md", "--json"))
    assert view["dirty"] is False
    assert view["oid"] == git(home, "rev-parse", "HEAD:USER.md").strip()
    ok(
        *h,
        "put",
        "USER.md",
        "--from-file",
        "-",
        "--expected-oid",
        view["oid"],
        stdin="# User\n\nSam\n",
    )
    assert ok(*h, "get", "USER.md") == "# User\n\nSam\n"
    err = refused(
        *h, "put", "USER.md", "--from-file", "-", "--expected-oid", view["oid"], stdin="x\n"
    )
    assert "changed since you read it" in err
    assert ok(*h, "get", "USER.md", "--rev", "HEAD~1") == git(home, "show", "HEAD~1:USER.md")
    commits = json.loads(ok(*h, "history", "USER.md", "--json"))["commits"]
    assert len(commits) == 2
    assert commits[0]["trailers"]["Hearth-Op"] == "file.put"
    ok(*h, "restore", "USER.md", commits[1]["id"])
    assert (home / "USER.md").read_text() == git(home, "show", f"{commits[1]['id']}:USER.md")


@pytest.mark.parametrize(
    "args",
    [
        ("get", "../outside.md"),
        ("get", "/etc/passwd"),
        ("get", ".git/config"),
        ("get", "missing.md"),
        ("put", "../x.md", "--from-file", "-"),
        ("put", "/tmp/x.md", "--from-file", "-"),
        ("put", ".git/hooks/pre-commit", "--from-file", "-"),
        ("put", "link/x.md", "--from-file", "-"),
        ("merge", "no-such-key"),
        ("merge", "likes-tea--824d0f90-face-505d-ac4d-ad7b48c2c9ba"),
        ("reject", "nope", "--reason", "x"),
        ("loop", "resolve", "nope"),
        ("history", "../x"),
        ("restore", "SOUL.md", "not-a-rev"),
        ("note", "   "),
        ("put", "SOUL.md", "--from-file", "-"),
    ],
)
def test_refusals_exit_1_with_a_message(home: Path, tmp_path: Path, args: tuple[str, ...]) -> None:
    (tmp_path / "outside").mkdir()
    (home / "link").symlink_to(tmp_path / "outside")
    head = git(home, "rev-parse", "HEAD")
    message = refused("--home", str(home), *args, stdin="short\n")
    assert len(message.strip()) > 10
    assert git(home, "rev-parse", "HEAD") == head
    assert list((tmp_path / "outside").iterdir()) == []


def test_usage_errors_exit_2(home: Path) -> None:
    assert hearth("--home", str(home), "propose", "--title", "x").returncode == 2
    assert hearth("--home", str(home), "no-such-command").returncode == 2


def test_not_a_home_is_refused(tmp_path: Path) -> None:
    assert "hearth init" in refused("--home", str(tmp_path / "nowhere"), "status")


def test_check_reports_what_plain_git_let_in(home: Path) -> None:
    assert "all rules pass" in ok("--home", str(home), "check")
    (home / "IDENTITY.md").write_text("# Identity\n\nno name line\n")
    git(home, "commit", "-qam", "oops", "--no-verify")
    proc = hearth("--home", str(home), "check", "--json")
    assert proc.returncode == 1
    failures = json.loads(proc.stdout)["failures"]
    assert failures == [
        {
            "path": "IDENTITY.md",
            "rule": "identity-name",
            "message": "IDENTITY.md has no '**Name:**' line",
            "fix": "add a line such as '**Name:** Ember'",
        }
    ]


def test_status_json(home: Path) -> None:
    (home / "SOUL.md").write_text((home / "SOUL.md").read_text() + "\nedit\n")
    status = json.loads(ok("--home", str(home), "status", "--json"))
    assert status["branch"] == "main"
    assert status["head"] == git(home, "rev-parse", "HEAD").strip()
    assert status["dirty"] is True
    assert status["changes"] == [{"path": "SOUL.md", "state": "modified"}]


def test_git_hearth_finds_the_home_from_the_current_folder(home: Path) -> None:
    (home / "memory").mkdir(exist_ok=True)
    proc = hearth("status", "--json", cwd=home / "memory", exe="git-hearth")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["home"] == str(home)
    via_git = subprocess.run(
        ["git", "hearth", "status", "--json"],
        cwd=home,
        capture_output=True,
        check=False,
        text=True,
        env={**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"},
    )
    assert via_git.returncode == 0, via_git.stderr
    assert json.loads(via_git.stdout)["branch"] == "main"
