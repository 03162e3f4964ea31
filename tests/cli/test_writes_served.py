"""Every CLI write goes through the home's one server when one runs (issue 52):
the command sends it and prints the answer as it printed its own, without
opening the home (no libgit2 binding, no second index reader). With no server
it starts one on demand, as the reads do; with ``HEARTH_SERVER=off`` it works
alone (the rest of the suite runs so)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth.client import transport
from tests.api.conftest import Server, make_home

pytestmark = pytest.mark.e2e  # the installed executable in subprocesses

#: (arguments after --home, the line printed, or None for a record's key).
WRITES = [
    (("memory", "add", "MEMORY.md", "Otters sleep holding hands"), "added to MEMORY.md"),
    (
        ("memory", "replace", "MEMORY.md", "Otters sleep holding hands", "Otters hold hands"),
        "replaced in MEMORY.md",
    ),
    (("memory", "remove", "MEMORY.md", "Otters hold hands"), "removed from MEMORY.md"),
    (("loop", "add", "--title", "Otter lanterns", "--summary", "buy wicks"), None),
    (("decide", "--title", "Otter day", "--decision", "Saturdays"), None),
    (("propose", "--title", "Otter facts", "--entry", "Otters use tools"), None),
]


def run(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hearth", "--home", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **env},
    )


def loaded(stderr: str) -> set[str]:
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def answer(stderr: str) -> str:
    return "\n".join(line for line in stderr.splitlines() if not line.startswith("import time:"))


def test_each_write_beside_a_server_is_the_servers(server: Server) -> None:
    """Case: every CLI write goes through the one server when one runs, answering
    as the command did: the command loads neither libgit2 nor the application."""
    for args, said in WRITES:
        done = run(server.root, *args)
        assert done.returncode == 0, answer(done.stderr)
        modules = loaded(done.stderr)
        assert "pygit2" not in modules and "hearth.app" not in modules, args
        line = done.stdout.strip()
        if said is None:
            assert line.startswith("otter-") and "--" in line, line
        else:
            assert line.startswith(f"{said} (commit "), line
    keys = {args[0]: run(server.root, *args, "--json") for args, _ in WRITES[3:]}
    for name, done in keys.items():
        assert done.returncode == 0, answer(done.stderr)
        extra = ["updated"] if name == "loop" else []
        assert list(json.loads(done.stdout)) == ["key", "path", "commit", *extra], name
    loop_key = json.loads(keys["loop"].stdout)["key"]
    done = run(server.root, "loop", "resolve", loop_key, "--note", "done", "--json")
    assert done.returncode == 0, answer(done.stderr)
    assert "pygit2" not in loaded(done.stderr)
    assert json.loads(done.stdout)["key"] == loop_key


def test_a_refusal_is_said_as_before(server: Server) -> None:
    """Case: answering as now. A key that is no record's, and an entry of two
    lines (which the API's schema refuses: the command says why itself)."""
    done = run(server.root, "loop", "resolve", "no-such-key")
    assert (done.returncode, done.stdout) == (1, "")
    assert answer(done.stderr).startswith("hearth: 'no-such-key' is not a record key")
    done = run(server.root, "memory", "add", "MEMORY.md", "two\nlines")
    assert (done.returncode, done.stdout) == (1, "")
    assert answer(done.stderr) == (
        "hearth: an entry is one line; put longer notes in memory/topics/<topic>.md and "
        "leave a one-line pointer here"
    )


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    root = make_home(tmp_path / "home")
    yield root
    found = transport.find(root)
    record = json.loads((root / transport.RECORD).read_text()) if found else None
    if record is not None:
        os.kill(int(record["pid"]), signal.SIGTERM)
        deadline = time.monotonic() + 20
        while transport.alive(int(record["pid"])) and time.monotonic() < deadline:
            time.sleep(0.05)


def test_with_no_server_a_write_starts_one_on_demand(home: Path) -> None:
    """Case: when no server runs, the write starts one, as reads do."""
    assert transport.find(home) is None
    done = run(home, "memory", "add", "MEMORY.md", "Herons nest by the mill", HEARTH_SERVER="on")
    assert done.returncode == 0, answer(done.stderr)
    assert done.stdout.startswith("added to MEMORY.md (commit ")
    assert "pygit2" not in loaded(done.stderr)
    assert transport.find(home) is not None


@pytest.mark.parametrize(
    "args",
    [
        ("topic", "Heron nests", "--content", "By the mill."),
        ("rollup", "--week", "2001-W01"),
        ("consolidate",),
    ],
    ids=["topic", "rollup", "consolidate"],
)
def test_with_no_server_the_new_served_writes_start_one_on_demand(
    home: Path, args: tuple[str, ...]
) -> None:
    """Case: the writes given a route this round (topic, rollup, consolidate...)
    start the home's server on demand when none runs, as the other writes do,
    and their answer (or refusal) is the server's."""
    assert transport.find(home) is None
    done = run(home, *args, HEARTH_SERVER="on")
    assert transport.find(home) is not None
    if args[0] != "rollup":  # a week without notes: a refusal the command says itself
        assert done.returncode == 0, answer(done.stderr)
        assert "pygit2" not in loaded(done.stderr)
    else:
        assert done.returncode == 1 and "2001-W01" in answer(done.stderr)


def test_a_token_is_made_without_starting_a_server(home: Path) -> None:
    """Case: ``token create|list`` with no server running write the tokens file
    themselves and start none (a token is made before a server is served)."""
    made = run(home, "token", "create", "--name", "laptop", "--scope", "write", HEARTH_SERVER="on")
    assert made.returncode == 0 and made.stdout.startswith("hth_"), answer(made.stderr)
    listed = run(home, "token", "list", HEARTH_SERVER="on")
    assert listed.stdout.startswith("laptop  write  ")
    assert transport.find(home) is None


def test_with_the_server_turned_off_a_write_works_alone(home: Path) -> None:
    """Case: ``HEARTH_SERVER=off``: no server is started, the command writes itself."""
    done = run(home, "memory", "add", "MEMORY.md", "Herons nest by the mill", HEARTH_SERVER="off")
    assert done.returncode == 0, answer(done.stderr)
    assert done.stdout.startswith("added to MEMORY.md (commit ")
    assert "pygit2" in loaded(done.stderr)
    assert transport.find(home) is None


def test_merge_and_reject_beside_a_server_are_the_servers(server: Server) -> None:
    """Case: the person's review writes (one key, shown first, and many in one
    commit) through the server."""
    keys = []
    for n in range(3):
        done = run(server.root, "propose", "--title", f"Otter fact {n}", "--entry", f"Fact {n}")
        assert done.returncode == 0, answer(done.stderr)
        keys.append(done.stdout.strip())
    merged = run(server.root, "merge", keys[0])
    rejected = run(server.root, "reject", keys[1], keys[2], "--reason", "not so", "--json")
    for done in (merged, rejected):
        assert done.returncode == 0, answer(done.stderr)
    for done in (merged, rejected):
        assert "pygit2" not in loaded(done.stderr)
    assert f"merged {keys[0]} (commit " in merged.stdout
    batch = json.loads(rejected.stdout)
    assert list(batch) == ["commit", "changed", "keys", "outcome", "added", "skipped"]
    assert (batch["keys"], batch["outcome"]) == (keys[1:], "rejected")


def run_cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command through click, as ``git hearth`` runs it (no lean path)."""
    return subprocess.run(
        [
            *(sys.executable, "-X", "importtime", "-c", "from hearth.cli import main; main()"),
            *("--home", str(root), *args),
        ],
        capture_output=True,
        text=True,
        check=False,
    )


def _named(text: str) -> str:
    return re.sub(r"\b[0-9a-f]{12,40}\b", "HEX", text)


@pytest.mark.parametrize(
    "args",
    [
        ("note", "Otters crossed the lane"),
        ("note", "--title", "Otters", "Kits by the weir", "--json"),
        ("note", "Heron at dawn", "--title=Herons"),
        ("--actor", "agent-7", "note", "Herons again", "--json"),
        ("note", "   "),
        ("memory", "add", "MEMORY.md", "Otters hold hands asleep"),
        ("memory", "add", "--json", "MEMORY.md", "Herons stand still"),
        ("memory", "add", "USER.md", "Likes otters", "--section", "Preferences"),
        ("memory", "add", "no/such/place.md", "An entry"),
    ],
    ids=[
        "plain",
        "title-json",
        "title-equals",
        "actor",
        "refused-blank",
        "memory-add",
        "memory-add-json",
        "memory-add-section",
        "memory-add-refused",
    ],
)
def test_note_and_memory_add_beside_a_server_are_one_request_without_click(
    shared_server: Server, args: tuple[str, ...]
) -> None:
    """Case: ``hearth note`` and ``hearth memory add`` beside a running server are
    one request that loads neither click nor the CLI (``client/write.py``), and
    answer (or refuse) as the command through click does: the same lines, the
    same exit status. (Each run adds its own entry: the second of one text would
    be another answer. The cases share the module's server: no two write the
    same text or title.)"""
    server = shared_server
    through_click = run_cli(server.root, *args)
    mine = tuple(
        f"{a} again"
        if a in ("Otters hold hands asleep", "Herons stand still", "Likes otters")
        else a
        for a in args
    )
    lean = run(server.root, *mine)
    refused = args[-1] == "   " or "no/such/place.md" in args
    if "no/such/place.md" not in args:  # a refusal as input is the CLI's to say
        assert "click" not in loaded(lean.stderr) and "hearth.cli" not in loaded(lean.stderr)
    assert "click" in loaded(through_click.stderr)
    assert lean.returncode == through_click.returncode
    assert _named(lean.stdout) == _named(through_click.stdout)
    assert answer(lean.stderr) == answer(through_click.stderr)
    if not refused:
        assert lean.returncode == 0 and lean.stdout
    else:
        assert lean.returncode == 1 and answer(lean.stderr).startswith("hearth: ")


def test_note_of_another_shape_or_with_no_server_is_the_clis(home: Path) -> None:
    """Case: what the lean path does not take is the CLI's, as before: a usage
    error (no TEXT), and a note with no server running (here turned off)."""
    usage = run(home, "note", HEARTH_SERVER="off")
    assert usage.returncode == 2 and "Missing argument 'TEXT'" in answer(usage.stderr)
    alone = run(home, "note", "Otters", HEARTH_SERVER="off")
    assert alone.returncode == 0 and alone.stdout.startswith("appended to memory/")
    assert "click" in loaded(alone.stderr) and "pygit2" in loaded(alone.stderr)


def test_the_lean_note_makes_the_servers_local_token() -> None:
    """The lean path spells a local token as the store does (the server parses it)."""
    from hearth.client import write
    from hearth.store import server_file

    assert write.LOCAL_TOKEN_PREFIX == server_file.LOCAL_TOKEN_PREFIX


def test_a_write_to_a_stopped_server_gives_up_and_lands_once(
    server: Server, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Case (hostile follow-up 1): ``kill -STOP`` the server, then ``hearth note``:
    the command waited 600 s. It gives up after its bound (shortened here) with
    exit 1 and a message saying the write may still land, no traceback; and when
    the server resumes the note is written once (never sent a second time)."""
    from hearth.cli import _run
    from hearth.client import delegate

    monkeypatch.setattr(delegate, "WRITE_SECONDS", 1.0)
    os.kill(server.proc.pid, signal.SIGSTOP)
    try:
        code = _run(["--home", str(server.root), "note", "Stopped otters sleep"])
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)
    err = capsys.readouterr().err
    assert code == 1, err
    assert "did not answer in 1 s; it may still write it; check 'hearth status'" in err
    assert "Traceback" not in err

    def written() -> int:
        return sum(
            path.read_text().count("Stopped otters sleep")
            for path in (server.root / "memory").glob("*.md")
        )

    deadline = time.monotonic() + 20
    while written() == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # a second write, were one sent, would land by now
    assert written() == 1


def test_the_lean_note_to_a_stopped_server_gives_up_at_the_same_bound(
    server: Server, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The lean path (``client/write.py``, what ``hearth --home H note TEXT``
    runs beside a server) waited 600 s for a stopped server where the CLI's
    path gives up at its bound: the same bound, the same words, and the note
    lands once when the server resumes."""
    from hearth.client import transport, write

    monkeypatch.setattr(transport, "WRITE_SECONDS", 1.0)
    asked = write.shape(str(server.root), None, ["note", "Stopped herons wait"])
    assert asked is not None
    os.kill(server.proc.pid, signal.SIGSTOP)
    try:
        code = write.run(asked)
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)
    err = capsys.readouterr().err
    assert code == 1, err
    assert "did not answer in 1 s; it may still write it; check 'hearth status'" in err

    def written() -> int:
        return sum(
            path.read_text().count("Stopped herons wait")
            for path in (server.root / "memory").glob("*.md")
        )

    deadline = time.monotonic() + 20
    while written() == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # a second write, were one sent, would land by now
    assert written() == 1
