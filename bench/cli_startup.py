"""Time the CLI's start-up on a small home, beside Python's own start-up.

    .venv/bin/python bench/cli_startup.py [--rounds 30] [--hearth PATH] [--baseline PATH]

In one run, round by round (so a busy machine weighs on all of them alike):

- `python -c pass`: the floor, what any Python command costs;
- `python -c "import click"`: what any click command line costs before its
  own code (hearth does not replace click: the floor of `--help`);
- `hearth --help`;
- `hearth status` with no server, on a settled home (nothing changed since the
  last pass: it reads the status without a pass, app/status/lean.py);
- `hearth status` with `hearth serve` running for the home (it asks the server);
- `hearth status` after an edit with no server (a reconcile pass runs first), for
  comparison.

The home has hearth.toml's defaults, semantic ranking on (no command here
embeds; the server's vectors are complete before its figures are taken).
Prints wall-clock p50 and p90 and the CPU time (user + system, the command and
what it starts) p50 of each, and each p50 over the floor's. `--hearth` times
another hearth executable; `--baseline` times a second one's `--help` and
`status` in the same rounds (a before/after on a busy machine). Figures, not
assertions.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from homegen import start_server, use_git_identity

GOAL_MS = 100.0


def run(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one command (CPU: it and the processes it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def verbose_line(argv: list[str]) -> str:
    done = subprocess.run([*argv, "--verbose"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return "(this hearth does not say: no status --verbose)"
    return done.stderr.strip()


def age(root: Path) -> None:
    """Every file last changed a minute ago, as on a home at rest."""
    past = time.time() - 60
    for path in root.rglob("*"):
        if ".git" not in path.relative_to(root).parts:
            os.utime(path, (past, past), follow_symlinks=False)


def wait_current(port: int, token: str, deadline: float = 600.0) -> None:
    """Until the server's status is current and every section has its vector (so
    no background embedding runs under the figures)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/v1/status", headers={"Authorization": f"Bearer {token}"})
        data = json.loads(conn.getresponse().read())
        conn.close()
        vectors = data["index"].get("vectors") or {"complete": True}
        if data.get("snapshot", {}).get("current") and vectors["complete"]:
            return
        time.sleep(0.2)
    raise SystemExit(f"the server's status was not current after {deadline} s")


def report(name: str, samples: list[tuple[float, float]], floor: float | None) -> float:
    walls = sorted(w * 1000 for w, _ in samples)
    cpu = statistics.median(c * 1000 for _, c in samples)
    p50 = statistics.median(walls)
    p90 = walls[max(0, int(len(walls) * 0.9) - 1)]
    ratio = f"   {p50 / floor:5.1f}x the floor" if floor else ""
    print(f"  {name:<40} wall p50 {p50:6.1f} ms  p90 {p90:6.1f} ms  cpu {cpu:6.1f} ms{ratio}")
    return p50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--hearth", default=str(Path(sys.executable).parent / "hearth"))
    parser.add_argument("--baseline", default=None, help="another hearth, timed alongside")
    args = parser.parse_args()
    hearth = args.hearth
    python = str(Path(hearth).parent / "python")
    if not Path(python).exists():
        python = sys.executable

    with tempfile.TemporaryDirectory(prefix="hearth-bench-") as tmp:
        # Installed users have compiled modules: keep them (aside, so no source
        # tree is written to); a sandbox's PYTHONDONTWRITEBYTECODE would time
        # compiling hearth on every run.
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        use_git_identity(semantic=True)
        root = Path(tmp) / "home"
        subprocess.run([hearth, "init", str(root)], capture_output=True, check=True)
        age(root)
        status = [hearth, "--home", str(root), "status"]
        commands = {
            "python -c pass (the floor)": [python, "-c", "pass"],
            "python -c 'import click'": [python, "-c", "import click"],
            "hearth --help": [hearth, "--help"],
            "hearth status (no server, settled home)": status,
        }
        if args.baseline:
            commands["baseline: hearth --help"] = [args.baseline, "--help"]
            commands["baseline: hearth status (no server)"] = [
                args.baseline,
                "--home",
                str(root),
                "status",
            ]
        for argv in [*commands.values(), status]:  # warm-up: caches, compiled modules
            run(argv)
        print(f"load average before: {load_average()}")
        print(f"small home ({len(list(root.rglob('*.md')))} markdown files), {hearth}")
        if args.baseline:
            print(f"  baseline: {args.baseline}")
        print(f"  no server: {verbose_line(status)}")

        timed: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        edited: list[tuple[float, float]] = []
        target = root / "MEMORY.md"
        for n in range(args.rounds):
            for name, argv in commands.items():
                timed[name].append(run(argv))
            with target.open("a") as handle:
                handle.write(f"\n- remembered in round {n}\n")
            edited.append(run(status))
            age(root)
            run(status)  # settles it again for the next round (untimed)

        server, port, token = start_server(root, dict(os.environ), scope="read")
        try:
            wait_current(port, token)
            served_how = verbose_line(status)
            run(status)
            served = [run(status) for _ in range(args.rounds)]
        finally:
            server.terminate()
            server.wait(timeout=30)

        print(f"  server:    {served_how}")
        print(f"\nstart-up, {args.rounds} rounds (goal: under {GOAL_MS:.0f} ms wall):")
        floor = report("python -c pass (the floor)", timed.pop("python -c pass (the floor)"), None)
        for name, samples in timed.items():
            report(name, samples, floor)
        report("hearth status (server running)", served, floor)
        report("hearth status (no server, after an edit)", edited, floor)
        print(f"load average after: {load_average()} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
