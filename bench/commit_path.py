"""Time hearth's commit path against `git add && git commit` on a 10,000-file home.

    .venv/bin/python bench/commit_path.py [--files 10000] [--rounds 40] [--http] [--work DIR]

Builds a throwaway home with N markdown files (about 2 KB each), commits them
with the git CLI, then alternates, round by round:

- hearth in-process: `Home.put` of one topic file (validation, tree build,
  compare-and-swap commit, atomic work-tree write, index entry update, and
  the targeted reconcile pass that makes the write searchable);
- hearth in-process: `Home.note` (daily append);
- the git CLI: edit one file, `git add <file> && git commit -q -m ...`;
- the hearth CLI: `hearth note ...` as a subprocess (Python start-up included).

Prints medians and p90s in milliseconds and the ratio of hearth's in-process
write to the git CLI's.

With ``--http`` it times the API instead, against `hearth serve` on the same
home, each write on a settled server: ``POST /v1/daily`` (answered once the
note is committed and indexed, so searchable) against `git add && git commit`
round by round. ``--work DIR`` keeps the generated home for the next run.
Figures, not assertions: nothing here fails on speed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hearth import wiring
from hearth.domain.sections import split_sections
from hearth.index.search_index import SearchIndex
from homegen import (
    git,
    in_work,
    paragraph,
    seed_home,
    start_server,
    summary,
    topic_path,
    use_git_identity,
    wait_idle,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    rng = random.Random(7)
    env = use_git_identity()
    if args.http:
        in_work(args.work, lambda work: http_writes(work, args.files, args.rounds, rng, env))
        return

    with tempfile.TemporaryDirectory(prefix="hearth-bench-") as tmp:
        root = Path(tmp) / "home"
        started = time.perf_counter()
        seed_home(root, args.files, rng)
        print(f"seeded {args.files} files in {time.perf_counter() - started:.1f} s")

        home = wiring.open_app(root)
        t0 = time.perf_counter()
        home.reconcile()
        print(f"built the search index in {time.perf_counter() - t0:.1f} s (writes index too)")
        hearth_exe = str(Path(sys.executable).parent / "hearth")
        put_times: list[float] = []
        note_times: list[float] = []
        git_times: list[float] = []
        cli_times: list[float] = []
        for r in range(args.rounds):
            target = topic_path((r * 37) % args.files)
            content = (root / target).read_text() + f"\n{paragraph(rng, 20)}\n"

            t0 = time.perf_counter()
            home.put(target, content.encode(), "bench")
            put_times.append(time.perf_counter() - t0)

            t0 = time.perf_counter()
            home.note(paragraph(rng, 30), f"round {r}", "bench")
            note_times.append(time.perf_counter() - t0)

            other = topic_path((r * 53 + 11) % args.files)
            with open(root / other, "a") as handle:
                handle.write(f"\n{paragraph(rng, 20)}\n")
            t0 = time.perf_counter()
            git(root, "add", other)
            git(root, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", f"bench: round {r}")
            git_times.append(time.perf_counter() - t0)

            if r % 4 == 0:
                t0 = time.perf_counter()
                subprocess.run(
                    [hearth_exe, "--home", str(root), "note", paragraph(rng, 10)],
                    check=True,
                    capture_output=True,
                    env=env,
                )
                cli_times.append(time.perf_counter() - t0)

        clean = subprocess.run(
            ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True
        ).stdout
        print(f"\nwrite latency on a {args.files}-file home ({args.rounds} rounds):")
        put_p50 = summary("hearth put (in-process)", put_times)
        note_p50 = summary("hearth daily append (in-process)", note_times)
        git_p50 = summary("git add <file> && git commit", git_times)
        summary("hearth note (CLI subprocess)", cli_times)
        print(f"\nratio hearth put / git CLI:          {put_p50 / git_p50:.2f}")
        print(f"ratio hearth daily append / git CLI: {note_p50 / git_p50:.2f}")
        print(f"git status after the run: {clean or 'clean'}")
        index_commit_floor(root, Path(tmp), rng)


def http_writes(
    work: Path, files: int, rounds: int, rng: random.Random, env: dict[str, str]
) -> None:
    """``POST /v1/daily`` over HTTP against `git add && git commit`, on a settled server."""
    root = work / f"home-{files}"
    if not (root / ".git/hearth/index").is_dir():
        if root.exists():
            shutil.rmtree(root)
        seed_home(root, files, rng)
    hearth_exe = str(Path(sys.executable).parent / "hearth")
    subprocess.run([hearth_exe, "--home", str(root), "hooks", "install"], check=True, env=env)
    subprocess.run([hearth_exe, "--home", str(root), "reindex"], check=True, env=env)
    if subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip():
        git(root, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-a", "-m", "bench: left")
    server, port, token = start_server(root, env, name=f"bench-{time.time_ns()}")
    pid = server.pid
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def call(method: str, target: str, body: object = None) -> dict[str, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request(method, target, json.dumps(body) if body is not None else None, headers)
        reply = conn.getresponse()
        data = json.loads(reply.read())
        conn.close()
        if reply.status >= 300:
            raise SystemExit(f"{method} {target}: {reply.status} {data}")
        return data  # type: ignore[no-any-return]

    try:
        wait_idle(pid)
        api_times: list[float] = []
        git_times: list[float] = []
        run = time.time_ns() % 1_000_000
        for r in range(rounds):
            word = f"zqapi{run}x{r}".replace("0", "o")
            t0 = time.perf_counter()
            done = call("POST", "/v1/daily", {"text": f"{paragraph(rng, 30)} {word}", "title": "b"})
            api_times.append(time.perf_counter() - t0)
            hits = call("GET", f"/v1/search?q={word}")["hits"]
            if not any(h["path"] == done["path"] for h in hits):
                raise SystemExit(f"the write of round {r} is not searchable on return")
            wait_idle(pid)
            other = topic_path((r * 53 + 11) % files)
            with open(root / other, "a") as handle:
                handle.write(f"\n{paragraph(rng, 20)}\n")
            wait_idle(pid)  # the server takes in the edit first, as an editor's save
            t0 = time.perf_counter()
            git(root, "add", other)
            git(root, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", f"bench: round {r}")
            git_times.append(time.perf_counter() - t0)
            wait_idle(pid)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"\nwrites over HTTP on a {files}-file home ({rounds} rounds, settled server):")
    api = summary("POST /v1/daily (committed, searchable)", api_times)
    plain = summary("git add <file> && git commit", git_times)
    print(f"\nratio API write / git CLI:            {api / plain:.2f}  (goal <= 0.5)")


def index_commit_floor(root: Path, scratch: Path, rng: random.Random, rounds: int = 20) -> None:
    """Where a write's index time goes: Tantivy's commit on this disk and on tmpfs.

    A copy of the home's index takes the sections of one file, one commit a
    round, on the home's filesystem and (when there is one) on ``/dev/shm``;
    and a 1 KB file is written and synced (``fdatasync``) on the home's
    filesystem. Tantivy syncs every file of a new segment and its own
    bookkeeping at each commit; git's `add && commit` syncs nothing by default.
    """
    live = root / ".git" / "hearth" / "index"
    target = topic_path(1)
    places = [("home's filesystem", scratch / "index-copy")]
    if Path("/dev/shm").is_dir():
        places.append(("tmpfs (/dev/shm)", Path(tempfile.mkdtemp(dir="/dev/shm")) / "index"))
    print("\nwhere a write's index time goes (one file's sections, one commit each):")
    for name, folder in places:
        shutil.copytree(live, folder)
        index = SearchIndex(folder)
        times = []
        for _ in range(rounds):
            text = (root / target).read_text() + f"\n{paragraph(rng, 20)}\n"
            sections = split_sections(target, text)
            t0 = time.perf_counter()
            index.apply({target: sections}, ())
            times.append(time.perf_counter() - t0)
        index.close()
        summary(f"Tantivy commit, {name}", times)
        shutil.rmtree(folder.parent if name.startswith("tmpfs") else folder)
    syncs = []
    probe = root / ".git" / "hearth" / "sync-probe"
    for _ in range(rounds):
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, b"x" * 1024)
            t0 = time.perf_counter()
            os.fdatasync(fd)
            syncs.append(time.perf_counter() - t0)
        finally:
            os.close(fd)
    probe.unlink()
    summary("one fdatasync of 1 KB, home's disk", syncs)


if __name__ == "__main__":
    main()
