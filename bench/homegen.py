"""A generated home for the benchmarks: N topic files of about 2 KB, committed with git."""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}

WORDS = [
    "garden",
    "tomato",
    "seeds",
    "compost",
    "river",
    "kettle",
    "lantern",
    "orchard",
    "meadow",
    "letter",
    "harbor",
    "window",
    "pepper",
    "ladder",
    "basket",
    "violin",
    "marble",
    "cedar",
    "thistle",
    "bramble",
    "copper",
]


def paragraph(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def topic_path(i: int) -> str:
    return f"memory/topics/t{i // 500:02d}/topic-{i:05d}.md"


def generate(root: Path, count: int, rng: random.Random) -> None:
    for i in range(count):
        path = root / topic_path(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(f"## Part {p}\n\n{paragraph(rng, 90)}" for p in range(3))
        path.write_text(f"# Topic {i}\n\n{body}\n")


def in_work(work: Path | None, run: Callable[[Path], None]) -> None:
    """``run`` in ``work`` (made if missing, kept for the next run), or in a
    temporary folder removed afterwards when no ``--work`` was given."""
    import tempfile

    if work is not None:
        work.mkdir(parents=True, exist_ok=True)
        run(work)
        return
    with tempfile.TemporaryDirectory(prefix="hearth-bench-") as tmp:
        run(Path(tmp))


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def summary(name: str, samples: list[float]) -> float:
    ms = sorted(s * 1000 for s in samples)
    p50 = statistics.median(ms)
    p90 = ms[int(len(ms) * 0.9) - 1]
    print(f"  {name:<38} p50 {p50:7.1f} ms   p90 {p90:7.1f} ms   (n={len(ms)})")
    return p50


def use_git_identity(*, semantic: bool = False) -> dict[str, str]:
    """The bench's git identity, for this process and its children.

    Semantic ranking is off unless asked for: the timing benches measure
    keyword indexing and search, and filling the vectors of a 10,000-file
    home takes many minutes of CPU that would run under their figures.
    bench/recall.py measures hybrid ranking.
    """
    os.environ.update(GIT_ENV)
    if semantic:
        os.environ.pop("HEARTH_SEMANTIC", None)
    else:
        os.environ["HEARTH_SEMANTIC"] = "off"
    return dict(os.environ)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def seed_home(root: Path, files: int, rng: random.Random) -> None:
    """A new home at ``root`` with ``files`` generated topic files, committed with git."""
    from hearth import wiring

    wiring.initialize(root)
    generate(root, files, rng)
    git(root, "add", "-A")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "bench: seed")


def start_server(
    root: Path, env: dict[str, str], scope: str = "write", name: str = "bench"
) -> tuple[object, int, str]:
    """``hearth serve`` on a free loopback port, once it answers: (process, port, token)."""
    import http.client
    import socket
    import sys
    import time

    hearth = str(Path(sys.executable).parent / "hearth")
    token = subprocess.run(
        [hearth, "--home", str(root), "token", "create", "--name", name, "--scope", scope],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    server = subprocess.Popen(
        [hearth, "--home", str(root), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    while True:
        try:
            probe = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            probe.request("GET", "/healthz")
            if probe.getresponse().status == 200:
                return server, port, token
        except OSError:
            pass
        time.sleep(0.05)  # not listening yet, or 503 while its start-up pass runs


def wait_idle(pid: int, timeout: float = 120.0) -> float:
    """Wait until the server's start-up work (its first pass, the watcher's
    set-up, the first listing of every section's passage for the vectors) is
    done: under 5% of a core for half a second. Returns the seconds waited."""
    t0 = time.perf_counter()
    ticks = os.sysconf("SC_CLK_TCK")

    def used() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    before = used()
    while time.perf_counter() - t0 < timeout:
        time.sleep(0.5)
        now = used()
        if now - before < 0.025:
            break
        before = now
    return time.perf_counter() - t0
