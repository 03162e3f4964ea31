"""Time `hearth serve` over loopback on a generated 10,000-file home.

    .venv/bin/python bench/http_service.py [--files 10000] [--searches 500] [--rounds 40]
                                           [--semantic]

In one run:

- search over HTTP (one keep-alive connection, top 10 with snippets): p50/p99;
- write-to-searchable: `POST /v1/daily` with a fresh word, then `GET /v1/search`
  for it (the write is indexed before it returns, so the first search finds
  it), next to `git add <file> && git commit` of a one-line edit on the same
  home (which makes nothing searchable);
- editor-save-to-searchable: a file saved behind the server's back the way
  editors do (temp file, rename over the target) with a fresh word, then
  searches every 5 ms until the word is found: p50/p95;
- the server's resident memory (VmRSS, and the peak VmHWM) at the end.

Semantic ranking is off unless ``--semantic``: then the bench first waits for
the server to embed every section (minutes at 10,000 files: use ``--files
1000``), so the writes are timed with the vectors complete, each write's new
sections embedded in the background and each search hybrid.

Prints figures; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import socket
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from homegen import WORDS, git, percentile, seed_home, start_server, topic_path, use_git_identity


class Client:
    def __init__(self, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Authorization": f"Bearer {token}"}

    def call(self, method: str, path: str, body: object = None) -> Any:
        headers = dict(self.headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            # The server closes keep-alive connections idle for 5 s: reconnect once.
            self.conn.close()
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        payload = response.read()
        if response.status != 200:
            raise RuntimeError(f"{method} {path}: {response.status} {payload[:200]!r}")
        return json.loads(payload)

    def search(self, query: str) -> list[dict[str, object]]:
        result = self.call("GET", "/v1/search?" + urlencode({"q": query, "limit": 10}))
        assert isinstance(result, dict)
        return list(result["hits"])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def latency(name: str, samples: list[float], tail: float = 0.99) -> float:
    ms = [s * 1000 for s in samples]
    p50, high = statistics.median(ms), percentile(ms, tail)
    label = f"p{int(tail * 100)}"
    print(f"  {name:<46} p50 {p50:7.2f} ms   {label} {high:7.2f} ms   (n={len(ms)})")
    return p50


def wait_for_vectors(client: Client, deadline: float = 3600.0) -> dict[str, object]:
    """The index's vector coverage once every section has its vector."""
    end = time.monotonic() + deadline
    while True:
        status = client.call("GET", "/v1/status")
        assert isinstance(status, dict)
        vectors = status["index"]["vectors"]
        if vectors is None:
            raise SystemExit("semantic ranking is off in the served home")
        if vectors["complete"] or time.monotonic() > end:
            return dict(vectors)
        time.sleep(1.0)


def memory_kb(pid: int) -> dict[str, int]:
    """A process's resident memory in KB: VmRSS, its peak VmHWM, and VmRSS's
    anonymous and file-backed parts (RssAnon, RssFile)."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            found[key] = int(value.split()[0])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--searches", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--semantic", action="store_true", help="semantic ranking on")
    args = parser.parse_args()
    rng = random.Random(5)
    env = use_git_identity(semantic=args.semantic)

    with tempfile.TemporaryDirectory(prefix="hearth-bench-") as tmp:
        root = Path(tmp) / "home"
        t0 = time.perf_counter()
        seed_home(root, args.files, rng)
        print(f"seeded {args.files} files in {time.perf_counter() - t0:.1f} s")
        t0 = time.perf_counter()
        server, port, token = start_server(root, env)
        try:
            print(f"server up (index built) in {time.perf_counter() - t0:.1f} s")
            client = Client(port, token)
            if args.semantic:
                t0 = time.perf_counter()
                vectors = wait_for_vectors(client)
                print(
                    f"semantic ranking on: {vectors['embedded']} sections embedded in "
                    f"{time.perf_counter() - t0:.0f} s ({vectors['model']})"
                )

            queries = [" ".join(rng.sample(WORDS, rng.choice((1, 1, 2)))) for _ in range(50)]
            for query in queries:  # warm-up
                client.search(query)
            searches = []
            for n in range(args.searches):
                t0 = time.perf_counter()
                hits = client.search(queries[n % len(queries)])
                searches.append(time.perf_counter() - t0)
                assert hits
            print(f"\nsearch over HTTP, top 10 with snippets, {args.files}-file home:")
            latency("GET /v1/search", searches)

            # The API writes first, then the git commits, so neither measures the
            # other's aftermath (a person's commit moves HEAD; the server follows).
            write_to_search: list[float] = []
            writes: list[float] = []
            for r in range(args.rounds):
                word = f"zq{r}x{rng.randrange(10**9)}"
                t0 = time.perf_counter()
                client.call("POST", "/v1/daily", {"text": f"saw {word} today", "title": "bench"})
                writes.append(time.perf_counter() - t0)
                hits = client.search(word)
                write_to_search.append(time.perf_counter() - t0)
                assert hits, word
            git_commit: list[float] = []
            for r in range(args.rounds):
                number = (r * 500 + 7) % args.files
                other = root / topic_path(number)
                with other.open("a") as handle:
                    handle.write(f"\nedited in round {r}\n")
                t0 = time.perf_counter()
                git(root, "add", str(other.relative_to(root)))
                git(
                    root,
                    "-c",
                    "core.hooksPath=/dev/null",
                    "commit",
                    "-q",
                    "-m",
                    f"bench: round {r}",
                )
                git_commit.append(time.perf_counter() - t0)
            print("\nwrite to searchable:")
            latency("POST /v1/daily (committed and indexed)", writes)
            ours = latency("POST /v1/daily then GET /v1/search finds it", write_to_search)
            theirs = latency("git add <file> && git commit (not searchable)", git_commit)
            print(f"  ratio: {ours / theirs:.2f}   (goal: at most 0.50)")

            editor: list[float] = []
            folder = root / "memory/topics/saved"
            folder.mkdir(parents=True, exist_ok=True)
            for r in range(args.rounds):
                word = f"ed{r}y{rng.randrange(10**9)}"
                target = folder / f"note-{r % 5}.md"
                temp = folder / f".note-{r % 5}.md.swp"
                temp.write_text(f"# Note {r}\n\nThe word is {word}.\n")
                t0 = time.perf_counter()
                temp.replace(target)
                while not client.search(word):
                    time.sleep(0.005)
                    if time.perf_counter() - t0 > 10:
                        raise RuntimeError(f"{word} not searchable after 10 s")
                editor.append(time.perf_counter() - t0)
                time.sleep(0.05)
            print("\neditor save (temp file + rename) to searchable:")
            latency("rename, then poll GET /v1/search every 5 ms", editor, tail=0.95)

            mem = memory_kb(server.pid)
            print(
                f"\nserver memory: VmRSS {mem['VmRSS'] / 1024:.0f} MB, "
                f"peak VmHWM {mem['VmHWM'] / 1024:.0f} MB   (goal: under 150 MB)"
            )
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
