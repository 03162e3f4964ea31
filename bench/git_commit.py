"""A person's `git commit` in a hearth home against a plain `git commit`, on 10,000 files.

    .venv/bin/python bench/git_commit.py [--files 10000] [--rounds 30] [--hearth PATH]
        [--phases alone,served] [--burst 15] [--work DIR]

Builds a throwaway home with N markdown files and its search index, then
times, in rounds, the commit of one edited topic file (`git add` is not
timed; the commit is what the hooks add to):

- plain: `git -c core.hooksPath=/dev/null commit` (no hooks at all);
- hooks, no server: hearth's pre-commit and post-commit hooks with no
  `hearth serve` running (the post hook starts a reconcile pass in the
  background; the bench waits for it before the next round and reports how
  long the index took to catch up);
- hooks, server: the same hooks with `hearth serve` running (pre-commit asks
  the server; post-commit nudges it). Every commit, plain or hooked, starts
  on a settled server, and the bench times how long the server takes to
  settle after it: its status says the index is fresh and current at the new
  HEAD, and a search finds the word the edit added;
- burst (with the server): ``--burst`` hooked commits back to back, each
  timed, then the time from the last one to settled and searchable.

Each phase has its own plain baseline, taken round by round alongside, so the
ratios compare like with like on a shared machine. `--hearth` names another
hearth executable whose hooks and server to time (for a before/after).
`--work DIR` keeps the generated home (and its index) in DIR for the next run
(a 100,000-file home takes minutes to make); `--phases` picks the phases.
Figures, not assertions: nothing here fails on speed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from homegen import (
    in_work,
    paragraph,
    percentile,
    seed_home,
    start_server,
    topic_path,
    use_git_identity,
)


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


def edit(
    root: Path, rng: random.Random, n: int, files: int, mark: str = "", *, stage: bool = True
) -> str:
    """Append a paragraph (with the word ``mark``, when given) to one topic file and stage it."""
    target = topic_path((n * 53 + 11) % files)
    with open(root / target, "a") as handle:
        handle.write(f"\n{paragraph(rng, 20)} {mark}\n")
    if stage:
        git(root, "add", target)
    return target


def marker(run: int, n: int) -> str:
    """A word no generated file holds, one per edit: letters only (one token)."""
    value, letters = run * 100_000 + n, ""
    while value:
        value, digit = divmod(value, 26)
        letters += chr(ord("a") + digit)
    return f"zq{letters}"


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


def _get(port: int, token: str, target: str) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", target, headers={"Authorization": f"Bearer {token}"})
    data = json.loads(conn.getresponse().read())
    conn.close()
    return data  # type: ignore[no-any-return]


def settled(port: int, token: str, head: str) -> bool:
    """The server's status says settled: the snapshot is current and the index
    fresh at ``head``."""
    status = _get(port, token, "/v1/status")
    index = status["index"]
    snapshot = status["snapshot"]
    return bool(index["indexed_head"] == head and index["fresh"] and snapshot["current"])


def wait_settled(
    port: int, token: str, root: Path, found: tuple[str, str] | None = None, deadline: float = 300.0
) -> float:
    """Seconds until the server is settled at HEAD and (``found``: word, path) a
    search for the word finds the path."""
    head = git(root, "rev-parse", "HEAD").strip()
    t0 = time.perf_counter()
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if settled(port, token, head):
            if found is None:
                return time.perf_counter() - t0
            hits = _get(port, token, f"/v1/search?q={found[0]}&limit=10")["hits"]
            if any(h["path"] == found[1] for h in hits):
                return time.perf_counter() - t0
        time.sleep(0.01)
    raise SystemExit(f"the server did not settle at {head} in {deadline} s")


def wait_found(port: int, token: str, word: str, path: str, deadline: float = 60.0) -> float:
    """Seconds until a search for ``word`` finds ``path``."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < deadline:
        hits = _get(port, token, f"/v1/search?q={word}&limit=10")["hits"]
        if any(h["path"] == path for h in hits):
            return time.perf_counter() - t0
        time.sleep(0.005)
    raise SystemExit(f"{word} not found in {deadline} s")


def line(name: str, samples: list[float]) -> float:
    ms = sorted(s * 1000 for s in samples)
    p50, p99 = percentile(ms, 0.5), percentile(ms, 0.99)
    print(f"  {name:<34} p50 {p50:7.1f} ms   p99 {p99:7.1f} ms   (n={len(ms)})", flush=True)
    return p50


def prepare(work: Path, files: int, hearth: str, rng: random.Random) -> Path:
    """The home in ``work`` (made, indexed, once), with ``hearth``'s hooks installed."""
    root = work / f"home-{files}"
    if not (root / ".git/hearth/index").is_dir():
        if root.exists():
            shutil.rmtree(root)
        t0 = time.perf_counter()
        seed_home(root, files, rng)
        print(f"seeded {files} files in {time.perf_counter() - t0:.1f} s", flush=True)
    for step in (["hooks", "install"], ["reindex"]):
        done = subprocess.run(
            [hearth, "--home", str(root), *step], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise SystemExit(f"hearth {' '.join(step)} failed: {done.stderr}")
    # Earlier runs' edits, committed: every round starts from a clean tree.
    if git(root, "status", "--porcelain", "--untracked-files=no").strip():
        git(root, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-a", "-m", "bench: left")
    return root


def alone_phase(root: Path, rng: random.Random, files: int, rounds: int, n: int) -> int:
    """Plain and hooked commits with no server, round by round."""
    log = root / ".git/hearth/hooks.log"
    background = _backgrounds(root)
    for hooks in (False, True):  # warm-up, not timed: caches, compiled modules
        edit(root, rng, n := n + 1, files)
        timed_commit(root, f"warm-up {n}", hooks=hooks)
    if background:
        wait_background(log, 0.0)
    plain: list[float] = []
    hooked: list[float] = []
    catch_up: list[float] = []
    for _ in range(rounds):
        edit(root, rng, n := n + 1, files)
        plain.append(timed_commit(root, f"plain {n}", hooks=False))
        edit(root, rng, n := n + 1, files)
        before = time.time()
        hooked.append(timed_commit(root, f"hooks {n}", hooks=True))
        if background:
            catch_up.append(wait_background(log, before))
    print("\ngit commit of one edited file, without a server:")
    base = line("plain git commit (no hooks)", plain)
    with_hooks = line("with hearth's hooks", hooked)
    if catch_up:
        line("commit to index caught up", catch_up)
    print(f"ratio with hooks / plain, no server:   {with_hooks / base:5.2f}x")
    return n


def served_phase(
    root: Path, rng: random.Random, files: int, rounds: int, burst: int, n: int
) -> int:
    """Plain and hooked commits with `hearth serve` running, each on a settled
    server, timing the settle after each; then a burst of hooked commits."""
    env = dict(os.environ)
    run = random.Random().randrange(1, 10_000)
    t0 = time.perf_counter()
    server, port, token = start_server(root, env, scope="read", name=f"bench-{time.time_ns()}")
    try:
        wait_settled(port, token, root)
        print(f"\nserver settled {time.perf_counter() - t0:.1f} s after its start", flush=True)
        edit(root, rng, n := n + 1, files)
        timed_commit(root, f"warm-up {n}", hooks=True)
        wait_settled(port, token, root)
        plain: list[float] = []
        hooked: list[float] = []
        after_plain: list[float] = []
        after_hooked: list[float] = []
        saves: list[float] = []
        for _ in range(rounds):
            for hooks, times, settles in (
                (False, plain, after_plain),
                (True, hooked, after_hooked),
            ):
                word = marker(run, n := n + 1)
                t0 = time.perf_counter()
                path = edit(root, rng, n, files, word, stage=False)
                wait_found(port, token, word, path)
                saves.append(time.perf_counter() - t0)
                git(root, "add", path)
                wait_settled(port, token, root)  # the editor's save, taken in
                times.append(timed_commit(root, f"commit {n}", hooks=hooks))
                settles.append(wait_settled(port, token, root, (word, path)))
        burst_times: list[float] = []
        last: tuple[str, str] | None = None
        for _ in range(burst):
            word = marker(run, n := n + 1)
            last = (word, edit(root, rng, n, files, word))
            burst_times.append(timed_commit(root, f"burst {n}", hooks=True))
        burst_settle = wait_settled(port, token, root, last) if burst else 0.0
    finally:
        server.terminate()
        server.wait(timeout=30)

    print("git commit of one edited file, with `hearth serve` running (settled before each):")
    base = line("plain git commit (no hooks)", plain)
    with_hooks = line("with hearth's hooks", hooked)
    line("settled + searchable after plain", after_plain)
    line("settled + searchable after hooked", after_hooked)
    save_p95 = percentile(saves, 0.95) * 1000
    print(f"  editor save to found by search  p95 {save_p95:7.1f} ms   (n={len(saves)})")
    print(f"ratio with hooks / plain, server:      {with_hooks / base:5.2f}x  (goal <= 1.5x)")
    if burst:
        line(f"hooked, {burst} back to back", burst_times)
        print(f"  settled + searchable after the burst   {burst_settle * 1000:7.1f} ms")
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--burst", type=int, default=15)
    parser.add_argument("--phases", default="alone,served")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--hearth", default=str(Path(sys.executable).parent / "hearth"))
    args = parser.parse_args()
    phases = set(args.phases.split(","))
    rng = random.Random(11)

    def run(work: Path) -> None:
        # A person's Python keeps compiled modules; a sandbox that forbids writing
        # them would time compiling hearth at every commit. Cached aside, so no
        # source tree is written to.
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        use_git_identity()
        root = prepare(work, args.files, args.hearth, rng)
        print(f"{args.files}-file home, hooks from {args.hearth}", flush=True)
        n = int(time.time()) % 1_000_000 * 1000  # edits of earlier runs differ
        if "alone" in phases:
            n = alone_phase(root, rng, args.files, args.rounds, n)
        if "served" in phases:
            served_phase(root, rng, args.files, args.rounds, args.burst, n)

    in_work(args.work, run)


def _backgrounds(root: Path) -> bool:
    """Whether the installed post-commit hook reconciles in the background."""
    hook = root / ".git/hooks/post-commit"
    return "hearth.hooks.background" in hook.read_text()


if __name__ == "__main__":
    main()
