"""The vector store's scan through integer products (issue 52: hybrid search in 10 ms).

Each row's rough score comes from ONNX Runtime's ``MatMulInteger`` over its
8-bit codes and the query's two int8 codes; the rows whose bound leaves the
order open are read again exactly. These tests hold it to the float scan it
replaced (the exact mode, ``integer_scan = False``) and to a product over
every stored float32 row, as rows are appended by another process, compacted
away, and the store's folder is swapped from under a reader.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from hearth.embedding import products
from hearth.embedding.products import CodeProducts
from hearth.index import vectors
from hearth.index.vector_packs import shipped
from hearth.index.vectors import VectorStore, compacted, open_store

Array = np.ndarray  # type: ignore[type-arg]


@pytest.fixture(autouse=True)
def _integer_scan_at_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "INTEGER_FROM", 0)


def _bunched(rng: np.random.Generator, count: int, dims: int, centres: Array) -> Array:
    """Unit rows around a few centres (e5's are bunched: most cosines near 0.8)."""
    rows = centres[rng.integers(0, len(centres), count)] + rng.normal(
        scale=0.04, size=(count, dims)
    )
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _brute(rows: Array, query: Array, count: int) -> list[int]:
    """The rows a float64 product over every row ranks first (ties: the earlier row)."""
    scores = (rows.astype(np.float64) @ query.astype(np.float64)).astype(np.float32)
    return [int(i) for i in np.lexsort((np.arange(len(rows)), -scores))[:count]]


def _both(store: VectorStore, query: Array, count: int) -> tuple[vectors.Nearest, vectors.Nearest]:
    store.integer_scan = True
    integer = store.nearest_in(query, count)
    store.integer_scan = False
    floats = store.nearest_in(query, count)
    store.integer_scan = True
    return integer, floats


def test_the_integer_scan_finds_what_the_float_scan_finds_with_the_same_scores(
    tmp_path: Path,
) -> None:
    """Case: the faster scan changes no result. Same digests in the same order,
    bit-identical cosines, the same background (mean, spread) to 1e-5, on
    bunched rows with exact duplicates, empty rows and one-dimension rows."""
    rng = np.random.default_rng(11)
    dims = 64
    centres = rng.normal(size=(6, dims))
    rows = _bunched(rng, 3000, dims, centres)
    rows[2000:2050] = rows[10:60]  # equal scores: the earlier row first
    rows[2050:2060] = 0.0
    rows[2060:2070] = 0.0
    rows[2060:2070, 3] = 1.0
    store = open_store(tmp_path / "v", "m", dims)
    digests = [f"{i:032x}" for i in range(len(rows))]
    for at in range(0, len(rows), 700):
        store.add(digests[at : at + 700], rows[at : at + 700])
    stored = shipped(rows)
    queries = _bunched(rng, 30, dims, centres)
    queries = np.vstack([queries, stored[20:21], -stored[2065:2066]])
    for query in queries:
        for count in (1, 10, 100, 3000):
            integer, floats = _both(store, query, count)
            assert integer.pairs == floats.pairs
            assert [int(d, 16) for d, _ in integer.pairs] == _brute(stored, query, count)
            assert integer.rows == floats.rows == len(rows)
            assert abs(integer.mean - floats.mean) < 1e-5
            assert abs(integer.spread - floats.spread) < 1e-5


def test_appended_compacted_and_swapped_rows_stay_in_step_with_their_codes(
    tmp_path: Path,
) -> None:
    """Case: updates and deletions keep the codes in step with the rows, and a
    store whose folder vanished (a compaction elsewhere swapped it) still
    answers from the rows it was opened on."""
    rng = np.random.default_rng(12)
    dims = 48
    centres = rng.normal(size=(5, dims))
    rows = _bunched(rng, 2400, dims, centres)
    digests = [f"{i:032x}" for i in range(len(rows))]
    writer = open_store(tmp_path / "v", "m", dims)
    writer.add(digests[:1200], rows[:1200])
    reader = open_store(tmp_path / "v", "m", dims)
    writer.add(digests[1200:], rows[1200:])  # another process's append
    reader.refresh()
    stored = shipped(rows)
    queries = _bunched(rng, 12, dims, centres)
    for query in queries:
        assert [int(d, 16) for d, _ in reader.nearest(query, 50)] == _brute(stored, query, 50)
    live = set(digests[::3])
    kept = compacted(writer, live)  # the folder is rebuilt aside and swapped in
    live_rows = stored[::3]
    for query in queries:
        integer, floats = _both(kept, query, 50)
        assert integer.pairs == floats.pairs
        assert [int(d, 16) // 3 for d, _ in integer.pairs] == _brute(live_rows, query, 50)
        # The reader opened before the swap reads its own rows file still.
        assert [int(d, 16) for d, _ in reader.nearest(query, 50)] == _brute(stored, query, 50)
    shutil.rmtree(tmp_path / "v")  # the folder gone altogether
    assert [int(d, 16) // 3 for d, _ in kept.nearest(queries[0], 5)] == _brute(
        live_rows, queries[0], 5
    )


def test_the_integer_products_stay_within_the_bound_they_report() -> None:
    """Case: the bound the store adds to each row's slack holds: every product
    is within ``|row| * left`` (plus float32 rounding) of the exact one."""
    rng = np.random.default_rng(13)
    codes = rng.integers(-127, 128, size=(5000, 384))
    query = rng.normal(size=384).astype(np.float32)
    query /= np.linalg.norm(query)
    got, left = CodeProducts().scores((codes + 128).astype(np.uint8), query)
    exact = codes.astype(np.float64) @ query.astype(np.float64)
    lengths = np.linalg.norm(codes.astype(np.float64), axis=1)
    assert 0 < left < 1e-3
    assert np.all(np.abs(got - exact) <= lengths * left + 1e-6 * np.abs(exact) + 1e-3)


def test_a_scan_shared_with_a_helper_thread_gives_the_caller_s_products() -> None:
    """Case: hybrid search in 10 ms, the scan taken in runs by the caller and
    a helper thread: the same int32 products as one run over every row, also
    when the rows do not fill the last run."""
    rng = np.random.default_rng(17)
    rows = 2 * products.SHARED_ROWS + 123
    codes = rng.integers(0, 256, size=(rows, 384)).astype(np.uint8)
    query = rng.normal(size=384).astype(np.float32)
    query /= np.linalg.norm(query)
    alone, left = CodeProducts(helpers=0).scores(codes, query)
    shared, shared_left = CodeProducts(helpers=1).scores(codes, query)
    assert shared_left == left
    assert np.array_equal(shared, alone)


def test_the_caller_does_not_wait_for_a_helper_that_has_not_started() -> None:
    """Case: on a busy machine the helper thread may not get a core: the
    caller takes every run itself and calls the helper off, rather than
    waiting for it to be woken."""
    rng = np.random.default_rng(19)
    codes = rng.integers(0, 256, size=(3 * products.SHARED_ROWS, 384)).astype(np.uint8)
    query = rng.normal(size=384).astype(np.float32)
    scan = CodeProducts(helpers=1)
    expected, _left = CodeProducts(helpers=0).scores(codes, query)
    held = threading.Event()
    blocker = scan._helper_pool().submit(held.wait)  # the helper kept busy
    got: list[Array] = []
    caller = threading.Thread(target=lambda: got.append(scan.scores(codes, query)[0]))
    try:
        caller.start()
        caller.join(timeout=30)  # waiting for the helper would never end
        assert not caller.is_alive()
        assert np.array_equal(got[0], expected)
    finally:
        held.set()
        blocker.result(timeout=10)
        caller.join(timeout=10)
