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
    exact scan; its background matches the full scan's to the codes' rounding; rows
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
            assert approx.spread == pytest.approx(full.spread, rel=1e-2)  # from other codes


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


_CUT_UNDER_A_MAP = """
import sys
from pathlib import Path

import numpy as np

from hearth.index.vector_files import cut_torn_tail
from hearth.index.vectors import open_store

folder, dims = Path(sys.argv[1]), 16
store = open_store(folder, "m", dims)
rows = np.eye(dims, dtype=np.float32)
store.add([f"{i:032x}" for i in range(dims)], rows)
with (folder / "rows").open("ab") as out:  # another process died between rows and keys
    out.write(np.ones((4096, dims), dtype=np.float32).tobytes())
store.nearest(rows[0], 3)  # the rows file mapped
cut_torn_tail(folder, dims)  # another process opening the store
print(float(np.asarray(store._map).sum()))  # every row the map holds
"""


def test_a_torn_tail_cut_under_a_live_map_leaves_its_reader_alive(tmp_path: Path) -> None:
    """Case: another process cuts a torn tail (rows without keys) off the
    rows file while a store holds a map of it: every row the map holds is
    still in the file (reading past a file's end through a map kills the
    process with SIGBUS)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _CUT_UNDER_A_MAP, str(tmp_path / "vectors")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])


def test_rows_appended_after_a_torn_tail_stay_with_their_keys(tmp_path: Path) -> None:
    """Case: another process died between writing an append's rows and its
    keys; a store open all along appends next: its rows are found under
    their own digests, by it and by a store opened afresh."""
    rng = np.random.default_rng(3)
    rows = _rows(rng, 40, 32)
    store = _store(tmp_path, rows[:30])
    with (tmp_path / "vectors" / "rows").open("ab") as out:
        out.write(rows[30:35].tobytes())  # its keys never written
    store.add([f"{i:032x}" for i in range(35, 40)], rows[35:])
    again = open_store(tmp_path / "vectors", "m", 32)
    for reader in (store, again):
        for at in (0, 29, 35, 39):
            digest, cosine = reader.nearest(rows[at], 1)[0]
            assert digest == f"{at:032x}"
            assert cosine == pytest.approx(1.0, abs=1e-3)
