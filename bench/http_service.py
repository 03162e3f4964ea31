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
import random
import tempfile
import time
from pathlib import Path

from homegen import WORDS, git, seed_home, start_server, topic_path, use_git_identity
from measure import Client, latency, memory_kb, wait_for_vectors


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
