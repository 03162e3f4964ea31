"""The vector store: rows read back as they were added, by this process or another."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hearth.index.vector_packs import shipped
from hearth.index.vectors import compacted, open_store

DIMS = 8


def _rows(rng: np.random.Generator, count: int) -> np.ndarray:  # type: ignore[type-arg]
    rows = rng.normal(size=(count, DIMS)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_a_store_opened_again_reads_every_row_as_stored(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    writer = open_store(tmp_path / "v", "m", DIMS)
    digests = [f"{i:032x}" for i in range(3000)]
    rows = _rows(rng, 3000)
    for at in range(0, 3000, 700):  # several appends: the buffer grows past 1024 rows
        writer.add(digests[at : at + 700], rows[at : at + 700])
    reader = open_store(tmp_path / "v", "m", DIMS)
    assert len(reader) == 3000
    assert reader.digests() == digests
    assert np.array_equal(reader.rows_of(digests), shipped(rows))
    # Rows another process appends are read on refresh, after those held.
    more = _rows(rng, 1500)
    writer.add([f"{i:032x}" for i in range(3000, 4500)], more)
    reader.refresh()
    assert len(reader) == 4500
    assert np.array_equal(reader.rows_of(["00000000000000000000000000000bb8"]), shipped(more[:1]))
    query = shipped(rows[42:43])[0]
    assert reader.nearest(query, 1)[0][0] == digests[42]


def test_a_torn_tail_is_cut_when_opened(tmp_path: Path) -> None:
    store = open_store(tmp_path / "v", "m", DIMS)
    store.add(["a" * 32, "b" * 32], _rows(np.random.default_rng(2), 2))
    with (tmp_path / "v" / "rows").open("ab") as out:
        out.write(b"\0" * (DIMS * 4 + 3))  # a row and a bit without its key
    again = open_store(tmp_path / "v", "m", DIMS)
    assert len(again) == 2 and again.digests() == ["a" * 32, "b" * 32]


def test_digests_are_found_sorted_or_recent_and_the_first_row_wins(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    store = open_store(tmp_path / "v", "m", DIMS)
    # Digests sharing their first 8 bytes, and many: some rows are found in the
    # sorted array, the last ones in the dict of rows added since.
    digests = [f"{'ab' * 8}{i:016x}" for i in range(1500)] + [f"{i:032x}" for i in range(1500)]
    for at in range(0, 3000, 100):
        store.add(digests[at : at + 100], _rows(rng, 100))
    store.add(digests[:5], _rows(rng, 5))  # already stored: nothing added
    assert len(store) == 3000
    for row, digest in enumerate(digests):
        assert digest in store
        assert store._digests.row(digest) == row
    assert "cd" * 16 not in store and "ab" * 16 not in store and "xyz" not in store
    # Two processes may append one digest: the first row is the one used.
    other = open_store(tmp_path / "v", "m", DIMS)
    with (tmp_path / "v" / "rows").open("ab") as out:
        out.write(_rows(rng, 1).tobytes())
    with (tmp_path / "v" / "keys").open("ab") as out:
        out.write(bytes.fromhex(digests[7]))
    other.refresh()
    assert len(other) == 3001 and other._digests.row(digests[7]) == 7
    assert open_store(tmp_path / "v", "m", DIMS)._digests.row(digests[7]) == 7


def test_refreshes_on_many_threads_read_each_new_row_once(tmp_path: Path) -> None:
    import threading

    rng = np.random.default_rng(4)
    reader = open_store(tmp_path / "v", "m", DIMS)
    writer = open_store(tmp_path / "v", "m", DIMS)
    digests = [f"{i:032x}" for i in range(2000)]
    rows = _rows(rng, 2000)
    stop = threading.Event()

    def refresh() -> None:
        while not stop.is_set():
            reader.refresh()

    threads = [threading.Thread(target=refresh) for _ in range(4)]
    for thread in threads:
        thread.start()
    for at in range(0, 2000, 50):  # another process appending
        writer.add(digests[at : at + 50], rows[at : at + 50])
    stop.set()
    for thread in threads:
        thread.join()
    reader.refresh()
    assert len(reader) == 2000 and reader.digests() == digests
    assert np.array_equal(reader.rows_of(digests), shipped(rows))


def _exact_nearest(rows: np.ndarray, query: np.ndarray, count: int) -> list[int]:  # type: ignore[type-arg]
    """The rows a product over every float32 row ranks first (equal scores: the
    earlier row), each score rounded to float32 from float64 (as the store
    scores: a float32 product's last bit varies with the matrix's shape)."""
    scores = (rows.astype(np.float64) @ query.astype(np.float64)).astype(np.float32)
    return [int(i) for i in np.lexsort((np.arange(len(rows)), -scores))[:count]]


def test_nearest_ranks_as_a_product_over_every_float32_row(tmp_path: Path) -> None:
    # The store scores rows from int8 codes first and again exactly only where
    # the codes' error bound leaves the order open: the answer must be the one a
    # product over every stored row gives, near ties and exact ties included.
    rng = np.random.default_rng(5)
    dims = 48
    centres = rng.normal(size=(12, dims))
    rows = centres[rng.integers(0, 12, 4000)] + rng.normal(scale=0.05, size=(4000, dims))
    rows[3000:3100] = rows[100:200]  # exact duplicates: equal scores
    rows[3100:3110] = 0.0  # empty rows score 0 whatever the query
    rows[3110:3120, 5] = 1.0  # rows of one dimension: a code of 127, nothing lost
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    rows = (rows / np.where(norms > 0, norms, 1.0)).astype(np.float32)
    digests = [f"{i:032x}" for i in range(4000)]
    store = open_store(tmp_path / "v", "m", dims)
    for at in range(0, 4000, 900):
        store.add(digests[at : at + 900], rows[at : at + 900])
    stored = shipped(rows)
    queries = centres[rng.integers(0, 12, 40)] + rng.normal(scale=0.05, size=(40, dims))
    queries = np.vstack([queries, stored[150], -stored[3115]]).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    for reader in (store, open_store(tmp_path / "v", "m", dims)):  # encoded on add, on read
        for query in queries:
            for count in (1, 10, 100, 4000, 5000):
                got = reader.nearest(query, count)
                assert [int(d, 16) for d, _ in got] == _exact_nearest(stored, query, count)
                want = stored[[int(d, 16) for d, _ in got]] @ query
                assert np.allclose([score for _, score in got], want, rtol=0, atol=1e-6)


def test_a_store_holds_a_quarter_of_its_float32_rows(tmp_path: Path) -> None:
    import tracemalloc

    rng = np.random.default_rng(6)
    dims, count = 384, 8_000
    writer = open_store(tmp_path / "v", "m", dims)
    rows = rng.normal(size=(count, dims)).astype(np.float32)
    writer.add([f"{i:032x}" for i in range(count)], rows / np.linalg.norm(rows, axis=1)[:, None])
    del rows
    tracemalloc.start()
    try:
        reader = open_store(tmp_path / "v", "m", dims)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(reader) == count
    float32_rows = count * dims * 4
    # int8 codes, a scale and a slack a row, 16 bytes of digest and 16 of its sorted index.
    assert held < float32_rows * 0.45, (held, float32_rows)
    assert peak < float32_rows * 0.6, (peak, float32_rows)


def test_compacting_keeps_the_rows_of_live_digests_only(tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    store = open_store(tmp_path / "v", "m", DIMS)
    digests = [f"{i:x}" * 32 for i in range(1, 7)]
    rows = _rows(rng, len(digests))
    store.add(digests, rows)
    kept = compacted(store, set(digests[::2]))
    assert kept.digests() == digests[::2]
    assert np.array_equal(kept.rows_of(digests[::2]), shipped(rows[::2]))
    assert all(d not in kept for d in digests[1::2])
    assert open_store(tmp_path / "v", "m", DIMS).digests() == digests[::2]  # on disk too
    assert not list(tmp_path.glob("v.*"))  # nothing left aside


def test_a_search_of_bunched_vectors_reads_again_few_exact_rows(tmp_path: Path) -> None:
    # e5's vectors are bunched (most cosines near 0.8): the codes' bound around
    # the 100th best rough score left hundreds of rows to read again from the
    # file. Reading first the exact rows of the 100 best rough scores, then
    # only the rows whose bound reaches the least of those, reads about half
    # (4,000 rows near one centre: 457 to 559 before, 226 to 309 now).
    rng = np.random.default_rng(7)
    dims = 384
    centre = rng.normal(size=dims)
    rows = centre / np.linalg.norm(centre) + rng.normal(scale=0.03, size=(4000, dims))
    rows = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)
    digests = [f"{i:032x}" for i in range(4000)]
    store = open_store(tmp_path / "v", "m", dims)
    store.add(digests, rows)
    stored = shipped(rows)
    read: list[int] = []
    exact = store.rows_at
    store.rows_at = lambda wanted: (read.append(len(wanted)), exact(wanted))[1]  # type: ignore[method-assign]
    queries = rows[rng.integers(0, 4000, 20)] + rng.normal(scale=0.03, size=(20, dims))
    for query in (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32):
        read.clear()
        got = store.nearest(query, 100)
        assert [int(d, 16) for d, _ in got] == _exact_nearest(stored, query, 100)
        assert 100 <= sum(read) < 400


def test_rows_appended_after_a_search_are_read_exactly_by_the_next(tmp_path: Path) -> None:
    # A search reads exact rows through a map of the rows file made at its
    # first need; rows another process appends later lie past that map, and
    # the next search that needs them maps the file again.
    rng = np.random.default_rng(9)
    rows = _rows(rng, 600)
    digests = [f"{i:032x}" for i in range(600)]
    writer = open_store(tmp_path / "v", "m", DIMS)
    writer.add(digests[:200], rows[:200])
    reader = open_store(tmp_path / "v", "m", DIMS)
    stored = shipped(rows)
    assert [int(d, 16) for d, _ in reader.nearest(rows[5], 20)] == _exact_nearest(
        stored[:200], rows[5], 20
    )
    for start in (200, 400):  # two appends, a search after each
        writer.add(digests[start : start + 200], rows[start : start + 200])
        reader.refresh()
        for query in rows[start : start + 200 : 40]:
            got = reader.nearest(query, 30)
            assert [int(d, 16) for d, _ in got] == _exact_nearest(stored[: start + 200], query, 30)
        assert np.array_equal(
            reader.rows_of(digests[start : start + 200]), stored[start : start + 200]
        )
