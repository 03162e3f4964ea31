"""Where a CLI write's time goes beside the home's server (issue 52's "every CLI
write through the one server, <= 150 ms p50").

    .venv/bin/python bench/write_costs.py [--files 1000] [--rounds 9] [--work DIR] [--semantic]

A generated home (``--files`` topic files; semantic ranking off unless
``--semantic``) and its ``hearth serve``, idle before the first figure. Each
write of ``WRITES`` runs ``--rounds`` times as the ``hearth`` beside this
Python, and each row gives, as p50:

- ``wall``: the command's time, process start included (what a person waits);
- ``client cpu``: the command's own CPU time (user + system: interpreter start,
  imports, the request), from ``wait4``;
- ``server cpu``: the server's CPU time while the command ran (its part of the
  request, and anything else it did meanwhile), from ``/proc/PID/stat``;
- ``http``: the same write sent straight to the server over loopback, timed
  here (the server's part, no client process), for the writes that have a body.

CPU times hold on a loaded machine where wall times do not: on a machine of two
cores shared with other work, ``client cpu + server cpu`` is what the write
would take with the cores to itself (less the disk's waits). ``python -c pass``
and ``hearth --help`` rows give the floor: an interpreter's start, and click's.
Figures, not assertions; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from homegen import in_work, seed_home, start_server, use_git_identity, wait_idle

HEARTH = str(Path(sys.executable).parent / "hearth")
TICKS = os.sysconf("SC_CLK_TCK")

#: Each write: its arguments ({n}: the round), and the request that does the same
#: over HTTP (method, path, body), or None.
WRITES: dict[str, tuple[list[str], tuple[str, str, dict[str, object]] | None]] = {
    "note": (["note", "bench note {n}"], ("POST", "/v1/daily", {"text": "api note {n}"})),
    "memory add": (
        ["memory", "add", "MEMORY.md", "bench entry {n}"],
        ("POST", "/v1/memory/MEMORY.md/entries", {"entry": "api entry {n}"}),
    ),
    "loop add": (["loop", "add", "--title", "bench loop {n}"], None),
    "propose": (["propose", "--title", "bench proposal {n}", "--entry", "bench fact {n}"], None),
    "topic": (
        ["topic", "bench topic", "--append", "round {n}"],
        ("POST", "/v1/topics", {"title": "api topic", "append": "round {n}"}),
    ),
    "restore": (
        ["restore", "MEMORY.md", "HEAD~1"],
        ("POST", "/v1/restore", {"path": "MEMORY.md", "rev": "HEAD~1"}),
    ),
    "consolidate": (["consolidate", "MEMORY.md"], None),
    "rollup": (["rollup", "--week", "{week}"], None),
    "reindex": (["reindex"], ("POST", "/v1/reconcile", {})),
    "token list": (["token", "list"], None),
}


def cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def run_child(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) of one process, its CPU read from ``wait4``."""
    started = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=_quiet())
    _pid, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv[3:])} failed (exit {status})")
    return wall, usage.ru_utime + usage.ru_stime


def _quiet() -> list[tuple[int, int, str, int, int]]:
    return [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ]


def http_write(
    port: int, token: str, method: str, path: str, body: dict[str, object]
) -> float | None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    try:
        started = time.perf_counter()
        conn.request(method, path, body=json.dumps(body), headers=headers)
        reply = conn.getresponse()
        raw = reply.read()
        took = time.perf_counter() - started
    finally:
        conn.close()
    if reply.status == 404 and b"not_found" in raw and b"Not Found" in raw:
        return None  # a checkout without that route
    if reply.status != 200:
        raise SystemExit(f"{method} {path} answered {reply.status}")
    return took


def _filled(value: object, n: int, week: str) -> object:
    if isinstance(value, str):
        return value.format(n=n, week=week)
    if isinstance(value, dict):
        return {k: _filled(v, n, week) for k, v in value.items()}
    return value


def run(root: Path, args: argparse.Namespace) -> None:
    # Installed users have compiled modules: a sandbox's PYTHONDONTWRITEBYTECODE
    # would time compiling hearth's source in every command (kept aside, so no
    # source tree is written to).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(root.parent / "pycache")
    env = use_git_identity(semantic=args.semantic)
    env["HEARTH_SERVER"] = "off"  # the server below, never one started on demand
    os.environ["HEARTH_SERVER"] = "off"
    print(f"seeding {args.files} files ...", flush=True)
    seed_home(root, args.files, random.Random(52))
    server, port, token = start_server(root, env, scope="admin")
    wait_idle(server.pid)
    iso = dt.datetime.now(dt.UTC).isocalendar()
    week = f"{iso[0]}-W{iso[1]:02d}"
    base = [HEARTH, "--home", str(root)]
    subprocess.run(
        [*base, "note", "a note for the rollup"], env=env, check=True, capture_output=True
    )
    floors = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "hearth --help": [HEARTH, "--help"],
    }
    rows: dict[str, dict[str, list[float]]] = {}
    for n in range(args.rounds):
        for name, argv in floors.items():
            wall, cpu = run_child(argv, env)
            row = rows.setdefault(name, {"wall": [], "client": [], "server": [], "http": []})
            row["wall"].append(wall)
            row["client"].append(cpu)
        for name, (argv, request) in WRITES.items():
            row = rows.setdefault(name, {"wall": [], "client": [], "server": [], "http": []})
            before = cpu_of(server.pid)
            wall, cpu = run_child([*base, *(str(_filled(a, n, week)) for a in argv)], env)
            row["server"].append(cpu_of(server.pid) - before)
            row["wall"].append(wall)
            row["client"].append(cpu)
            if request is not None:
                method, path, body = request
                filled = _filled(body, n, week)
                assert isinstance(filled, dict)
                took = http_write(port, token, method, path, filled)
                if took is not None:
                    row["http"].append(took)
    load = os.getloadavg()[0]
    print(f"load average (1 min) at the end: {load:.1f} on {os.cpu_count()} cores")
    print(f"{'':>16} {'wall':>8} {'client cpu':>11} {'server cpu':>11} {'http':>8}  (p50, ms)")
    for name, row in rows.items():
        cells = [
            f"{statistics.median(row[k]) * 1000:.0f}" if row[k] else "-"
            for k in ("wall", "client", "server", "http")
        ]
        print(f"{name:>16} {cells[0]:>8} {cells[1]:>11} {cells[2]:>11} {cells[3]:>8}")
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--semantic", action="store_true", help="semantic ranking on")
    args = parser.parse_args()
    in_work(args.work, lambda work: run(work / "home", args))


if __name__ == "__main__":
    main()
