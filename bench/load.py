"""A bounded loopback load run: mixed search and writes against a 10,000-file home.

    .venv/bin/python bench/load.py [--files 10000] [--seconds 30] [--clients 8] [--write-share 0.1]

Starts `hearth serve` on loopback, then runs CLIENTS threads for SECONDS, each
on its own keep-alive connection, each request a search (top 10 with
snippets) or, with probability WRITE_SHARE, a daily-note append. Prints
throughput, p50/p99 per kind, and every error (any status other than 200, or
a connection failure). Loopback only; bounded in time.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

from homegen import WORDS, percentile, seed_home, start_server, use_git_identity
from measure import memory_kb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--write-share", type=float, default=0.1)
    args = parser.parse_args()
    env = use_git_identity()

    with tempfile.TemporaryDirectory(prefix="hearth-load-") as tmp:
        root = Path(tmp) / "home"
        seed_home(root, args.files, random.Random(1))
        server, port, token = start_server(root, env)
        try:
            samples: dict[str, list[float]] = {"search": [], "write": []}
            errors: list[str] = []
            lock = threading.Lock()
            deadline = time.monotonic() + args.seconds

            def client(seed: int) -> None:
                rng = random.Random(seed)
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                headers = {"Authorization": f"Bearer {token}"}
                n = 0
                call: tuple[str, str, bytes | None, dict[str, str]]
                while time.monotonic() < deadline:
                    if rng.random() < args.write_share:
                        kind = "write"
                        body = json.dumps({"text": f"load {seed} {n}", "title": "load"})
                        call = (
                            "POST",
                            "/v1/daily",
                            body.encode(),
                            {**headers, "Content-Type": "application/json"},
                        )
                    else:
                        kind = "search"
                        query = " ".join(rng.sample(WORDS, rng.choice((1, 2))))
                        call = ("GET", "/v1/search?" + urlencode({"q": query}), None, headers)
                    t0 = time.perf_counter()
                    try:
                        conn.request(call[0], call[1], body=call[2], headers=call[3])
                        response = conn.getresponse()
                        response.read()
                        status = response.status
                    except OSError as exc:
                        status = 0
                        conn.close()
                        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                        with lock:
                            errors.append(f"{kind}: {exc}")
                    elapsed = time.perf_counter() - t0
                    with lock:
                        samples[kind].append(elapsed)
                        if status not in (0, 200):
                            errors.append(f"{kind}: HTTP {status}")
                    n += 1

            started = time.perf_counter()
            threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wall = time.perf_counter() - started
            total = sum(len(v) for v in samples.values())
            print(
                f"{args.clients} clients, {wall:.1f} s, {args.files}-file home, "
                f"{args.write_share:.0%} writes"
            )
            print(f"  throughput: {total / wall:.0f} requests/s ({total} requests)")
            for kind, values in samples.items():
                if values:
                    ms = [v * 1000 for v in values]
                    print(
                        f"  {kind:<7} n={len(ms):<6} p50 {statistics.median(ms):7.2f} ms   "
                        f"p99 {percentile(ms, 0.99):7.2f} ms   max {max(ms):7.1f} ms"
                    )
            print(f"  errors: {len(errors)}" + (f" (first: {errors[:3]})" if errors else ""))
            mem = memory_kb(server.pid)
            rss, peak = mem["VmRSS"] / 1024, mem["VmHWM"] / 1024
            print(f"  server memory: VmRSS {rss:.0f} MB, peak {peak:.0f} MB")
            history = git_count(root)
            print(f"  commits in the home: {history}")
        finally:
            server.terminate()
            server.wait(timeout=30)


def git_count(root: Path) -> int:
    out = subprocess.run(
        ["git", "rev-list", "--count", "HEAD"], cwd=root, capture_output=True, text=True, check=True
    )
    return int(out.stdout.strip())


if __name__ == "__main__":
    main()
