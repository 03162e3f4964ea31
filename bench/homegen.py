"""A generated home for the benchmarks: N topic files of about 2 KB, committed with git."""

from __future__ import annotations

import os
import random
import statistics
import subprocess
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


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def summary(name: str, samples: list[float]) -> float:
    ms = sorted(s * 1000 for s in samples)
    p50 = statistics.median(ms)
    p90 = ms[int(len(ms) * 0.9) - 1]
    print(f"  {name:<38} p50 {p50:7.1f} ms   p90 {p90:7.1f} ms   (n={len(ms)})")
    return p50


def use_git_identity() -> dict[str, str]:
    os.environ.update(GIT_ENV)
    return dict(os.environ)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]
