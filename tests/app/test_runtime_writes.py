"""Committing what a runtime's agent writes itself, once it settles (real git,
real files; ``app/served/runtime_writes.py``, docs/runtimes.md)."""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth import wiring
from hearth.app.served.runtime_writes import RuntimeWriteCommits
from hearth.domain.runtime_writes import RuntimeWrites, parse_runtime_writes
from hearth.domain.settings import parse_settings
from hearth.errors import InvalidInput
from hearth.store.trust import CommandTrust
from tests.conftest import Workspace

SECRET = "aws AKIAIOSFODNN7EXAMPLE here"


def _old(root: Path, *paths: str) -> None:
    """Date files a minute back: quiet for longer than any settle time."""
    back = time.time() - 60
    for path in paths:
        os.utime(root / path, (back, back))


@pytest.fixture
def writes(workspace: Workspace) -> Iterator[RuntimeWriteCommits]:
    writes = workspace.home
    committer = RuntimeWriteCommits(writes.parts, RuntimeWrites("openclaw", True))
    yield committer
    committer.stop()


def _trailers(workspace: Workspace, rev: str = "HEAD") -> str:
    return workspace.git("log", "-1", "--format=%B", rev)


def test_a_settled_daily_note_becomes_one_commit_by_openclaw(
    workspace: Workspace, writes: RuntimeWriteCommits
) -> None:
    before = workspace.commits()
    workspace.write("memory/2026-11-27.md", "# 2026-11-27\n\n- walked the otters\n")
    workspace.write("MEMORY.md", workspace.read("MEMORY.md") + "\n- Pat likes otters\n")
    _old(workspace.root, "memory/2026-11-27.md", "MEMORY.md")
    writes.hint(None)
    done = writes.settle()
    assert done.commit is not None and set(done.paths) == {"memory/2026-11-27.md", "MEMORY.md"}
    assert len(workspace.commits()) == len(before) + 1
    message = _trailers(workspace)
    assert "Hearth-Actor: openclaw" in message and "Hearth-Op: runtime.write" in message
    assert workspace.git("show", "--name-only", "--format=", "HEAD").split() == [
        "MEMORY.md",
        "memory/2026-11-27.md",
    ]
    assert workspace.porcelain() == ""
    # Nothing more to commit: a second settle changes nothing.
    writes.hint(None)
    assert writes.settle().commit is None
    assert len(workspace.commits()) == len(before) + 1


def test_only_named_paths_and_never_a_persons_staged_work(
    workspace: Workspace, writes: RuntimeWriteCommits
) -> None:
    workspace.write("SOUL.md", workspace.read("SOUL.md") + "\nstaged by Pat\n")
    workspace.git("add", "SOUL.md")
    workspace.write("USER.md", workspace.read("USER.md") + "\n- staged by Pat too\n")
    workspace.git("add", "USER.md")
    workspace.write("notes.md", "# Notes\n\nnot OpenClaw's\n")
    workspace.write("memory/topics/otters.md", "# Otters\n\nhearth's topic, not named\n")
    workspace.write("memory/2026-11-27.md", "# 2026-11-27\n\n- named\n")
    _old(workspace.root, "notes.md", "memory/topics/otters.md", "memory/2026-11-27.md", "USER.md")
    writes.hint({"notes.md", "memory/topics/otters.md", "USER.md"})
    writes.hint(None)
    done = writes.settle()
    assert done.paths == ("memory/2026-11-27.md",)
    assert workspace.git("show", "--name-only", "--format=", "HEAD").split() == [
        "memory/2026-11-27.md"
    ]
    assert "USER.md" in done.refused and "staged" in done.refused["USER.md"]
    status = workspace.git("status", "--porcelain")
    assert "M  SOUL.md" in status and "M  USER.md" in status  # still staged, untouched
    assert "?? notes.md" in status and "?? memory/topics/" in status
    assert any("USER.md" in line for line in writes.attention())


def test_a_file_that_fails_validation_is_left_out_and_shown(
    workspace: Workspace, writes: RuntimeWriteCommits
) -> None:
    workspace.write("memory/2026-11-26.md", f"# 2026-11-26\n\n{SECRET}\n")
    workspace.write("memory/2026-11-27.md", "# 2026-11-27\n\n- fine\n")
    _old(workspace.root, "memory/2026-11-26.md", "memory/2026-11-27.md")
    writes.hint({"memory/2026-11-26.md", "memory/2026-11-27.md"})
    done = writes.settle()
    assert done.paths == ("memory/2026-11-27.md",)
    assert "secret" in done.refused["memory/2026-11-26.md"]
    assert workspace.git("ls-tree", "HEAD", "memory/2026-11-26.md") == ""
    shown = writes.as_dict()
    assert shown["refused"] == [
        {"path": "memory/2026-11-26.md", "reason": done.refused["memory/2026-11-26.md"]}
    ]
    # Fixed, it is committed and no longer shown.
    workspace.write("memory/2026-11-26.md", "# 2026-11-26\n\n- key removed\n")
    _old(workspace.root, "memory/2026-11-26.md")
    writes.hint({"memory/2026-11-26.md"})
    assert writes.settle().paths == ("memory/2026-11-26.md",)
    assert writes.attention() == []


def test_a_file_still_being_written_waits(
    workspace: Workspace, writes: RuntimeWriteCommits
) -> None:
    before = workspace.commits()
    workspace.write("memory/2026-11-27.md", "# 2026-11-27\n\n- half\n")  # modified just now
    writes.hint({"memory/2026-11-27.md"})
    assert writes.settle().waiting
    assert workspace.commits() == before
    _old(workspace.root, "memory/2026-11-27.md")
    assert writes.settle().paths == ("memory/2026-11-27.md",)


def test_a_removed_file_is_not_committed_as_removed(
    workspace: Workspace, writes: RuntimeWriteCommits
) -> None:
    workspace.home.note("kept in HEAD", None, "cli")
    daily = next(p for p in workspace.git("ls-files", "memory").split() if p.count("/") == 1)
    (workspace.root / daily).unlink()
    writes.hint({daily})
    assert writes.settle().commit is None
    assert workspace.git("ls-tree", "--name-only", "HEAD", daily).strip() == daily


def test_the_served_home_commits_in_the_background(workspace: Workspace) -> None:
    settings = workspace.read("hearth.toml") + (
        "\n[runtimes.openclaw]\ncommit_writes = true\nsettle_seconds = 0.3\n"
    )
    workspace.home.put("hearth.toml", settings.encode(), "cli")
    # This machine set it up (``hearth setup openclaw`` records it so).
    (rules,) = parse_settings(settings).committed_writes()
    trust = CommandTrust(workspace.root, workspace.root / ".git" / "hearth")
    trust.approve_writes("openclaw", rules.paths, dt.datetime.now(dt.UTC))
    service = wiring.open_service(workspace.root)
    service.start()
    try:
        before = len(workspace.commits())
        workspace.write("memory/TODAY.md", "# Today\n\n- OpenClaw wrote this\n")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(workspace.commits()) == before:
            time.sleep(0.1)
        assert len(workspace.commits()) == before + 1
        assert "Hearth-Actor: openclaw" in _trailers(workspace)
        assert service.status().as_dict()["runtime_writes"][0]["commits"] == 1
        assert "memory/TODAY.md" not in workspace.porcelain()
        found = service.search("OpenClaw wrote", None, None, 5)
        assert any(hit.path == "memory/TODAY.md" for hit in found.hits)
    finally:
        service.stop()


def test_the_setting_is_off_unless_turned_on() -> None:
    assert parse_settings("").committed_writes() == ()
    on = parse_settings("[runtimes.openclaw]\ncommit_writes = true\n")
    (rules,) = on.committed_writes()
    assert rules.actor == "openclaw" and rules.settle_seconds == 2.0
    assert rules.names("memory/2026-11-27.md") and rules.names("MEMORY.md")
    assert rules.names("memory/dreaming/deep/2026-11-27.md")
    assert not rules.names("memory/topics/otters.md")
    assert not rules.names("hearth.toml") and not rules.names("continuity/ACTIVE.md")
    assert not rules.names("memory/.hidden.md")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"claude": {"commit_writes": True}}, "openclaw only"),
        ({"openclaw": {"commit_writes": "yes"}}, "true or false"),
        ({"openclaw": {"paths": ["hearth.toml"]}}, "not a markdown path"),
        ({"openclaw": {"paths": ["../x.md"]}}, "not a markdown path"),
        ({"openclaw": {"paths": ["continuity/ACTIVE.md"]}}, "not a markdown path"),
        ({"openclaw": {"settle_seconds": 0}}, "settle_seconds"),
        ({"openclaw": {"commit": True}}, "unknown keys"),
    ],
)
def test_bad_settings_are_refused(table: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        parse_runtime_writes(table)  # type: ignore[arg-type]
