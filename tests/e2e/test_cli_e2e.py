"""The real ``hearth`` and ``git-hearth`` executables against real repositories."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.api.conftest import isolated_env, make_home
from tests.conftest import git
from tests.e2e.run import BIN, hearth, on_terminal


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


@pytest.fixture(scope="module")
def untouched(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One home for the module's cases that must leave it as it was (refusals,
    hostile queries, usage errors): each checks it changed nothing, so each meets
    it as the others left it. Beside it, ``outside/`` and the home's ``link``
    to it, for the writes that must not go through a symlink."""
    folder = tmp_path_factory.mktemp("untouched")
    env = isolated_env(tmp_path_factory.mktemp("userhome"))
    root = make_home(folder / "home", env)
    (folder / "outside").mkdir()
    (root / "link").symlink_to(folder / "outside")
    return root


def test_init_twice_changes_nothing(home: Path) -> None:
    head = git(home, "rev-parse", "HEAD")
    out = ok("init", str(home))
    assert "nothing to add" in out
    assert git(home, "rev-parse", "HEAD") == head
    assert git(home, "status", "--porcelain") == ""
    assert "continuity/ACTIVE.md" in (home / ".gitignore").read_text()
    attributes = (home / ".gitattributes").read_text()
    assert "merge=hearth-daily" in attributes and "merge=union" not in attributes


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
def test_refusals_exit_1_with_a_message(untouched: Path, args: tuple[str, ...]) -> None:
    home = untouched
    head = git(home, "rev-parse", "HEAD")
    message = refused("--home", str(home), *args, stdin="short\n")
    assert len(message.strip()) > 10
    assert git(home, "rev-parse", "HEAD") == head
    assert git(home, "status", "--porcelain") == "?? link\n"  # the fixture's own
    assert list((home.parent / "outside").iterdir()) == []


def test_usage_errors_exit_2(untouched: Path) -> None:
    assert hearth("--home", str(untouched), "propose", "--title", "x").returncode == 2
    assert hearth("--home", str(untouched), "no-such-command").returncode == 2


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
            "message": "IDENTITY.md has no name: no '**Name:**' line with a value on the same line",
            "fix": "write the name right after the label, e.g. '**Name:** Ember' or "
            "'- **Name**: Ember'",
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


# -- search, status, reindex, active, rollup (no server: each runs a pass first) --


def test_search_json_finds_edits_made_behind_its_back(home: Path) -> None:
    ok("--home", str(home), "note", "The heron is back at the pond.", "--title", "Heron")
    (home / "memory/topics").mkdir(parents=True)
    (home / "memory/topics/herons.md").write_text("# Herons\n\nGrey herons nest in trees.\n")
    data = json.loads(ok("--home", str(home), "search", "heron", "--json"))
    hits = data["hits"]
    today = f"memory/{dt.datetime.now(dt.UTC).date().isoformat()}.md"
    assert {h["path"] for h in hits} == {today, "memory/topics/herons.md"}
    for hit in hits:
        assert set(hit) >= {"path", "start_line", "end_line", "title", "kind", "score", "snippet"}
        lines = (home / hit["path"]).read_text().split("\n")
        section = "\n".join(lines[hit["start_line"] - 1 : hit["end_line"]]).lower()
        assert "heron" in section
    topic = next(h for h in hits if h["path"] == "memory/topics/herons.md")
    assert topic["kind"] == "topic" and "**herons**" in topic["snippet"].lower()

    (home / "memory/topics/herons.md").unlink()
    data = json.loads(ok("--home", str(home), "search", "heron", "--json", "--kind", "topic"))
    assert data["hits"] == []


@pytest.mark.parametrize("query", ["it's", "foo AND", '"open', "a:b", "((", "*", "\\"])
def test_hostile_search_queries_exit_zero(untouched: Path, query: str) -> None:
    data = json.loads(ok("--home", str(untouched), "search", query, "--json"))
    assert isinstance(data["hits"], list)


def test_search_usage_errors_exit_two(untouched: Path) -> None:
    assert hearth("--home", str(untouched), "search", "x", "--kind", "nope").returncode == 2
    assert hearth("--home", str(untouched), "search", "x", "--limit", "0").returncode == 2


def test_status_reports_index_freshness(home: Path) -> None:
    ok("--home", str(home), "loop", "add", "--title", "Fix the gate")
    (home / "memory/topics").mkdir(parents=True)
    (home / "memory/topics/a.md").write_text("# A\n")
    os.mkfifo(home / "memory/topics/pipe.md")
    data = json.loads(ok("--home", str(home), "status", "--json"))
    index = data["index"]
    assert index["fresh"] is True
    assert index["files_on_disk"] == index["files_indexed"] > 5
    assert index["documents"] >= index["files_indexed"]
    assert index["indexed_head"] == data["head"]
    assert index["last_reconcile"]
    assert index["parked"] == [
        {"path": "memory/topics/pipe.md", "reason": "not a regular file (a FIFO, socket or device)"}
    ]
    assert data["open_loops"] == 1 and data["pending_proposals"] == 0
    human = ok("--home", str(home), "status")
    assert "index: fresh" in human and "parked: memory/topics/pipe.md" in human


def test_reindex_and_full_rebuild(home: Path) -> None:
    first = json.loads(ok("--home", str(home), "reindex", "--json"))
    again = json.loads(ok("--home", str(home), "reindex", "--json"))
    assert again["indexed"] == again["removed"] == 0
    full = json.loads(ok("--home", str(home), "reindex", "--full", "--json"))
    assert full["rebuilt"] is True and full["indexed"] == first["scanned"]
    assert "rebuilt the index" in ok("--home", str(home), "reindex", "--full")


def test_reindex_shows_progress_on_a_terminal_only(home: Path) -> None:
    (home / "memory" / "topics").mkdir(parents=True, exist_ok=True)
    for n in range(30):
        (home / "memory" / "topics" / f"t{n}.md").write_text(f"# T{n}\n\nwords {n}\n")
    # Into a pipe (as above): nothing but the report.
    piped = hearth("--home", str(home), "reindex", "--full")
    assert piped.returncode == 0 and "reading files" not in piped.stderr + piped.stdout
    # On a terminal: the files read, counted up to all of them, on stderr.
    code, shown = on_terminal("--home", str(home), "reindex", "--full")
    assert code == 0
    listed = json.loads(ok("--home", str(home), "reindex", "--json"))["scanned"]
    assert f"reading files: {listed}/{listed}" in shown
    assert "rebuilt the index" in shown
    # With --json on a terminal: the JSON alone.
    code, quiet = on_terminal("--home", str(home), "reindex", "--full", "--json")
    assert code == 0
    assert "reading files" not in quiet and json.loads(quiet)["rebuilt"] is True


def test_active_prints_a_freshness_line_then_the_page(home: Path) -> None:
    ok("--home", str(home), "loop", "add", "--title", "Fix the gate", "--next", "buy hinges")
    out = ok("--home", str(home), "active")
    first, _, rest = out.partition("\n")
    head = git(home, "rev-parse", "HEAD").strip()
    assert first.startswith("ACTIVE.md: refreshed ") and head[:12] in first
    assert "index fresh" in first
    assert "## Open loops" in rest and "Fix the gate" in rest
    data = json.loads(ok("--home", str(home), "active", "--json"))
    assert data["fresh"] is True and data["content"] == (home / "continuity/ACTIVE.md").read_text()


def test_rollup_commits_a_digest_once(home: Path) -> None:
    ok("--home", str(home), "note", "Dug the beds.", "--title", "Garden")
    label = "{}-W{:02d}".format(*dt.datetime.now(dt.UTC).date().isocalendar()[:2])
    result = json.loads(ok("--home", str(home), "rollup", "--week", label, "--json"))
    assert result["changed"] is True and result["path"] == f"continuity/rollups/{label}.md"
    assert "Dug the beds." in (home / result["path"]).read_text()
    assert git(home, "log", "-1", "--format=%s").strip() == f"rollup: week {label}"
    again = json.loads(ok("--home", str(home), "rollup", "--week", label, "--json"))
    assert again["changed"] is False
    assert "no committed daily notes" in refused(
        "--home", str(home), "rollup", "--week", "2001-W01"
    )
    assert "ISO week" in refused("--home", str(home), "rollup", "--week", "soon")
    hits = json.loads(ok("--home", str(home), "search", "beds", "--kind", "rollup", "--json"))
    assert [h["path"] for h in hits["hits"]] == [result["path"]]


def test_watch_indexes_edits_until_terminated(home: Path) -> None:
    import signal
    import time

    with subprocess.Popen(
        [str(BIN / "hearth"), "--home", str(home), "watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        try:
            assert "rebuilt the index" in proc.stdout.readline()
            assert "watching" in proc.stdout.readline()
            time.sleep(0.2)
            (home / "memory/topics").mkdir(parents=True)
            (home / "memory/topics/wren.md").write_text("# Wren\n\nA tiny loud bird.\n")
            line = proc.stdout.readline()
            assert "1 indexed" in line, line
        finally:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=10) == 0
        assert "Traceback" not in proc.stderr.read()


def test_context_command(home: Path) -> None:
    data = json.loads(ok("--home", str(home), "context", "--json"))
    assert [f["path"] for f in data["files"]][-1] == "continuity/ACTIVE.md"
    assert data["files"][-1]["missing"] is False
    sub = json.loads(ok("--home", str(home), "context", "--session", "subagent", "--json"))
    assert [f["path"] for f in sub["files"]] == ["AGENTS.md", "TOOLS.md"]
    assert "===== AGENTS.md =====" in ok("--home", str(home), "context")
