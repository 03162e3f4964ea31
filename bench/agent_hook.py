"""Time ``hearth agent-hook`` as a runtime runs it, with and without a server.

    .venv/bin/python bench/agent_hook.py [--files 1000] [--rounds 20] [--runtime claude-code]

A home with ``--files`` generated topic files and one daily note. Each round
runs, as a runtime's hook would (a fresh process, the hook JSON on stdin, the
answer read from stdout):

- ``agent-hook RUNTIME session-start`` (the persona bundle);
- ``agent-hook RUNTIME prompt`` (the recall for a prompt that finds the note);

first with no server (the command opens the home itself), then with
``hearth serve`` running for the home (the command asks it). Prints the
wall-clock p50 and p90 of each, and the characters of each answer. Figures,
not assertions.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from homegen import seed_home, start_server, summary, use_git_identity

HEARTH = str(Path(sys.executable).parent / "hearth")
NOTE = "Planning the otter sanctuary fundraiser for Saturday with Marguerite"
INPUTS = {
    "session-start": {"hook_event_name": "SessionStart", "source": "startup"},
    "prompt": {"hook_event_name": "UserPromptSubmit", "prompt": "otter fundraiser plans?"},
}


def once(root: Path, runtime: str, event: str) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(
        [HEARTH, "--home", str(root), "agent-hook", runtime, event],
        input=json.dumps(INPUTS[event]),
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.perf_counter() - started
    if done.returncode != 0 or not done.stdout:
        raise SystemExit(f"agent-hook {event} answered nothing: {done.stderr}")
    text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    return took, len(text)


def measure(root: Path, runtime: str, rounds: int, label: str) -> None:
    print(f"{label}:")
    for event in INPUTS:
        once(root, runtime, event)  # warm the page cache and the index
        samples, chars = [], 0
        for _ in range(rounds):
            took, chars = once(root, runtime, event)
            samples.append(took)
        summary(f"agent-hook {event} ({chars} chars)", samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--runtime", default="claude-code")
    args = parser.parse_args()
    env = use_git_identity()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "home"
        seed_home(root, args.files, random.Random(7))
        subprocess.run([HEARTH, "--home", str(root), "note", NOTE], check=True, capture_output=True)
        subprocess.run([HEARTH, "--home", str(root), "reindex"], check=True, capture_output=True)
        print(f"home: {args.files} topic files; {args.rounds} rounds; runtime {args.runtime}")
        measure(root, args.runtime, args.rounds, "no server (the command opens the home)")
        server, _, _ = start_server(root, env)
        try:
            time.sleep(2.0)  # the server's first pass and a current status snapshot
            measure(root, args.runtime, args.rounds, "hearth serve running (the command asks it)")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
