"""The vector store: rows read back as they were added, by this process or another."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hearth.index.vector_packs import shipped
from hearth.index.vectors import open_store

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
