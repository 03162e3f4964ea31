"""A person's `git commit` in a hearth home against a plain `git commit`, on 10,000 files.

    .venv/bin/python bench/git_commit.py [--files 10000] [--rounds 30] [--hearth PATH]

Builds a throwaway home with N markdown files and its search index, then
times, in rounds, the commit of one edited topic file (`git add` is not
timed; the commit is what the hooks add to):

- plain: `git -c core.hooksPath=/dev/null commit` (no hooks at all);
- hooks, no server: hearth's pre-commit and post-commit hooks with no
  `hearth serve` running (the post hook starts a reconcile pass in the
  background; the bench waits for it before the next round and reports how
  long the index took to catch up);
- hooks, server: the same hooks with `hearth serve` running (pre-commit asks
  the server; post-commit nudges it; the bench waits until the server's
  status shows the new commit indexed).

Each phase has its own plain baseline, taken round by round alongside, so the
ratios compare like with like on a shared machine. `--hearth` names another
hearth executable whose hooks and server to time (for a before/after).
Figures, not assertions: nothing here fails on speed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from homegen import paragraph, percentile, seed_home, start_server, topic_path, use_git_identity


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def timed_commit(root: Path, message: str, *, hooks: bool) -> float:
    args = ["commit", "-q", "-m", message]
    if not hooks:
        args = ["-c", "core.hooksPath=/dev/null", *args]
    t0 = time.perf_counter()
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"git commit failed: {proc.stderr}")
    return elapsed


def edit(root: Path, rng: random.Random, n: int, files: int) -> None:
    target = topic_path((n * 53 + 11) % files)
    with open(root / target, "a") as handle:
        handle.write(f"\n{paragraph(rng, 20)}\n")
    git(root, "add", target)


def wait_background(log: Path, before: float, deadline: float = 120.0) -> float:
    """Seconds until the post hook's background pass wrote its line after ``before``."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            if log.stat().st_mtime >= before and "indexed" in log.read_text():
                return time.time() - before
        except OSError:
            pass
        time.sleep(0.005)
    raise SystemExit(f"the background pass wrote nothing to {log} in {deadline} s")


def wait_indexed(port: int, token: str, head: str, deadline: float = 120.0) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/v1/status", headers={"Authorization": f"Bearer {token}"})
        index = json.loads(conn.getresponse().read())["index"]
        conn.close()
        if index["indexed_head"] == head and index["fresh"]:
            return
        time.sleep(0.005)
    raise SystemExit(f"the server did not index {head} in {deadline} s")


def line(name: str, samples: list[float]) -> float:
    ms = sorted(s * 1000 for s in samples)
    p50, p99 = percentile(ms, 0.5), percentile(ms, 0.99)
    print(f"  {name:<34} p50 {p50:7.1f} ms   p99 {p99:7.1f} ms   (n={len(ms)})")
    return p50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--hearth", default=str(Path(sys.executable).parent / "hearth"))
    args = parser.parse_args()
    rng = random.Random(11)
    hearth = args.hearth

    with tempfile.TemporaryDirectory(prefix="hearth-bench-") as tmp:
        # A person's Python keeps compiled modules; a sandbox that forbids writing
        # them would time compiling hearth at every commit. Cached aside, so no
        # source tree is written to.
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        env = use_git_identity()
        root = Path(tmp) / "home"
        seed_home(root, args.files, rng)
        for step in (["hooks", "install"], ["reindex"]):
            done = subprocess.run(
                [hearth, "--home", str(root), *step], capture_output=True, text=True, check=False
            )
            if done.returncode != 0:
                raise SystemExit(f"hearth {' '.join(step)} failed: {done.stderr}")
        print(f"{args.files}-file home, hooks from {hearth}")
        log = root / ".git/hearth/hooks.log"
        background = _backgrounds(root)
        n = 0
        for hooks in (False, True):  # warm-up, not timed: caches, compiled modules
            edit(root, rng, n := n + 1, args.files)
            timed_commit(root, f"warm-up {n}", hooks=hooks)
        if background:
            wait_background(log, 0.0)
        plain_a: list[float] = []
        alone: list[float] = []
        catch_up: list[float] = []
        for _ in range(args.rounds):
            edit(root, rng, n := n + 1, args.files)
            plain_a.append(timed_commit(root, f"plain {n}", hooks=False))
            edit(root, rng, n := n + 1, args.files)
            before = time.time()
            alone.append(timed_commit(root, f"hooks {n}", hooks=True))
            if background:
                catch_up.append(wait_background(log, before))

        server, port, token = start_server(root, env, scope="read")
        plain_b: list[float] = []
        served: list[float] = []
        try:
            edit(root, rng, n := n + 1, args.files)
            timed_commit(root, f"warm-up {n}", hooks=True)
            wait_indexed(port, token, git(root, "rev-parse", "HEAD").strip())
            for _ in range(args.rounds):
                edit(root, rng, n := n + 1, args.files)
                plain_b.append(timed_commit(root, f"plain {n}", hooks=False))
                edit(root, rng, n := n + 1, args.files)
                served.append(timed_commit(root, f"served {n}", hooks=True))
                wait_indexed(port, token, git(root, "rev-parse", "HEAD").strip())
        finally:
            server.terminate()  # type: ignore[attr-defined]
            server.wait(timeout=30)  # type: ignore[attr-defined]

        print("\ngit commit of one edited file, without a server:")
        base_a = line("plain git commit (no hooks)", plain_a)
        hooked_a = line("with hearth's hooks", alone)
        if catch_up:
            line("commit to index caught up", catch_up)
        print("git commit of one edited file, with `hearth serve` running:")
        base_b = line("plain git commit (no hooks)", plain_b)
        hooked_b = line("with hearth's hooks", served)
        print(f"\nratio with hooks / plain, no server:   {hooked_a / base_a:5.1f}x  (goal <= 10x)")
        print(f"ratio with hooks / plain, server:      {hooked_b / base_b:5.1f}x  (goal <= 3x)")


def _backgrounds(root: Path) -> bool:
    """Whether the installed post-commit hook reconciles in the background."""
    hook = root / ".git/hooks/post-commit"
    return "hearth.hooks.background" in hook.read_text()


if __name__ == "__main__":
    main()
