"""Does ``hearth agent-hook`` answer the same bytes as another checkout's? (issue 52)

    .venv/bin/python bench/hook_answers.py LOCOMO_DIR --before OTHER/.venv/bin/python
        [--work DIR] [--questions N (0: all)] [--seed S] [--runtime claude-code]
    .venv/bin/python bench/hook_answers.py LOCOMO_DIR --alone [...]

The prompts of the silence benchmark (``bench/recall_silence.py``: each
conversation's own questions, as many foreign ones, and the no-memory
prompts), on the same homes it builds (every turn a daily entry, every
passage's vector). For each home, each side in turn (``--before``'s checkout,
then this one) serves the home with its own ``hearth serve`` (semantic ranking
on) and answers every prompt with its own ``hearth agent-hook RUNTIME
prompt``, one process each, as a runtime runs it; then the session-start
hook. Prints how many answers differ (and the first differences), and each
side's hook p50 and p90 wall-clock time. Asserts nothing.

``--alone`` compares this checkout with itself: the "before" side answers
every prompt with no server (``HEARTH_SERVER=off``: the command's own flow in
its own process, opening the home), the "after" side through its served home
(the lean relay). It shows the served path hands a runtime what the command
alone does, where a change of what recall hands (not of its speed) makes the
answers of two checkouts differ. Each answer's fence is drawn afresh (a salt
of its own), so fences are compared as ``<fence>``.

On a loaded machine the served hook can pass its own 5 s bound (it then
prints nothing, says so on stderr and the runtime's turn goes on without
recall). The hook is left as it is: the bench waits for its server to be
quiet and asks that prompt again, up to ``--retries`` times, and prints how
many calls were asked again; a prompt never answered in time is listed as
unanswered, not compared. ``--bound`` is the bench's own bound on one hook
process (a stuck one stops the run). Before the figures each server is warmed:
its start-up work done (under 5% of a core) and ``--warm`` prompts asked.
``--questions N`` asks N of each conversation's own questions (and as many
foreign ones); ``--work DIR`` keeps the built homes for the next run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hearth import wiring
from homegen import use_git_identity, wait_answering, wait_idle
from locomo import NO_MEMORY, build_home, chosen, load, locate, ready

START = {"hook_event_name": "SessionStart", "source": "startup"}
_FENCE = re.compile(r"(fence,? )[0-9a-f]{16}")
#: What the lean hook says on stderr when the server passed its bound.
_GAVE_UP = "did not answer in"
#: An answer the served hook never gave in time (not compared).
UNANSWERED = "\0unanswered"


class Bench:
    """The run's bounds and what it had to ask again."""

    bound = 300.0
    retries = 3
    warm = 3
    asked_again = 0
    unanswered = 0


def unfenced(text: str) -> str:
    """``text`` with each salted fence written as ``<fence>``."""
    return _FENCE.sub(r"\1<fence>", text)


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ask(
    hearth: str,
    root: Path,
    runtime: str,
    event: str,
    sent: dict[str, str],
    env: dict[str, str] | None = None,
) -> tuple[str | None, float]:
    """The hook's stdout and seconds; None for the stdout when the served hook
    passed its own bound (it said so on stderr). Any other stderr stops the run."""
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [hearth, "--home", str(root), "agent-hook", runtime, event],
            input=json.dumps(sent),
            capture_output=True,
            text=True,
            check=False,
            env=env,
            timeout=Bench.bound,
        )
    except subprocess.TimeoutExpired:
        raise SystemExit(f"{hearth} agent-hook took over {Bench.bound:.0f} s") from None
    took = time.perf_counter() - started
    if done.returncode == 0 and _GAVE_UP in done.stderr and not done.stdout:
        return None, took
    if done.returncode != 0 or done.stderr.strip():
        raise SystemExit(f"{hearth} agent-hook failed: {done.stderr}")
    return done.stdout, took


def served(
    hearth: str, root: Path, runtime: str, event: str, sent: dict[str, str], pid: int
) -> tuple[str, float | None]:
    """The served hook's answer, asked again once the server is quiet while it
    passes its bound; the seconds of the call that answered (None: none did)."""
    for attempt in range(Bench.retries + 1):
        if attempt:
            Bench.asked_again += 1
            wait_idle(pid)
        text, took = ask(hearth, root, runtime, event, sent)
        if text is not None:
            return text, took
    Bench.unanswered += 1
    return UNANSWERED, None


def side(
    python: str, root: Path, prompts: list[str], runtime: str, env: dict[str, str]
) -> tuple[list[str], list[float]]:
    """One checkout's server and hooks on ``root``: (answers, seconds of each)."""
    hearth = str(Path(python).parent / "hearth")
    port = free_port()
    server = subprocess.Popen(
        [hearth, "--home", str(root), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        wait_answering(port)
        ready(root)
        wait_idle(server.pid)
        for prompt in prompts[: Bench.warm]:  # warm the caches
            served(hearth, root, runtime, "prompt", {"prompt": prompt}, server.pid)
        answers, seconds = [], []
        for prompt in prompts:
            sent = {"hook_event_name": "UserPromptSubmit", "prompt": prompt}
            text, took = served(hearth, root, runtime, "prompt", sent, server.pid)
            answers.append(text)
            if took is not None:
                seconds.append(took)
        answers.append(served(hearth, root, runtime, "session-start", START, server.pid)[0])
        return answers, seconds
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)


def alone(
    python: str, root: Path, prompts: list[str], runtime: str
) -> tuple[list[str], list[float]]:
    """The same hooks as ``side`` with no server: each opens the home itself."""
    hearth = str(Path(python).parent / "hearth")
    env = {**os.environ, "HEARTH_SERVER": "off"}
    answers, seconds = [], []
    for prompt in prompts:
        sent = {"hook_event_name": "UserPromptSubmit", "prompt": prompt}
        text, took = ask(hearth, root, runtime, "prompt", sent, env)
        if text is None:
            raise SystemExit("the hook with no server said a server passed its bound")
        answers.append(text)
        seconds.append(took)
    answers.append(ask(hearth, root, runtime, "session-start", START, env)[0] or "")
    return answers, seconds


def run(locomo: Path, work: Path, args: argparse.Namespace, env: dict[str, str]) -> None:
    rng = random.Random(args.seed)
    conversations = {p.stem: load(p) for p in sorted(locomo.glob("*.json"))}
    differ, asked, compared = 0, 0, 0
    times: dict[str, list[float]] = {"before": [], "after": []}
    for stem, (turns, _questions) in conversations.items():
        root = work / stem
        build_home(root, turns)
        where = locate(root, turns)
        app = wiring.open_app(root)
        app.reconciler.catch_up()
        app.reconciler.index.fill_vectors()
        app.reconciler.close()
        (root / ".hearth-bench-done").touch()
        own, foreign = chosen(conversations, stem, where, rng, args.questions)
        prompts = [q.text for q in own] + [q.text for q in foreign] + list(NO_MEMORY)
        if args.alone:
            before, took_before = alone(sys.executable, root, prompts, args.runtime)
        else:
            before, took_before = side(args.before, root, prompts, args.runtime, env)
        after, took_after = side(sys.executable, root, prompts, args.runtime, env)
        times["before"] += took_before
        times["after"] += took_after
        for prompt, one, other in zip([*prompts, "(session start)"], before, after, strict=True):
            asked += 1
            if UNANSWERED in (one, other):
                print(f"{stem}: {prompt!r} unanswered in time by the served hook")
                continue
            compared += 1
            if unfenced(one) != unfenced(other):
                differ += 1
                if differ <= 3:
                    print(f"{stem}: {prompt!r}\n  before {one[:300]!r}\n  after  {other[:300]!r}")
        silent = sum(1 for text in after[:-1] if not text)
        print(f"{stem}: {len(prompts)} prompts + session start, {silent} silent", file=sys.stderr)
    print(f"answers that differ: {differ} of {compared} compared ({asked} asked)")
    print(
        f"served hook calls asked again after passing its bound: {Bench.asked_again}; "
        f"prompts unanswered in time: {Bench.unanswered}"
    )
    for name, seconds in times.items():
        ms = sorted(s * 1000 for s in seconds)
        print(
            f"{name}: hook p50 {statistics.median(ms):.0f} ms, "
            f"p90 {ms[int(len(ms) * 0.9) - 1]:.0f} ms over {len(ms)} calls"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("locomo", type=Path)
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--before", help="the other checkout's python")
    who.add_argument("--alone", action="store_true", help="before: this checkout with no server")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--questions", type=int, default=0)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--runtime", default="claude-code")
    parser.add_argument("--bound", type=float, default=Bench.bound, help="seconds a hook call")
    parser.add_argument("--retries", type=int, default=Bench.retries)
    parser.add_argument("--warm", type=int, default=Bench.warm, help="prompts before the figures")
    args = parser.parse_args()
    Bench.bound, Bench.retries, Bench.warm = args.bound, args.retries, args.warm
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the start", flush=True)
    env = use_git_identity(semantic=True)
    env["HEARTH_SERVER"] = "off"
    if args.work is not None:
        args.work.mkdir(parents=True, exist_ok=True)
        run(args.locomo, args.work, args, env)
        return
    with tempfile.TemporaryDirectory(prefix="hearth-hook-answers-") as tmp:
        run(args.locomo, Path(tmp), args, env)


if __name__ == "__main__":
    main()
