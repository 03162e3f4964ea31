"""A vector store's rows file cut short or left torn by another process:
a torn tail (rows whose keys were never written) is cut before an append,
so rows stay with their keys, and a store's kept map of the rows never
reaches past the rows it took (a page past a file's end kills its reader
with SIGBUS)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

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
print(float(np.asarray(store._map.view).sum()))  # every row the map holds
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
