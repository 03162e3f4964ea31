"""Issue 40's reindex row alone: `hearth reindex --full` against an SQLite FTS5 build.

    .venv/bin/python bench/reindex_full.py [--files 10000] [--builds 5]
        [--home DIR] [--baseline HEARTH]

On a home made as bench/workload.py makes it (bench/homegen.py
``generate_home``, adopted with ``hearth init``; kept at ``--home`` when given,
so that a second run reuses it), with semantic ranking off: ``--builds``
rounds, each of `hearth reindex --full` (a fresh process: start-up, listing,
reading, sectioning, checking, the Tantivy build aside and swap, the
manifest, ACTIVE.md), then the FTS5 build of bench/search_index.py (one row
per file), then, with ``--baseline``, another hearth's `reindex --full` (the
`.venv/bin/hearth` of another worktree) on the same files. Taking turns, a
change in the machine's load falls on all of them alike. Every build starts
with no server running: a server a build leaves (a tree whose `reindex
--full` starts one) is stopped after it, and its CPU seconds until then are
the build's. Prints each one's median wall and CPU seconds (user + system of
the process and its children, and of a server it started), and the
ratios; the load average before and after. Compiled modules are cached
aside as in bench/workload.py, after one build of each that is not
counted. Asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from homegen import generate_home, use_git_identity
from measure import FTS5_BUILD, HEARTH, Run, run
from reindex_served import cpu_of, server_pid, stop_server


def make_home(root: Path, files: int, env: dict[str, str]) -> None:
    """The workload's home: generated notes, adopted by ``hearth init``."""
    generate_home(root, files, random.Random(files))
    subprocess.run([HEARTH, "init", str(root), "--json"], check=True, capture_output=True, env=env)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--builds", type=int, default=5)
    parser.add_argument("--home", type=Path, help="the home to use (made there when missing)")
    parser.add_argument("--baseline", metavar="HEARTH", help="another hearth to time alike")
    args = parser.parse_args()
    cache = tempfile.TemporaryDirectory(prefix="hearth-reindex-pycache-")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = cache.name
    env = use_git_identity()
    with tempfile.TemporaryDirectory(prefix="hearth-reindex-") as tmp:
        root = args.home or Path(tmp) / "home"
        if not (root / ".git").exists():
            shutil.rmtree(root, ignore_errors=True)
            make_home(root, args.files, env)
        db = Path(tmp) / "fts.db"
        commands = {"hearth": [HEARTH, "--home", str(root), "reindex", "--full"]}
        commands["fts5"] = [sys.executable, "-c", FTS5_BUILD, str(root), str(db)]
        if args.baseline:
            commands["baseline"] = [args.baseline, "--home", str(root), "reindex", "--full"]
        runs: dict[str, list[Run]] = {name: [] for name in commands}
        print(f"{args.files:,} files at {root}; {load()}", flush=True)
        for n in range(args.builds + 1):
            for name, command in commands.items():
                db.unlink(missing_ok=True)
                done = run(command, env)
                left = server_pid(root)
                if left is not None:
                    done.cpu += cpu_of(left)
                    stop_server(root)
                if n:
                    runs[name].append(done)
        print(f"after the builds: {load()}")
    cache.cleanup()
    wall = {name: statistics.median(r.seconds for r in done) for name, done in runs.items()}
    cpu = {name: statistics.median(r.cpu for r in done) for name, done in runs.items()}
    for name in commands:
        spread = ", ".join(f"{r.seconds:.2f}" for r in runs[name])
        print(f"  {name:<9} median {wall[name]:.3f} s, CPU {cpu[name]:.2f} s  ({spread})")
    for name in [n for n in commands if n != "fts5"]:
        print(
            f"  {name} / FTS5: {wall[name] / wall['fts5']:.2f} wall, "
            f"{cpu[name] / cpu['fts5']:.2f} CPU"
        )


if __name__ == "__main__":
    main()
