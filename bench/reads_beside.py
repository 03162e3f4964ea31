"""The CLI's reads beside a running server, this checkout against another, in turns.

    .venv/bin/python bench/reads_beside.py HOME [--compare SRC] [--rounds 20] [--turns 2]
        [--vectors filling|complete] [--keyword]

HOME is an existing home (e.g. a 10,000-file one a bench seeded); it is never
changed: each run of a server gets a fresh copy. ``--vectors filling`` (the
default) removes the copy's vectors, so the server embeds every section in the
background under every figure, as a new home's does; ``complete`` keeps
HOME's (give a home whose vectors are complete); ``--keyword`` turns semantic
ranking off. ``--compare SRC`` runs another checkout's ``src`` (put first on
``PYTHONPATH``) in turns with this one, each turn in both orders' halves.

For each of ``status``, ``get``, ``context`` and ``search`` it prints, p50 over
``--rounds``: the command's wall time (process start included), its CPU
(user + system, less moved by a loaded machine), and the server's part alone
(the same ``GET`` over the home's socket, from this process).

Figures, not assertions. Every server it starts is stopped.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from hearth.client import transport
from hearth.store.server_file import local_token

HEARTH = str(Path(sys.executable).parent / "hearth")
READS = {
    "status": (["status"], "/v1/status"),
    "get": (["get", "SOUL.md"], "/v1/files/SOUL.md"),
    "context": (
        ["context", "--session", "subagent", "--query", "garden lantern"],
        "/v1/context?session=subagent&q=garden+lantern",
    ),
    "search": (["search", "garden lantern"], "/v1/search?q=garden+lantern&limit=10"),
}


def p50(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def command(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``argv``."""
    started = time.perf_counter()
    child = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    assert child.stderr is not None
    err = child.stderr.read()
    _pid, code, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(code)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(argv[3:])} failed: {err.decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime


def served_part(root: Path, path: str) -> float:
    server = transport.find(root)
    if server is None:
        raise SystemExit("the server went away")
    started = time.perf_counter()
    status, _headers, _body = transport.exchange(
        server,
        "GET",
        path,
        {"Authorization": "Bearer " + local_token(server.key, "read", "bench")},
        b"",
    )
    took = time.perf_counter() - started
    if status != 200:
        raise SystemExit(f"GET {path} answered {status}")
    return took


def one_server(home: Path, src: Path | None, args: argparse.Namespace) -> dict[str, list[float]]:
    """A fresh copy of ``home`` served by ``src`` (None: this checkout): each read's
    (wall p50, CPU p50, server's part p50) in milliseconds."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["HEARTH_SERVER"] = "on"
    if args.keyword:
        env["HEARTH_SEMANTIC"] = "off"
    if src is not None:
        env["PYTHONPATH"] = str(src)
    with tempfile.TemporaryDirectory(prefix="hearth-reads-") as tmp:
        root = Path(tmp) / "home"
        shutil.copytree(home, root, symlinks=True)
        if args.vectors == "filling":
            shutil.rmtree(root / ".git/hearth/vectors", ignore_errors=True)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        server = subprocess.Popen(
            [HEARTH, "--home", str(root), "serve", "--port", "0"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
        try:
            return _timed(root, env, args)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=60)


def _timed(root: Path, env: dict[str, str], args: argparse.Namespace) -> dict[str, list[float]]:
    deadline = time.monotonic() + 120
    while _status(root) is None:
        if time.monotonic() > deadline:
            raise SystemExit("the server did not answer in 120 s")
        time.sleep(0.2)
    for argv, _path in READS.values():  # compiled modules, a first query embedded
        command([HEARTH, "--home", str(root), *argv], env)
    time.sleep(args.settle)
    rows: dict[str, list[float]] = {}
    for name, (argv, path) in READS.items():
        runs = [command([HEARTH, "--home", str(root), *argv], env) for _ in range(args.rounds)]
        parts = [served_part(root, path) for _ in range(args.rounds)]
        rows[name] = [p50([w for w, _c in runs]), p50([c for _w, c in runs]), p50(parts)]
    embedded = ((_status(root) or {}).get("index") or {}).get("vectors") or {}
    rows["_vectors"] = [float(embedded.get("embedded", 0)), float(embedded.get("sections", 0))]
    return rows


def _status(root: Path) -> dict[str, Any] | None:
    server = transport.find(root)
    return None if server is None else transport.get(server, "/v1/status")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("home", type=Path)
    parser.add_argument("--compare", type=Path, default=None, help="another checkout's src")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--vectors", choices=("filling", "complete"), default="filling")
    parser.add_argument("--keyword", action="store_true", help="semantic ranking off")
    parser.add_argument(
        "--settle", type=float, default=3.0, help="seconds between start and the first figure"
    )
    args = parser.parse_args()
    trees: list[tuple[str, Path | None]] = [("this", None)]
    if args.compare is not None:
        trees.append((str(args.compare), args.compare.resolve()))
    load = os.getloadavg()[0]
    print(f"load average at start: {load:.1f}", flush=True)
    for turn in range(args.turns):
        order = trees if turn % 2 == 0 else trees[::-1]
        for label, src in order:
            rows = one_server(args.home, src, args)
            done, sections = rows.pop("_vectors")
            cells = "; ".join(
                f"{name} {wall:.0f} (cpu {cpu:.0f}, server {part:.1f})"
                for name, (wall, cpu, part) in rows.items()
            )
            print(
                f"turn {turn + 1}, {label} [{done:.0f} of {sections:.0f} embedded at the end]: "
                f"{cells}",
                flush=True,
            )
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    print(json.dumps({"command": sys.argv}))


if __name__ == "__main__":
    main()
