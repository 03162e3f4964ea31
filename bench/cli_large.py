"""Time the commands runtimes shell out to on a large home, beside another hearth.

    .venv/bin/python bench/cli_large.py [--files 10000] [--rounds 10] [--baseline PATH]

A home of N generated topic files (bench/homegen.py; semantic ranking off, as
the other timing benches) is indexed once; then, round by round (so a busy
machine weighs on every command alike):

- without a server: `hearth note`, `hearth put`, `hearth loop add` (each a
  commit and a targeted pass) and `hearth search` (a reconcile pass first);
- with `hearth serve` running for the home: `hearth search`, `hearth context
  --query` and `hearth active`, which this hearth asks the server (its
  `--verbose` line is printed) and an older one answers itself.

`--baseline` runs another hearth executable (say main's, before a change) on
the same commands in the same rounds. Prints wall-clock p50 and p90 and the
CPU time (user + system, the command and what it starts) p50 of each, and the
ratio to the baseline. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from cli_startup import load_average, report, run, wait_current
from homegen import seed_home, start_server, use_git_identity


def commands(hearth: str, root: Path, page: Path, n: int) -> dict[str, list[str]]:
    home = [hearth, "--home", str(root)]
    return {
        "note": [*home, "note", f"remembered in round {n}"],
        "put": [*home, "put", "memory/topics/bench-put.md", "--from-file", str(page)],
        "loop add": [*home, "loop", "add", "--title", f"bench loop {n}"],
    }


def reads(hearth: str, root: Path) -> dict[str, list[str]]:
    home = [hearth, "--home", str(root)]
    return {
        "search": [*home, "search", "garden tomato"],
        "context --query": [*home, "context", "--query", "garden tomato"],
        "active": [*home, "active"],
    }


def verbose(argv: list[str]) -> str:
    done = subprocess.run([*argv, "--verbose"], capture_output=True, text=True, check=False)
    return done.stderr.strip() if done.returncode == 0 else "(no --verbose)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--baseline", default=None, help="another hearth, timed alongside")
    args = parser.parse_args()
    hearth = str(Path(sys.executable).parent / "hearth")
    hearths = {"": hearth}
    if args.baseline:
        hearths["baseline: "] = args.baseline

    with tempfile.TemporaryDirectory(prefix="hearth-bench-") as tmp:
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        env = use_git_identity()
        root = Path(tmp) / "home"
        seed_home(root, args.files, random.Random(7))
        subprocess.run([hearth, "--home", str(root), "reindex"], capture_output=True, check=True)
        page = Path(tmp) / "page.md"
        print(f"load average before: {load_average()}")
        print(f"home of {args.files} topic files; {hearth}")
        if args.baseline:
            print(f"  baseline: {args.baseline}")

        timed: dict[str, list[tuple[float, float]]] = {}
        for n in range(-1, args.rounds):  # round -1: warm-up, untimed
            for prefix, exe in hearths.items():
                page.write_text(f"# Bench page\n\nWritten in round {n} by {prefix or 'this'}.\n")
                for name, argv in commands(exe, root, page, n).items():
                    sample = run(argv)
                    if n >= 0:
                        timed.setdefault(f"{prefix}{name} (no server)", []).append(sample)
                sample = run(reads(exe, root)["search"])
                if n >= 0:
                    timed.setdefault(f"{prefix}search (no server)", []).append(sample)

        server, port, token = start_server(root, env, scope="read")
        try:
            wait_current(port, token)
            served_how = {name: verbose(argv) for name, argv in reads(hearth, root).items()}
            for n in range(-1, args.rounds):
                for prefix, exe in hearths.items():
                    for name, argv in reads(exe, root).items():
                        sample = run(argv)
                        if n >= 0:
                            timed.setdefault(f"{prefix}{name} (server running)", []).append(sample)
        finally:
            server.terminate()
            server.wait(timeout=60)

        for name, how in served_how.items():
            print(f"  {name}: {how}")
        print(f"\n{args.rounds} rounds:")
        for name in [k for k in timed if not k.startswith("baseline: ")]:
            p50 = report(name, timed[name], None)
            base = timed.get(f"baseline: {name}")
            if base:
                baseline = report(f"baseline: {name}", base, None)
                print(f"  {'':<40} {p50 / baseline:.2f}x the baseline's wall p50")
        print(f"load average after: {load_average()} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
