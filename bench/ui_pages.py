"""Time every review page (`/ui/`) and `/v1/status` on a generated 10,000-file home.

    .venv/bin/python bench/ui_pages.py [--files 10000] [--commits 2000] [--requests 200]

The home gets ``--commits`` commits of history on top of its seed (each
rewrites one topic file, made with ``git fast-import``), so history walks
cost what they cost in a home used for a while: TOOLS.md, changed only at
``init``, sits under all of them. Then a few pending proposals, open loops and
SOUL.md commits through the API, so the pages have something to render (the
review page computes each proposal's merge diff). Each page is fetched over
one keep-alive connection with a bearer token, after a warm-up; figures are
p50/p99 of the whole answer. The goal is under 50 ms. Prints figures; asserts
nothing about speed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from homegen import WORDS, percentile, seed_home, start_server, topic_path, use_git_identity

GOAL_MS = 50.0


class Client:
    def __init__(self, port: int, token: str) -> None:
        self.port = port
        self.headers = {"Authorization": f"Bearer {token}"}
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method: str, path: str, body: object = None) -> bytes:
        headers = dict(self.headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        except (http.client.RemoteDisconnected, BrokenPipeError):
            self.conn.close()
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        payload = response.read()
        if response.status != 200:
            raise RuntimeError(f"{method} {path}: {response.status} {payload[:300]!r}")
        return payload


def populate(client: Client, rng: random.Random) -> str:
    """Proposals, loops and SOUL.md history; returns an older SOUL.md commit id."""
    for n in range(5):
        entries = [" ".join(rng.sample(WORDS, 6)) for _ in range(3)]
        client.call("POST", "/v1/proposals", {"title": f"bench proposal {n}", "entries": entries})
    for n in range(3):
        client.call("POST", "/v1/loops", {"title": f"bench loop {n}", "next_step": "look"})
    voice = "I speak plainly, keep answers short, say what I do not know and never flatter. "
    first = ""
    for n in range(10):
        content = f"# Soul\n\nVersion {n}.\n\n{voice * 2}\n"
        reply = json.loads(client.call("PUT", "/v1/files/SOUL.md", {"content": content}))
        first = first or str(reply["commit"])
    return first


def add_history(root: Path, commits: int) -> None:
    """``commits`` commits on main, each rewriting one topic file, then the work tree
    checked out to match."""
    if commits <= 0:
        return
    chunks: list[bytes] = []
    when = 1_700_000_000
    for n in range(commits):
        message = f"memory: revise topic {n % 100}\n".encode()
        content = f"# Topic {n % 100}\n\nRevision {n}.\n".encode()
        chunks += [
            b"commit refs/heads/main\n",
            f"committer bench <bench@example.invalid> {when + n * 60} +0000\n".encode(),
            f"data {len(message)}\n".encode() + message,
            b"from refs/heads/main^0\n" if n == 0 else b"",
            f"M 100644 inline {topic_path(n % 100)}\n".encode(),
            f"data {len(content)}\n".encode() + content + b"\n",
        ]
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(chunks), check=True)
    subprocess.run(["git", "reset", "-q", "--hard"], cwd=root, check=True)


def time_page(client: Client, page: str, requests: int) -> tuple[float, float]:
    for _ in range(10):  # warm-up: templates compiled, caches filled
        client.call("GET", page)
    samples = []
    for _ in range(requests):
        t0 = time.perf_counter()
        client.call("GET", page)
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples), percentile(samples, 0.99)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(15)
    env = use_git_identity()
    with tempfile.TemporaryDirectory(prefix="hearth-bench-ui-") as tmp:
        root = Path(tmp) / "home"
        t0 = time.perf_counter()
        seed_home(root, args.files, rng)
        add_history(root, args.commits)
        print(
            f"seeded {args.files} files and {args.commits} commits "
            f"in {time.perf_counter() - t0:.1f} s"
        )
        server, port, token = start_server(root, env)
        try:
            client = Client(port, token)
            old = populate(client, rng)
            # Steady state: the status snapshot after the populating writes is taken
            # (on a server that keeps one), so its background work is not timed.
            for _ in range(600):
                snap = json.loads(client.call("GET", "/v1/status")).get("snapshot")
                if snap is None or snap["current"]:
                    break
                time.sleep(0.1)
            word = rng.choice(WORDS)
            pages = [
                ("/ui/login", "login form"),
                ("/ui/", "proposals (with merge diffs) and loops"),
                ("/ui/persona", "persona files, last change each"),
                ("/ui/history/SOUL.md", "SOUL.md timeline"),
                ("/ui/history/TOOLS.md", "TOOLS.md timeline (changed at init)"),
                (f"/ui/history/SOUL.md?rev={old}", "one commit's diff"),
                ("/ui/files/MEMORY.md", "a file"),
                (f"/ui/search?q={quote(word)}", "search"),
                ("/ui/health", "health"),
                ("/v1/status", "status (JSON)"),
            ]
            print(
                f"\nanswers, {args.files}-file home with {args.commits} commits, "
                f"n={args.requests} each (p50 / p99):"
            )
            worst = 0.0
            for page, what in pages:
                p50, p99 = time_page(client, page, args.requests)
                worst = max(worst, p99)
                print(f"  {what:<40} {page[:34]:<36} {p50:6.1f} ms  {p99:6.1f} ms")
            status = json.loads(client.call("GET", "/v1/status"))
            snap = status.get("snapshot", {})
            print(
                f"\nstatus snapshot: taken in {snap.get('seconds', 0) * 1000:.0f} ms "
                f"(as of {snap.get('as_of')}, current {snap.get('current')})"
            )
            verdict = "under" if worst < GOAL_MS else "OVER"
            print(f"worst p99 {worst:.1f} ms: {verdict} the {GOAL_MS:.0f} ms goal")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
