"""``hearth agent-hook`` beside a running server is one request of a lean process
(issue 52, "the prompt hook in 60 ms"): the launcher reaches the server without
loading click, the CLI, pydantic or the application, and prints what the
command prints, byte for byte. Whatever the lean path cannot take (no server,
a server that does not answer the hook, input that is not JSON) goes to the
command as before, with the input it read handed over."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth.client import transport
from hearth.store import state
from tests.api.conftest import Server
from tests.cli.test_delegate_answers import KEY, Peer, _Handler, home  # noqa: F401  (fixtures)

pytestmark = pytest.mark.e2e  # the installed executable in subprocesses

BIN = Path(sys.executable).parent
LANTERNS = "# Otters\n\nLanterns for the otter fundraiser.\n"
PROMPT = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "otter lanterns?"})
NOTHING = json.dumps({"prompt": "zyzzyva quux"})
START = json.dumps({"hook_event_name": "SessionStart", "source": "startup"})
#: What the lean path must not load (the command's own start-up).
#: Each text's fence draws a random salt (a recalled note cannot carry the next
#: one): two answers are the same bytes once their fences are named alike.
FENCE = re.compile(r"(fence,? )[0-9a-f]{16}")

HEAVY = ("click", "pydantic", "fastapi", "hearth.cli", "hearth.app", "hearth.wiring", "pygit2")


def run(
    *args: str, stdin: str, cwd: Path | None = None, python_flags: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *python_flags, "-m", "hearth", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def imported(stderr: str) -> set[str]:
    """The modules ``python -X importtime`` says it imported."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    } - {"package"}


def note(server: Server, text: str) -> None:
    reply = server.post("/v1/daily", {"text": text}, token="write")
    assert reply.status == 200, reply.body


def test_the_prompt_hook_beside_a_server_loads_neither_click_nor_the_cli(
    shared_server: Server,
) -> None:
    """Case: the hook reaches the server without click, the CLI, pydantic or the app.
    (The module's server: this case and the refusal below leave it running.)"""
    server = shared_server
    note(server, "Lanterns for the otter fundraiser")
    done = run(
        "--home",
        str(server.root),
        "agent-hook",
        "claude-code",
        "prompt",
        stdin=PROMPT,
        python_flags=("-X", "importtime"),
    )
    assert done.returncode == 0, done.stderr
    assert "Lanterns for the otter fundraiser" in done.stdout
    loaded = imported(done.stderr)
    assert "hearth.client.hook" in loaded
    assert not {m for m in loaded if any(m == h or m.startswith(f"{h}.") for h in HEAVY)}


@pytest.mark.parametrize(
    ("event", "stdin"),
    [
        ("prompt", PROMPT),
        ("prompt", json.dumps({"prompt": "zyzzyva quux"})),
        ("session-start", START),
    ],
    ids=["recall", "nothing recalled", "session start"],
)
def test_the_lean_answer_is_the_commands_byte_for_byte(
    server: Server, event: str, stdin: str
) -> None:
    """Case: the output does not change. The lean path (``--home``), the command
    asking the server itself (the home found from the working folder), and the
    command with no server (the home opened in-process) print the same bytes."""
    note(server, "Lanterns for the otter fundraiser")
    lean = run("--home", str(server.root), "agent-hook", "codex", event, stdin=stdin)
    command = run("agent-hook", "codex", event, stdin=stdin, cwd=server.root)
    assert server.stop() == 0
    alone = run("agent-hook", "codex", event, stdin=stdin, cwd=server.root)
    assert lean.returncode == command.returncode == alone.returncode == 0
    same = [FENCE.sub(r"\1F", out.stdout) for out in (lean, command, alone)]
    assert same[0] == same[1] == same[2]
    assert (lean.stdout == "") == (stdin == NOTHING)


def test_input_that_is_not_json_is_refused_as_before_beside_a_server(
    shared_server: Server,
) -> None:
    """Case: never fails the turn. The server refuses the input, the lean path
    hands it to the command, which says why on stderr, prints nothing, exits 0."""
    server = shared_server
    done = run("--home", str(server.root), "agent-hook", "gemini", "prompt", stdin="not json")
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr.startswith("hearth agent-hook: JSONDecodeError(")


@pytest.mark.parametrize(
    ("hook_status", "asked_again"),
    [(404, True), (503, False)],
    ids=["no hook route (an older server)", "not current (503)"],
)
def test_a_server_that_does_not_answer_the_hook_leaves_it_to_the_command(
    home: Path,  # noqa: F811
    peer: Peer,
    hook_status: int,
    asked_again: bool,
) -> None:
    """Case: fallback. A server without the hook's route (an older hearth's still
    running after an upgrade) is asked the old way; one that said it has no
    current answer (503) is not asked again. Either way the command answers from
    the same input, here with the home opened itself (the peer's status is not
    current)."""
    (home / "memory/topics/otters.md").write_text(LANTERNS)
    peer.answers = {
        "/v1/hooks/agent/": (hook_status, {"error": {"code": "x", "message": "x"}}),
        "/v1/status": (200, {"snapshot": {"current": False}}),
    }
    done = run("--home", str(home), "agent-hook", "claude-code", "prompt", stdin=PROMPT)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Lanterns for the otter fundraiser" in answer
    assert peer.asked[0] == "POST /v1/hooks/agent/claude-code/prompt"
    assert ("/v1/status" in peer.asked) == asked_again


class _Posts(_Handler):
    """The peer's handler, answering POSTs from the same table (and noting them)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.asked.append(f"POST {self.path}")
        status, body = next(
            (a for prefix, a in self.server.answers.items() if self.path.startswith(prefix)),
            (404, {}),
        )
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def peer(home: Path) -> Iterator[Peer]:  # noqa: F811
    server = Peer(("127.0.0.1", 0), _Posts)
    server.answers, server.asked = {}, []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    record = {"pid": os.getpid(), "url": f"http://127.0.0.1:{server.server_port}", "hook_key": KEY}
    (home / ".git" / state.FOLDER / state.SERVER).write_text(json.dumps(record))
    yield server
    server.shutdown()
    server.server_close()


def test_no_server_leaves_stdin_to_the_command(tmp_path: Path) -> None:
    """Case: no server runs (and none may be started): the command reads the input."""
    root = tmp_path / "home"
    subprocess.run([str(BIN / "hearth"), "init", str(root)], check=True, capture_output=True)
    (root / "memory/topics").mkdir(parents=True)
    (root / "memory/topics/otters.md").write_text(
        "# Otters\n\nLanterns for the otter fundraiser.\n"
    )
    assert os.environ["HEARTH_SERVER"] == "off"
    done = run("--home", str(root), "agent-hook", "codex", "prompt", stdin=PROMPT)
    assert done.returncode == 0, done.stderr
    assert "Lanterns for the otter fundraiser" in done.stdout


def test_the_record_the_lean_client_reads_is_the_stores() -> None:
    """The lean client spells ``.git/hearth/server.json`` itself (no store import)."""
    assert Path(transport.RECORD) == Path(".git", state.FOLDER, state.SERVER)


def test_a_stopped_server_gets_the_turn_no_answer_within_the_hooks_bound(
    server: Server, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Case (hostile follow-up 1): a server that took the hook's request and does
    not answer (``kill -STOP``) held the turn 10 s, and then the command asked it
    again and opened the home itself. The hook gives up after its bound
    (shortened here) and the turn goes on with no answer, the reason on stderr."""
    import io
    import signal

    from hearth.client import hook

    monkeypatch.setattr(hook, "TIMEOUT", 1.0)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(PROMPT.encode())))
    os.kill(server.proc.pid, signal.SIGSTOP)
    try:
        printed = hook.run(str(server.root), "claude-code", "prompt")
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)
    out, err = capsys.readouterr()
    assert printed and out == ""
    assert "did not answer in 1 s; this turn goes on without recall" in err
