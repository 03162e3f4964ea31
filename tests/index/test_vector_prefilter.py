"""The vector store's binary prefilter (an approximate search above a row count).

A prefiltered search scores only the rows whose sign bits are nearest the
query's in Hamming distance, then reads them again exactly as the full scan
does. Handed every row, it must give the full scan's answer bit for bit;
handed a share, it gives the exact cosines of the rows it kept, and the
background (mean, spread) it reports comes from moments, not a full scan.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hearth.index import vectors
from hearth.index.vectors import VectorStore, open_store

Array = np.ndarray  # type: ignore[type-arg]


def _rows(rng: np.random.Generator, count: int, dims: int) -> Array:
    centres = rng.normal(size=(4, dims))
    rows = centres[rng.integers(0, 4, count)] + rng.normal(scale=0.5, size=(count, dims))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _store(tmp_path: Path, rows: Array) -> VectorStore:
    store = open_store(tmp_path / "vectors", "m", rows.shape[1])
    store.add([f"{i:032x}" for i in range(len(rows))], rows)
    return store


def test_the_prefilter_handed_every_row_answers_as_the_full_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Case: with as many candidates as rows, the prefiltered search gives
    the same digests, in the same order, with the same cosines, as the
    exact scan; its background matches the full scan's to rounding; rows
    appended after its first search are found."""
    rng = np.random.default_rng(7)
    rows = _rows(rng, 700, 72)  # 72 dims: fewer than the prefilter's components
    store = _store(tmp_path, rows[:600])
    queries = _rows(rng, 12, 72)
    for step in (600, 700):
        if step == 700:
            store.add([f"{i:032x}" for i in range(600, 700)], rows[600:])
        for query in queries:
            monkeypatch.setattr(vectors, "PREFILTER_FROM", 1 << 62)
            full = store.nearest_in(query, 30)
            monkeypatch.setattr(vectors, "PREFILTER_FROM", 0)
            monkeypatch.setattr(vectors, "PREFILTER_SHARE", 1.0)
            approx = store.nearest_in(query, 30)
            assert approx.pairs == full.pairs
            assert approx.rows == full.rows == step
            assert approx.mean == pytest.approx(full.mean, abs=1e-5)
            assert approx.spread == pytest.approx(full.spread, abs=1e-5)


def test_a_share_of_the_rows_gives_exact_cosines_of_the_nearest_in_hamming(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Case: with a share of the rows, every answer is a stored row with its
    exact cosine, at most the candidates' count of them, best first; the
    row nearest the query (the query is a stored row) is always kept."""
    rng = np.random.default_rng(11)
    rows = _rows(rng, 2000, 64)
    store = _store(tmp_path, rows)
    monkeypatch.setattr(vectors, "PREFILTER_FROM", 0)
    monkeypatch.setattr(vectors, "PREFILTER_SHARE", 0.025)
    monkeypatch.setattr(vectors, "PREFILTER_LEAST", 10)
    for at in (3, 500, 1999):
        found = store.nearest_in(rows[at], 100)
        assert len(found.pairs) == 50  # 2.5% of 2,000 rows
        assert found.pairs[0][0] == f"{at:032x}"
        cosines = [c for _d, c in found.pairs]
        assert cosines == sorted(cosines, reverse=True)
        for digest, cosine in found.pairs:
            exact = float(rows[int(digest, 16)].astype(np.float64) @ rows[at].astype(np.float64))
            assert cosine == pytest.approx(exact, abs=1e-3)  # rows are stored as float16
