"""Where `hearth serve`'s resident memory goes, moment by moment, on a large keyword home.

    .venv/bin/python bench/serve_rss.py [--files 100000] [--work DIR] [--compare SRC]
        [--turns 1] [--queries 300] [--writes 20]

A home of generated notes (bench/homegen.py) is seeded once (kept in
``DIR/seed-N`` for later runs with ``--work``). Each source tree, this
checkout's and with ``--compare`` hearth from another checkout's ``src`` (on
``PYTHONPATH``), builds its own index of it (``hearth reindex --full``: the
manifest's format is each tree's own), then serves a fresh copy of it, one
server at a time, ``--turns`` times each, through what bench/scale.py does to
its server at the largest size: the searches (20 to warm, then ``--queries``,
one keep-alive connection), ``--writes`` + 1 API writes (``POST /v1/daily``,
then the search that finds it), as many commits of a person's edits with the
git CLI. Semantic ranking is off.

At each moment the server's VmRSS is printed with its anonymous,
file-backed and shared-memory parts, its private memory (RssAnon + RssShmem:
issue 52's measure; file-backed pages are cache the kernel can drop), and
the resident pages by kind of mapping, from
``/proc/PID/smaps``: the heap and the anonymous mappings (the Python objects,
glibc's arenas, Tantivy's and libgit2's own memory), the shared libraries, and
the index's files by extension (``.store`` the stored fields, ``.idx`` the
postings, ``.term`` the term dictionary, ``.pos`` the positions, ``.fast``,
``.fieldnorm``). The moments: ready (``/healthz`` answers), settled (its
start-up work done, ``wait_idle``), after the searches, after the first write,
after the writes, after the commits (where bench/scale.py reads the figure
of its table) and settled again (once the status snapshot they ask for is
taken). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlencode

from hearth import wiring
from homegen import WORDS, generate, in_work, start_server, topic_path, use_git_identity, wait_idle
from measure import Client, memory_kb

HEARTH = str(Path(sys.executable).parent / "hearth")
NO_HOOKS = ("-c", "core.hooksPath=/dev/null", "-c", "gc.auto=0")
INDEX_FILES = "/.git/hearth/index/tantivy/"
#: Seconds to wait after the last change before the last figure.
SNAPSHOT_WAIT = 8.0
#: The kinds of mapping printed, in this order; the rest is "other files".
KINDS = ["anonymous", "heap", "libraries", ".store", ".idx", ".term", ".pos", ".fast", ".fieldnorm"]


def by_mapping(pid: int) -> dict[str, int]:
    """Resident KB of the process per kind of mapping."""
    found: dict[str, int] = defaultdict(int)
    kind = "other files"
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split(None, 1)[0]
        if not head.endswith(":"):  # a mapping's first line: range, perms, offset, dev, inode, name
            parts = line.split(None, 5)
            name = parts[5].strip() if len(parts) > 5 else ""
            if INDEX_FILES in name:
                kind = Path(name).suffix
            elif name == "":
                kind = "anonymous"
            elif name == "[heap]":
                kind = "heap"
            elif ".so" in Path(name).name:
                kind = "libraries"
            else:
                kind = "other files"
        elif head == "Rss:":
            found[kind] += int(line.split()[1])
    return found


class Moments:
    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.rows: list[tuple[str, dict[str, int], dict[str, int]]] = []

    def __call__(self, name: str) -> None:
        self.rows.append((name, memory_kb(self.pid), by_mapping(self.pid)))

    def show(self, label: str) -> None:
        print(f"\n{label}: resident MB")
        kinds = [k for k in KINDS if any(m.get(k, 0) >= 512 for _, _, m in self.rows)]
        print(
            f"  {'':<26} {'VmRSS':>6} {'anon':>6} {'file':>6} {'shmem':>6} {'privat':>6} "
            + " ".join(f"{k:>9}" for k in kinds)
        )
        for name, status, maps in self.rows:
            keys = ("VmRSS", "RssAnon", "RssFile", "RssShmem", "private")
            mb = [status.get(k, 0) / 1024 for k in keys]
            print(
                f"  {name:<26} " + " ".join(f"{v:6.1f}" for v in mb) + " "
                + " ".join(f"{maps.get(k, 0) / 1024:9.1f}" for k in kinds)
            )  # fmt: skip


def serve_once(home: Path, env: dict[str, str], args: argparse.Namespace, label: str) -> None:
    rng = random.Random(args.files)
    queries = [" ".join(rng.sample(WORDS, rng.choice((1, 1, 2, 3)))) for _ in range(args.queries)]
    server, port, token = start_server(home, env)
    moment = Moments(server.pid)
    try:
        moment("ready")
        wait_idle(server.pid)
        moment("settled")
        client = Client(port, token)
        for query in queries[:20] + queries:
            client.search(query)
        moment("after the searches")
        for r in range(args.writes + 1):
            word = f"zq{r}x{rng.randrange(10**9)}"
            client.call("POST", "/v1/daily", {"text": f"saw {word} today", "title": "bench"})
            found = client.call("GET", "/v1/search?" + urlencode({"q": word, "limit": 10}))
            assert isinstance(found, dict) and found["hits"], word
            if r == 0:
                moment("after the first write")
        moment(f"after {args.writes + 1} writes")
        for r in range(args.writes + 1):
            number = (r * 7919 + 13) % args.files
            path = topic_path(number)
            with open(home / path, "a") as handle:
                handle.write(f"\nedited in round {r}\n")
            subprocess.run(["git", "add", path], cwd=home, check=True, env=env)
            subprocess.run(
                ["git", *NO_HOOKS, "commit", "-qm", f"bench: {r}"], cwd=home, check=True, env=env
            )
        moment(f"after {args.writes + 1} git commits")
        # The status snapshot these ask for waits for a pause and for a gap after
        # the one before (app/status/snapshot.py: at most 2 + 5 s), then gives back its heap.
        time.sleep(SNAPSHOT_WAIT)
        wait_idle(server.pid)
        moment("settled again")
    finally:
        server.terminate()
        server.wait(timeout=60)
    load = os.getloadavg()
    moment.show(f"{label} (load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--work", type=Path, help="keep (and reuse) the seeded home here")
    parser.add_argument("--compare", help="also serve with hearth's source from this src folder")
    parser.add_argument("--turns", type=int, default=1)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--writes", type=int, default=20)
    args = parser.parse_args()
    in_work(args.work, lambda work: run(args, work))


def run(args: argparse.Namespace, work: Path) -> None:
    env = use_git_identity()
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores")
    seed = work / f"seed-{args.files}"
    if not (seed / ".git" / "hearth-bench-seeded").exists():
        shutil.rmtree(seed, ignore_errors=True)
        t0 = time.perf_counter()
        wiring.initialize(seed)
        generate(seed, args.files, random.Random(args.files))
        # No automatic gc: it would pack the objects in the background while the
        # seed is copied (and bench/scale.py's homes keep theirs loose).
        subprocess.run(["git", "add", "-A"], cwd=seed, check=True, env=env)
        subprocess.run(
            ["git", *NO_HOOKS, "commit", "-qm", "bench: seed"], cwd=seed, check=True, env=env
        )
        (seed / ".git" / "hearth-bench-seeded").write_text("")
        print(f"seeded {args.files:,} files in {time.perf_counter() - t0:.0f} s")
    trees = [("this checkout", env)]
    if args.compare:
        trees.append((f"hearth from {args.compare}", {**env, "PYTHONPATH": args.compare}))
    built = []
    for n, (_label, tree_env) in enumerate(trees):
        home = work / f"built-{n}"
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(seed, home, symlinks=True)  # mtimes kept
        # Alone (HEARTH_SERVER=off): a reindex would otherwise start an
        # on-demand server for the home, whose socket the copy cannot take.
        subprocess.run(
            [HEARTH, "--home", str(home), "reindex", "--full"],
            check=True, env={**tree_env, "HEARTH_SERVER": "off"}, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        built.append(home)
    for turn in range(args.turns):
        for (label, tree_env), source in zip(trees, built, strict=True):
            home = work / "home"
            shutil.rmtree(home, ignore_errors=True)
            shutil.copytree(source, home, symlinks=True)
            serve_once(home, tree_env, args, f"turn {turn + 1}, {label}")
    for source in built:
        shutil.rmtree(source, ignore_errors=True)
    shutil.rmtree(work / "home", ignore_errors=True)


if __name__ == "__main__":
    main()
