"""The hooks package's parts: git's listing, the lean import set, the shims, the
background pass's coalescing (real git, real files, real processes)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hearth import wiring
from hearth.errors import InvalidInput
from hearth.hooks.install import HOOK_NAMES, shim_text
from hearth.hooks.staged import StagedFiles, parse_listing, staged_failures, unquote
from tests.conftest import git

ZERO = "0" * 40


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    wiring.initialize(root)
    return root


def test_unquote_reverses_gits_c_quoting() -> None:
    assert unquote(b"plain/path.md") == b"plain/path.md"
    assert unquote(b'"a\\tb\\nc\\"d\\\\e"') == b'a\tb\nc"d\\e'
    assert unquote(b'"\\303\\274.md"') == "ü.md".encode()
    with pytest.raises(InvalidInput):
        unquote(b'"dangling\\"')
    with pytest.raises(InvalidInput):
        unquote(b'"\\q"')


def test_parse_listing_reads_modes_ids_and_deletions() -> None:
    oid = "1" * 40
    raw = (
        f":000000 100644 {ZERO} {oid} A\tnew.md\n"
        f":100644 000000 {oid} {ZERO} D\tgone.md\n"
        f':100644 100644 {oid} {oid} M\t"t\\tab.md"\n'
    ).encode()
    staged = parse_listing(raw)
    assert [(s.path, s.mode, s.oid, s.deleted) for s in staged] == [
        ("new.md", "100644", oid, False),
        ("gone.md", "000000", ZERO, True),
        ("t\tab.md", "100644", oid, False),
    ]
    cut = f":100644 100644 {oid} {oid} M\tMEMORY.md\n".encode()[:-2]  # "MEMORY.m"
    for bad in (b"garbage\n", b":100644 100644 a b\tx\n", b":1 2 3 4 M no-tab\n", cut):
        with pytest.raises(InvalidInput):
            parse_listing(bad)


def test_bounds_come_from_the_hearth_toml_the_commit_holds() -> None:
    memory = ("MEMORY.md", "m" * 40, b"# Memory\n\n" + b"x" * 300 + b"\n")
    tight = ("hearth.toml", "t" * 40, b"[bounds]\nmemory_md = 100\n")
    blobs = {memory[1]: memory[2], tight[1]: tight[2]}

    def listed(*items: tuple[str, str, bytes], deleted: str = "") -> bytes:
        lines = [f":100644 100644 {ZERO} {oid} M\t{path}\n" for path, oid, _ in items]
        if deleted:
            lines.append(f":100644 000000 {tight[1]} {ZERO} D\t{deleted}\n")
        return "".join(lines).encode()

    def rules(raw: bytes, head: bytes | None) -> list[str]:
        failures = staged_failures(parse_listing(raw), blobs.get, lambda: head)
        return [f.rule for f in failures]

    assert rules(listed(memory), None) == []  # default bounds
    assert rules(listed(memory, tight), None) == ["size-bound"]  # staged hearth.toml
    assert rules(listed(memory), tight[2]) == ["size-bound"]  # HEAD's hearth.toml
    assert rules(listed(memory, deleted="hearth.toml"), tight[2]) == []  # deleted: defaults


def test_staged_files_on_a_repository_without_commits(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "SOUL.md").write_text("short\n")
    (root / ".env").write_text("X=1\n")
    git(root, "add", "-A")
    rules = sorted((f.path, f.rule) for f in StagedFiles(root).failures())
    assert rules == [(".env", "secret-file"), ("SOUL.md", "soul-length")]


def test_the_lean_check_imports_nothing_heavy() -> None:
    heavy = {"pygit2", "tantivy", "fastapi", "pydantic", "uvicorn", "watchfiles"}
    heavy |= {"apscheduler", "numpy", "click", "yaml", "starlette"}
    code = (
        "import json, sys\nimport hearth.hooks.precommit\nprint(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = set(json.loads(out))
    assert "hearth.hooks.staged" in loaded
    assert not {m.split(".")[0] for m in loaded} & heavy
    inner = ("hearth.store", "hearth.index", "hearth.reconcile", "hearth.wiring")
    assert not {m for m in loaded if m.startswith(inner)}


def test_a_commit_of_ordinary_notes_reads_no_settings_and_no_yaml(home: Path) -> None:
    (home / "memory/topics").mkdir(parents=True, exist_ok=True)
    (home / "memory/topics/moths.md").write_text("# Moths\n\nDrawn to the porch light.\n")
    git(home, "add", "-A")
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from hearth.hooks.precommit import pre_commit\n"
        "code = pre_commit(Path(sys.argv[1]))\n"
        "print(json.dumps([code, sorted(sys.modules)]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-P", "-c", code, str(home)], capture_output=True, text=True, check=True
    ).stdout
    status, loaded = json.loads(out)
    assert status == 0
    assert not {"hearth.domain.settings", "tomllib", "yaml", "hearth.domain.records"} & set(loaded)


def test_every_shim_names_the_interpreter_and_its_hook() -> None:
    python = "/opt/some where/python3"
    for name in HOOK_NAMES:
        text = shim_text(name, python, "/usr/bin/bash")
        assert "@" not in text.replace("$@", "")  # every placeholder filled
        assert "'/opt/some where/python3'" in text and "Installed by hearth" in text
        if name == "pre-commit":
            assert text.startswith("#!/usr/bin/bash\n") and "hearth.hooks.precommit" in text
        else:
            assert text.startswith("#!/bin/sh\n") and f"hearth.hooks.background {name}" in text
    assert shim_text("pre-commit", python, None).startswith("#!/bin/sh\n")


NASTY_PATHS = (
    "/opt/it's/python3",
    '/opt/say "hi"/python3',
    "/opt/$(touch owned)/python3",
    "/opt/`touch owned` $HOME/python3",
    "/opt/a b\\c/python3",
)


@pytest.mark.parametrize("python", NASTY_PATHS)
def test_a_shim_parses_and_runs_nothing_from_its_interpreters_path(
    python: str, tmp_path: Path
) -> None:
    """Issue 49 case 9: a path holding a quote, a space, a '$' or a backquote is
    quoted: each shim parses under its shell, and when that Python is gone it
    says so with the path as it is, runs nothing from it and lets git go on."""
    for name in HOOK_NAMES:
        shim = tmp_path / name
        shim.write_text(shim_text(name, python, shutil.which("bash")))
        shim.chmod(0o755)
        (tmp_path / ".git" / "hearth" / "index").mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [str(shim)], cwd=tmp_path, capture_output=True, text=True, check=False, timeout=60
        )
        assert done.returncode == 0, (name, done.stderr)
        assert f"skipped: {python} is gone" in done.stderr, (name, done.stderr)
        assert not (tmp_path / "owned").exists()


def _background(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-P", "-m", "hearth.hooks.background", "post-commit", str(root)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_a_background_pass_waiting_to_start_covers_the_next_one(home: Path) -> None:
    wiring.open_app(home).reconcile()
    (home / "memory/topics").mkdir(parents=True, exist_ok=True)
    (home / "memory/topics/wrens.md").write_text("# Wrens\n\nLoud for their size.\n")
    git(home, "add", "-A")
    git(home, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "wrens")
    log = home / ".git/hearth/hooks.log"
    with open(home / ".git/hearth/hooks.pending", "a") as claim:
        fcntl.flock(claim, fcntl.LOCK_EX)  # as a pass that has not started scanning
        skipped = _background(home)
    assert skipped.returncode == 0 and not log.exists()
    ran = _background(home)
    assert ran.returncode == 0, ran.stderr
    assert "post-commit: hearth: indexed 1 changed" in log.read_text()
    fresh = wiring.open_app(home).reconciler
    assert [h.path for h in fresh.catch_up().search("wrens").hits] == ["memory/topics/wrens.md"]


def test_with_a_server_running_a_commit_nudges_for_itself_and_a_merge_for_everything(
    home: Path,
) -> None:
    """The post shims with a live server (this process's pid in server.json):
    post-commit asks for a pass over what the commit changed (``nudge-commit``,
    which the server's watcher turns into a pass over the files HEAD's move
    changed); the hooks that change the work tree ask for a full pass."""
    state = home / ".git/hearth"
    state.mkdir(parents=True, exist_ok=True)
    (state / "server.json").write_text(
        json.dumps({"url": "http://127.0.0.1:9", "pid": os.getpid()})
    )
    python = sys.executable
    for name, nudged, spared in (
        ("post-commit", "nudge-commit", "nudge"),
        ("post-merge", "nudge", "nudge-commit"),
    ):
        for leftover in ("nudge", "nudge-commit"):
            (state / leftover).unlink(missing_ok=True)
        shim = home / f"{name}.sh"
        shim.write_text(shim_text(name, python, None))
        said = subprocess.run(
            ["sh", str(shim)], cwd=home, capture_output=True, text=True, check=True
        ).stdout
        assert said.startswith("hearth: told the server to reconcile"), said
        assert (state / nudged).exists() and not (state / spared).exists(), name
