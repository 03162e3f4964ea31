"""`hearth reindex --full` as the workload meets it, with and without a server.

    .venv/bin/python bench/reindex_served.py [--home DIR] [--pythonpath SRC]

On a copy of ``--home`` (a folder of notes with no ``.git``, such as one
``homegen.generate_home`` made), with semantic ranking off: ``hearth init``,
then ``reindex --full`` with no server running (twice: the workload's two
builds), again beside a server (one a search started on demand), again
beside it, alone (``HEARTH_SERVER=off``), then the FTS5 build twice. Each line
gives the wall seconds and the CPU seconds of the command (with its reaped
children) and of the server (with its reader workers, from ``/proc``), so
that a loaded machine still shows where the work goes. ``--pythonpath``
runs another tree's ``src`` (a ``git archive`` of it with ``home_template``).
Asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from homegen import use_git_identity
from measure import FTS5_BUILD, HEARTH


def cpu_of(pid: int) -> float:
    """User and system seconds of ``pid`` and its reaped children."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def server_pid(home: Path) -> int | None:
    try:
        return int(json.loads((home / ".git/hearth/server.json").read_text())["pid"])
    except (OSError, ValueError, KeyError):
        return None


def stop_server(home: Path) -> None:
    pid = server_pid(home)
    if pid is not None:
        os.kill(pid, signal.SIGTERM)
    while server_pid(home) is not None:
        time.sleep(0.1)


def timed(label: str, command: list[str], env: dict[str, str], home: Path) -> None:
    pid = server_pid(home)
    before = cpu_of(pid) if pid else 0.0
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr[-2000:]}")
    own = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    after = server_pid(home)
    served = (cpu_of(after) - (before if after == pid else 0.0)) if after else 0.0
    print(
        f"{label:30s} wall {wall:6.2f} s  command CPU {own:5.2f} s  server CPU {served:5.2f} s  "
        f"load {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", required=True, type=Path, help="notes to copy (no .git)")
    parser.add_argument("--pythonpath", default=None, help="another tree's src")
    args = parser.parse_args()
    env = use_git_identity()
    if args.pythonpath:
        env["PYTHONPATH"] = args.pythonpath
    with tempfile.TemporaryDirectory(prefix="reindex-served-", ignore_cleanup_errors=True) as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(args.home, home, symlinks=True)
        reindex = [HEARTH, "--home", str(home), "reindex", "--full"]
        timed("init", [HEARTH, "init", str(home), "--json"], env, home)
        timed("reindex --full, no server", reindex, env, home)
        timed("reindex --full, no server", reindex, env, home)
        stop_server(home)  # a tree whose reindex --full starts one
        search = [HEARTH, "--home", str(home), "search", "anything"]
        subprocess.run(search, env=env, capture_output=True, check=True)
        timed("reindex --full, beside a server", reindex, env, home)
        timed("reindex --full, beside a server", reindex, env, home)
        stop_server(home)
        timed("reindex --full, alone", reindex, {**env, "HEARTH_SERVER": "off"}, home)
        db = Path(tmp) / "fts.db"
        for _ in range(2):
            db.unlink(missing_ok=True)
            timed("FTS5 build", [sys.executable, "-c", FTS5_BUILD, str(home), str(db)], env, home)


if __name__ == "__main__":
    main()
