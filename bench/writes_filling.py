"""CLI writes beside a server whose vectors are still filling (issue 52's "writes
<= 150 ms p50 while vectors fill").

    .venv/bin/python bench/writes_filling.py [--files 2000] [--rounds 10] [--work DIR]

A new generated home (``--files`` topic files), semantic ranking on, its server
started and asked at once: every write below is timed (process start included)
while the server embeds the home's sections in the background. Each row says how
many of its samples were taken while the filling was still going on (from
``GET /v1/status``'s ``vector_filler.filling``), so a row taken after the vectors
were complete is not read as one taken while they filled. It runs the ``hearth``
beside the Python that runs it (another checkout's ``.venv/bin/python`` times
that checkout). Figures, not assertions; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
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

from homegen import in_work, seed_home, start_server, use_git_identity

HEARTH = str(Path(sys.executable).parent / "hearth")

#: Each write, its arguments ({n}: the round; {key}: a proposal made for it).
WRITES = {
    "note": ["note", "bench note {n}"],
    "memory add": ["memory", "add", "MEMORY.md", "bench entry {n}"],
    "loop add": ["loop", "add", "--title", "bench loop {n}"],
    "decide": ["decide", "--title", "bench decision {n}", "--decision", "yes"],
    "propose": ["propose", "--title", "bench proposal {n}", "--entry", "bench fact {n}"],
    "merge KEY": ["merge", "{key}"],
    "put": ["put", "memory/topics/bench-put-{n}.md", "--from-file", "-"],
}


def hearth(root: Path, env: dict[str, str], *args: str, stdin: str = "") -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [HEARTH, "--home", str(root), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"hearth {' '.join(args)} failed: {done.stderr}")
    return took, done.stdout


def filling(port: int, token: str) -> bool:
    """Whether the server is embedding sections now (its status, over HTTP)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/v1/status", headers={"Authorization": f"Bearer {token}"})
        data = json.loads(conn.getresponse().read())
    finally:
        conn.close()
    filler = data.get("vector_filler") or {}
    return bool(filler.get("filling"))


def api_write(port: int, token: str, n: int) -> float:
    """``POST /v1/daily`` over HTTP: the server's part of a write alone."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    body = json.dumps({"text": f"api note {n}"})
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    try:
        started = time.perf_counter()
        conn.request("POST", "/v1/daily", body=body, headers=headers)
        reply = conn.getresponse()
        reply.read()
        took = time.perf_counter() - started
    finally:
        conn.close()
    if reply.status != 200:
        raise SystemExit(f"POST /v1/daily answered {reply.status}")
    return took


def run(root: Path, args: argparse.Namespace) -> None:
    # Installed users have compiled modules: a sandbox's PYTHONDONTWRITEBYTECODE
    # would time compiling hearth's source in every command (kept aside, so no
    # source tree is written to).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(root.parent / "pycache")
    env = use_git_identity(semantic=not args.keyword)
    env["HEARTH_SERVER"] = "on"
    print(f"seeding {args.files} files ...", flush=True)
    seed_home(root, args.files, random.Random(52))
    server, port, token = start_server(root, env)
    keys = [
        hearth(root, env, "propose", "--title", f"to merge {n}", "--entry", f"merge fact {n}")[
            1
        ].strip()
        for n in range(args.rounds)
    ]
    names = [*WRITES, "POST /v1/daily (the server's part)"]
    rows: dict[str, list[float]] = {name: [] for name in names}
    during: dict[str, int] = dict.fromkeys(names, 0)
    for n in range(args.rounds):
        for name, argv in WRITES.items():
            was = filling(port, token)
            took, _out = hearth(
                root,
                env,
                *(a.format(n=n, key=keys[n]) for a in argv),
                stdin=f"# Put {n}\n\nA note written by put, round {n}.\n",
            )
            rows[name].append(took)
            during[name] += was and filling(port, token)
        was = filling(port, token)
        rows["POST /v1/daily (the server's part)"].append(api_write(port, token, n))
        during["POST /v1/daily (the server's part)"] += was and filling(port, token)
    filled = "" if args.keyword else ", vectors filling"
    for name, samples in rows.items():
        shown = name if name.startswith("POST") else f"hearth {name}"
        print(
            f"{shown}{filled}: p50 {statistics.median(samples) * 1000:.0f} ms "
            f"({during[name]} of {len(samples)} samples while the filling ran)"
        )
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument(
        "--keyword", action="store_true", help="semantic ranking off: no vectors fill (a baseline)"
    )
    args = parser.parse_args()
    in_work(args.work, lambda work: run(work / "home", args))


if __name__ == "__main__":
    main()
