"""Shared fixtures: real homes in temporary folders, the real git CLI, a fake clock."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from hearth import wiring
from hearth.app.usecases import Hearth
from hearth.app.writes.home import HomeWrites
from hearth.domain.sections import split_sections
from hearth.index import ranking
from hearth.index.hits import Hit
from hearth.index.question import question
from hearth.index.search_index import SearchIndex
from hearth.store.rooted import RootedFiles

# Keyword ranking only, so no test (nor server it starts, whatever the fixture's
# scope) loads the embedding model or fills vectors in the background;
# tests/index/test_hybrid.py turns semantic ranking on for its reconcilers.
os.environ["HEARTH_SEMANTIC"] = "off"
# No client a test runs starts a server of its own in the background: each
# works as before on its own (tests/e2e/test_one_server.py turns it on, and
# stops every server it started).
os.environ["HEARTH_SERVER"] = "off"

#: Tiers (``make check`` runs neither; ``make test`` and CI run everything):
#: ``e2e`` starts processes of hearth's or drives outside parts (the installed CLI
#: in subprocesses, a real ``hearth serve``, Chromium, the runtimes' CLIs from npm,
#: the Rust oracle), ``slow`` is long by design (schemathesis, the torture rounds).
#: A test is e2e by where it lives (the folders below), by the fixtures it takes
#: (a real server), or by a ``pytest.mark.e2e`` of its own or of its module.
E2E_FOLDERS = ("e2e", "ui")
E2E_FIXTURES = ("server", "shared_server")
SLOW_FOLDERS = ("torture",)
SLOW_TESTS = ("test_schemathesis_finds_no_failure_with_every_check",)

#: ``make check`` sets HEARTH_TESTS=check: property tests try a tenth of their
#: examples there (at least 10; the ``check`` profile for those that name no count),
#: and every one of them under ``make test``.
CHECK_TIER = os.environ.get("HEARTH_TESTS") == "check"
# No per-example deadline: Hypothesis's 200 ms is a timing assertion, and a
# loaded machine (CI, the suite's four processes) failed a property test on it.
settings.register_profile("suite", deadline=None)
settings.register_profile("check", parent=settings.get_profile("suite"), max_examples=10)
settings.load_profile("check" if CHECK_TIER else "suite")


#: ``make torture`` sets HEARTH_TORTURE=long: a property test given a ``suite`` count
#: (one that costs seconds of CPU an example's worth more than the rest) tries its
#: ``full`` count there, marked ``torture``.
LONG_TIER = os.environ.get("HEARTH_TORTURE") == "long"


def examples(full: int, suite: int | None = None) -> int:
    """How many examples a property test tries: ``full``; a tenth under ``make
    check``; ``suite`` under ``make test`` when given (``full`` under ``make torture``)."""
    if CHECK_TIER:
        return max(10, full // 10)
    return full if suite is None or LONG_TIER else suite


def stop_servers_started_on_demand(under: Path) -> list[int]:
    """SIGTERM every ``hearth serve --on-demand`` whose home lies under ``under``.

    The suite runs with ``HEARTH_SERVER=off``, but a runtime under test may start
    ``hearth mcp`` with an environment of its own (OpenClaw's MCP servers, Gemini
    CLI's sanitized one), and that relay then starts the home's server. Such a
    server idles out after half an hour; a test's must stop with the test."""
    import signal

    stopped = []
    prefix = str(under.resolve())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = [
                a.decode(errors="replace") for a in (entry / "cmdline").read_bytes().split(b"\0")
            ]
        except OSError:
            continue
        if "--on-demand" not in argv or "--home" not in argv:
            continue
        home = argv[argv.index("--home") + 1] if argv.index("--home") + 1 < len(argv) else ""
        if home.startswith(prefix):
            with contextlib.suppress(OSError):
                os.kill(int(entry.name), signal.SIGTERM)
                stopped.append(int(entry.name))
    return stopped


@pytest.fixture(autouse=True)
def _no_server_outlives_its_test(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    if request.node.get_closest_marker("e2e") is not None:
        stop_servers_started_on_demand(request.config._tmp_path_factory.getbasetemp())  # type: ignore[attr-defined]


def pytest_configure(config: pytest.Config) -> None:
    """Compile hearth's modules once, before any test starts a process of hearth's.

    The suite starts about 2,000 Pythons (the CLI, servers, git hooks), each
    importing dozens to hundreds of hearth's modules. Where bytecode is not
    written (PYTHONDONTWRITEBYTECODE, as some sandboxes set), each compiled
    every module it imports anew: a third of a pre-commit check's or a
    background pass's CPU. Python still reads bytecode that is there, and
    checks it against the source's time and size, so an edit never runs stale."""
    # Test modules, as pytest rewrites their asserts, are cached the same way
    # (gitignored __pycache__): each of the suite's processes collects every
    # module, 11 s of CPU uncached against 5 s from the cache of an earlier run.
    sys.dont_write_bytecode = False
    if hasattr(config, "workerinput"):
        return  # the controller compiled them before it started this worker
    import compileall

    import hearth

    compileall.compile_dir(Path(hearth.__file__).parent, quiet=2)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        parts = item.path.relative_to(Path(__file__).parent).parts
        uses = set(getattr(item, "fixturenames", ()))
        if parts[0] in E2E_FOLDERS or uses & set(E2E_FIXTURES):
            item.add_marker(pytest.mark.e2e)
        if parts[0] in SLOW_FOLDERS or item.originalname in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Pat Person",
    "GIT_AUTHOR_EMAIL": "pat@example.invalid",
    "GIT_COMMITTER_NAME": "Pat Person",
    "GIT_COMMITTER_EMAIL": "pat@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@pytest.fixture(autouse=True)
def _isolated_env(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads the developer's git config or default home."""
    fake_home = tmp_path_factory.mktemp("userhome")
    monkeypatch.setenv("HOME", str(fake_home))
    monkeypatch.delenv("HEARTH_HOME", raising=False)
    monkeypatch.delenv("HEARTH_ACTOR", raising=False)
    for name, value in GIT_IDENTITY.items():
        monkeypatch.setenv(name, value)


class FakeClock:
    """The one seam that is faked: time. Advances a minute per reading."""

    def __init__(self, start: dt.datetime) -> None:
        self.now = start

    def __call__(self) -> dt.datetime:
        current = self.now
        self.now += dt.timedelta(minutes=1)
        return current


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(dt.datetime(2026, 11, 22, 9, 30, tzinfo=dt.UTC))


def git(root: Path, *args: str, check: bool = True) -> str:
    """Run the real git CLI in ``root`` and return its stdout."""
    proc = subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, env=os.environ.copy(), check=False
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


@dataclass
class Workspace:
    root: Path
    app: Hearth

    @property
    def home(self) -> HomeWrites:
        return self.app.writes

    def git(self, *args: str, check: bool = True) -> str:
        return git(self.root, *args, check=check)

    def commits(self) -> list[str]:
        return self.git("rev-list", "HEAD").split()

    def porcelain(self) -> str:
        return self.git("status", "--porcelain", "--untracked-files=all")

    def write(self, path: str, text: str) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def read(self, path: str) -> str:
        return (self.root / path).read_text()

    def reopen(self) -> Hearth:
        """The home opened again, as a new process would (a fresh reconciler)."""
        self.app = wiring.open_app(self.root, self.home.clock)
        return self.app


@pytest.fixture
def workspace(tmp_path: Path, clock: FakeClock) -> Iterator[Workspace]:
    root = tmp_path / "home"
    wiring.initialize(root, clock)
    app = wiring.open_app(root, clock)
    yield Workspace(root, app)
    app.writes.files.close()


def settle_point(root: Path) -> str:
    """Mark the end of a burst of changes made behind hearth's back: the time now
    (as the server's status snapshot writes ``as_of``), then one more file, so a
    pass, and a snapshot after it, surely follow."""
    since = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")
    (root / "settle-mark.md").write_text(f"# Settle\n\n{since}\n")
    return since


def consistent_since(status: dict[str, Any], since: str) -> bool:
    """A status snapshot taken after ``since`` (so it listed the files as they are
    now) that is current and says the index holds every file on disk."""
    index, snapshot = status["index"], status.get("snapshot") or {}
    return (
        str(snapshot.get("as_of") or "") >= since
        and bool(index["fresh"])
        and index["files_on_disk"] == index["files_indexed"]
    )


def indexed_files(folder: Path, files: Mapping[str, str]) -> SearchIndex:
    """A bare index of ``files``: written under ``folder/home`` (hits' bodies
    are read from the files, as a home's are), indexed in ``folder/live``."""
    home = folder / "home"
    for path, text in files.items():
        target = home / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    index = SearchIndex.create(folder / "live")
    index.read = RootedFiles(home).read_many
    index.apply({path: split_sections(path, text) for path, text in files.items()}, ())
    return index


def keyword_search(
    index: SearchIndex,
    text: str,
    kind: str | None = None,
    path_prefix: str | None = None,
    limit: int = 10,
) -> list[Hit]:
    """Keyword search of a bare index through the ranking pipeline (the
    dates a question names: absolute ones only, without a clock)."""
    return ranking.keyword_search(index, question(text, kind, path_prefix, limit))
