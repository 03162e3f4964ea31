"""Time the review page's pages (`/ui/`) on a generated 10,000-file home.

    .venv/bin/python bench/ui_pages.py [--files 10000] [--requests 200]

The home gets a few pending proposals, open loops and SOUL.md commits through
the API first, so the pages have something to render (the review page computes
each proposal's merge diff). Each page is then fetched over one keep-alive
connection with a bearer token, after a warm-up; figures are p50/p99 of the
whole answer. The goal is under 50 ms. ``/v1/status`` is timed too: the health
page is that call plus rendering. Prints figures; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from homegen import WORDS, percentile, seed_home, start_server, use_git_identity

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(15)
    env = use_git_identity()
    with tempfile.TemporaryDirectory(prefix="hearth-bench-ui-") as tmp:
        root = Path(tmp) / "home"
        t0 = time.perf_counter()
        seed_home(root, args.files, rng)
        print(f"seeded {args.files} files in {time.perf_counter() - t0:.1f} s")
        server, port, token = start_server(root, env)
        try:
            client = Client(port, token)
            old = populate(client, rng)
            word = rng.choice(WORDS)
            pages = [
                "/ui/",
                "/ui/persona",
                "/ui/history/SOUL.md",
                f"/ui/history/SOUL.md?rev={old}",
                "/ui/files/MEMORY.md",
                f"/ui/search?q={quote(word)}",
                "/ui/health",
                "/v1/status",  # what the health page is made from, for comparison
            ]
            print(f"\nreview page answers, {args.files}-file home, n={args.requests} each:")
            worst = 0.0
            for page in pages:
                for _ in range(10):  # warm-up: templates compiled, caches filled
                    client.call("GET", page)
                samples = []
                for _ in range(args.requests):
                    t0 = time.perf_counter()
                    client.call("GET", page)
                    samples.append((time.perf_counter() - t0) * 1000)
                p50, p99 = statistics.median(samples), percentile(samples, 0.99)
                worst = max(worst, p99)
                print(f"  GET {page[:44]:<46} p50 {p50:6.1f} ms   p99 {p99:6.1f} ms")
            verdict = "under" if worst < GOAL_MS else "OVER"
            print(f"\nworst p99 {worst:.1f} ms: {verdict} the {GOAL_MS:.0f} ms goal")
        finally:
            server.terminate()  # type: ignore[attr-defined]
            server.wait()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
