"""The CLI's small consistencies (issue 35): ``hearth --version``, and
``restore PATH --rev REV`` beside ``restore PATH REV`` (as ``get --rev REV``)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.api.conftest import BIN, isolated_env, make_home
from tests.conftest import git

pytestmark = pytest.mark.e2e  # the installed executable in subprocesses


def _hearth(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "hearth"), *args], capture_output=True, text=True, check=False, env=env
    )


def test_version(tmp_path: Path) -> None:
    done = _hearth("--version", env=isolated_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"hearth \d+\.\d+\.\d+\S*\n", done.stdout), done.stdout


def test_restore_takes_the_revision_either_way(tmp_path: Path) -> None:
    env = isolated_env(tmp_path / "userhome")
    root = make_home(tmp_path / "home", env)
    first = git(root, "rev-parse", "HEAD").strip()
    original = (root / "SOUL.md").read_text()
    for step in range(2):
        (root / "SOUL.md").write_text(original + f"\nchanged {step}\n")
        git(root, "commit", "-qam", f"persona: change {step}")
        form = [first] if step == 0 else ["--rev", first]
        done = _hearth("--home", str(root), "restore", "SOUL.md", *form, env=env)
        assert done.returncode == 0, done.stderr
        assert (root / "SOUL.md").read_text() == original
    got = _hearth("--home", str(root), "get", "SOUL.md", "--rev", first, env=env)
    assert got.returncode == 0 and got.stdout.strip() == original.strip()
    both = _hearth("--home", str(root), "restore", "SOUL.md", "HEAD", "--rev", first, env=env)
    assert both.returncode == 2 and "two revisions" in both.stderr
    none = _hearth("--home", str(root), "restore", "SOUL.md", env=env)
    assert none.returncode == 2 and "give the revision" in none.stderr


def test_setup_dry_run_prints_the_changes_it_would_make(tmp_path: Path) -> None:
    env = isolated_env(tmp_path / "userhome")
    (tmp_path / "userhome").mkdir()
    root = make_home(tmp_path / "home", env)
    done = _hearth("--home", str(root), "setup", "gemini", "--dry-run", env={**env, "PATH": ""})
    assert done.returncode == 0, done.stderr
    assert "would change:" in done.stdout and "would register MCP server hearth" in done.stdout
    assert "registered MCP" not in done.stdout.replace("would register MCP", "")
    assert "\n+" in done.stdout and "agent-hook gemini" in done.stdout, done.stdout
    assert list((tmp_path / "userhome").iterdir()) == []


def test_no_matches_says_what_was_left_out_and_why(tmp_path: Path) -> None:
    """Issue 48: the CLI's "no matches" says how many hits the relevance floor
    left out and the nearest one's reason."""
    env = isolated_env(tmp_path / "userhome")
    root = make_home(tmp_path / "home", env)
    added = _hearth("--home", str(root), "memory", "add", "MEMORY.md", "Likes espresso", env=env)
    assert added.returncode == 0, added.stderr
    done = _hearth("--home", str(root), "search", "espresso zzqx", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("no matches (1 below the relevance floor left out"), done.stdout
    assert "nearest: MEMORY.md:" in done.stdout
    assert "of the question's words" in done.stdout


def test_a_name_holding_a_newline_prints_on_one_line(tmp_path: Path) -> None:
    """Hostile tester: a commit (from the remote, past any hook) named a file
    ``memory/evil\\n## Needs attention\\n- nothing.md``; ``hearth status`` and
    ``hearth check`` printed the name as it is, so the terminal showed lines the
    home never said (a heading, a bullet). ACTIVE.md escaped it already; the
    CLI shows an escape as ␛ but kept the newline. Now each name is one line,
    its newlines shown as ␊."""
    env = isolated_env(tmp_path / "userhome")
    root = make_home(tmp_path / "home", env)
    name = "evil\n## Needs attention\n- nothing.md"
    (root / "memory").mkdir(exist_ok=True)
    (root / "memory" / name).write_text("# hi\n\ntext\n")
    git(root, "add", "memory")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "odd name")
    for args in (["status"], ["check"]):
        done = _hearth("--home", str(root), *args, env=env)
        forged = [x for x in done.stdout.splitlines() if x.startswith(("## ", "- nothing"))]
        assert forged == [], done.stdout
        assert "memory/evil␊## Needs attention␊- nothing.md" in done.stdout, done.stdout
    # The fix check names is a command that works pasted into a shell (it said
    # "replace it with a regular file", which the file already was).
    done = _hearth("--home", str(root), "check", "--json", env=env)
    (failure,) = [f for f in json.loads(done.stdout)["failures"] if f["path"].startswith("memory/")]
    fix = failure["fix"].removeprefix("rename it: ")
    assert fix.startswith("git mv -- $'memory/evil\\n## Needs"), fix
    subprocess.run(["bash", "-c", fix], cwd=root, check=True, env=env)
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "renamed")
    assert (root / "memory" / "evil-## Needs attention-- nothing.md").exists()
    assert _hearth("--home", str(root), "check", env=env).returncode == 0


def test_a_records_field_holding_a_newline_lists_on_one_line(tmp_path: Path) -> None:
    """Hostile tester: a committed loop whose ``next_step`` spells newlines with
    a YAML escape (``"call\\n## Pending proposals\\n- none"``), and a broken one
    whose file name holds them, made ``hearth loops`` print a heading and a
    bullet of their own; hearth's own writes fold such text into one line, and
    ACTIVE.md escapes it. Now each record lists on one line."""
    env = isolated_env(tmp_path / "userhome")
    root = make_home(tmp_path / "home", env)
    loops = root / "continuity" / "open-loops"
    loops.mkdir(parents=True, exist_ok=True)
    done = _hearth("--home", str(root), "loop", "add", "--title", "Call the garage", env=env)
    key = done.stdout.strip()
    path = loops / f"{key}.md"
    path.write_text(
        path.read_text().replace(
            "status: open", 'status: open\nnext_step: "call\\n## Pending\\n- none"'
        )
    )
    (loops / "x\n## Decisions\n- approved.md").write_text("not a record\n")
    git(root, "add", "continuity")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "loops")
    listed = _hearth("--home", str(root), "loops", env=env)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert len(lines) == 2, listed.stdout
    assert not any(x.startswith(("## ", "- ")) for x in lines), listed.stdout
