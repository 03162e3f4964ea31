"""Section vectors beside the index: content-addressed, append-only, in memory.

::

    <folder>/meta.json   {"format": N, "model": "<embedder name>", "dims": D}
    <folder>/keys        16-byte digests, one per row
    <folder>/rows        float32 rows of D values, L2-normalized, rounded to float16
    <folder>/on_ref      digests known to be on ``refs/hearth/vectors`` (16 bytes each)
    <folder>/packs_seen  names of the ref's packs already read, one a line

A vector is keyed by the digest of the passage it embeds (``schema.digest``),
which the index stores with every section. So the store needs no map of
files: a search finds the nearest digests here and asks the index which
sections (of which files, passing which filters) hold them now. A section
that moves, or a daily note that grows by one entry, keeps the vectors of its
unchanged passages; only new text is embedded. Rows of text that no longer
exists are garbage that matches no section; ``compact`` drops them.

Rows are appended (vectors first, then keys) under a lock file shared by
processes, and a reader takes only as many rows as both files hold whole, so
a crash mid-append loses at most that append. A store of another format,
model or size is not used: ``open_store`` starts a new one aside and swaps it
in (the vectors are derived state; they fill again in the background).

Rows are rounded to float16 values as they are added (``vector_packs.shipped``),
the precision they travel in between machines (``app/sync/vectors.py``), so a
vector embedded here and the same vector imported elsewhere are the same bits.
``on_ref`` and ``packs_seen`` say what the exchange already moved; they are
dropped with the store (a new model starts from nothing) and kept by ``compact``.

Brute force over all rows, but not over float32 rows in memory: each row is
held as 384 8-bit codes with its scale (``v ~ scale * codes``) and a bound
on what that rounding lost (``slack >= |v - scale * codes|``). A search
scores every row from its codes (integer products: ``embedding/products.py``),
reads the exact rows (the ``rows`` file) of the ``count`` best, and scores
again only the rows whose score plus slack (and what the query's own codes
lost) reaches the least of those exact scores: the same digests in the same
order as a product over every float32 row, in a quarter of the memory
(docs/search.md, "Memory of a hybrid server").

An approximate search (candidates from cheaper codes, rescored exactly) was
measured and not kept: e5's cosines bunch too closely for a cheap code to
pick them (docs/performance.md, "A prefilter of principal components").
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import shutil
import threading
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from hearth.embedding import CodeProducts
from hearth.index.ondisk import KEY_BYTES, KEYS_NAME, Nearest
from hearth.index.vector_digests import RowsByDigest
from hearth.index.vector_files import (
    LOCK,
    META,
    ROWS,
    RowsMap,
    cut_held,
    cut_torn_tail,
    fresh_folder,
    swap_in,
)
from hearth.index.vector_packs import shipped

Vectors = npt.NDArray[np.float32]

FORMAT = 1
_META = META
_KEYS = KEYS_NAME
_ROWS = ROWS
_LOCK = LOCK
_ON_REF = "on_ref"
_PACKS_SEEN = "packs_seen"
_KEY_BYTES = KEY_BYTES
#: Rows of codes turned into floats at a time, into one buffer (under the
#: size glibc gives a mapping of its own, so a scan does not map and fault in
#: fresh pages for it; ``hearth.heap``).
_BLOCK = 512
#: Added to every row's slack: more than float32 arithmetic can miss by in a
#: score of unit vectors (the rough one, or the exact one either way), in
#: proportion to the query's length.
_ROUNDING = 1e-4
#: Rows from which the scan goes through integer products: below, starting
#: ONNX Runtime's run costs more than it saves.
INTEGER_FROM = 4096


class VectorStore:
    def __init__(self, folder: Path, model: str, dims: int) -> None:
        self.folder = folder
        self.model = model
        self.dims = dims
        # Arrays that double when full; readers take ``_count`` first, then the
        # arrays and keys, which only grow past it (filled before replacing one).
        self._codes = np.zeros((0, dims), dtype=np.uint8)  # code + CodeProducts.ZERO
        self._scale: Vectors = np.zeros(0, dtype=np.float32)
        self._slack: Vectors = np.zeros(0, dtype=np.float32)
        self._count = 0
        #: The rows file, opened once: exact rows are read from the file these
        #: codes were made from, even after a compaction swapped the folder.
        self._rows_fd: int | None = None
        #: A read-only map of that file, made again when it grew.
        self._map = RowsMap(dims)
        self._digests = RowsByDigest()
        #: Rough scores through integer products (``embedding/products.py``);
        #: False: through the codes as floats, a block at a time. Either gives
        #: the same nearest rows, which ``_kept`` reads again exactly.
        self.integer_scan = True
        self._products = CodeProducts()
        self._guard = threading.Lock()
        #: Held while rows are read into the buffer or appended (searches refresh
        #: the store from their own threads).
        self._tail = threading.Lock()
        self._load_tail()

    # -- reading -------------------------------------------------------------

    def __contains__(self, digest: object) -> bool:
        return isinstance(digest, str) and self._digests.row(digest) is not None

    def __len__(self) -> int:
        return self._count

    def nearest(self, query: Vectors, count: int) -> list[tuple[str, float]]:
        """The ``count`` digests whose vectors are nearest ``query`` (cosine), best first."""
        return self.nearest_in(query, count).pairs

    def nearest_in(self, query: Vectors, count: int) -> Nearest:
        """``nearest``, with the mean and spread of ``query``'s cosine against
        every row (from the rows' codes, which every search scores anyway):
        the background a passage's similarity is judged against (``floor.py``)."""
        n = self._count
        codes, scale, slack, keys = self._codes, self._scale, self._slack, self._digests
        if n == 0 or count <= 0:
            return Nearest([], 0.0, 0.0, 0)
        count = min(count, n)
        query = np.ascontiguousarray(query, dtype=np.float32)
        rough, left = self._rough(codes[:n], query)
        rough *= scale[:n]
        if count < n:
            # How far a row's exact score may be from its rough one: what its
            # codes lost, and what the query's codes did (on a row of length
            # at most 1 + its slack).
            reach = (slack[:n] + _ROUNDING) * float(np.linalg.norm(query))
            if left:
                reach += (1.0 + _ROUNDING + slack[:n]) * left
            rows, exact = self._kept(query, rough, reach, count)
        else:
            rows, exact = np.arange(n), self.rows_at(np.arange(n))
        # In float64, each row's score is the same whichever rows are scored
        # with it (float32 products over a matrix vary in the last bit with
        # its shape), then rounded to float32.
        scores = (exact.astype(np.float64) @ query.astype(np.float64)).astype(np.float32)
        top = np.lexsort((rows, -scores))[:count]  # equal scores: the earlier row first
        pairs = [(keys.hex(int(rows[i])), float(scores[i])) for i in top]
        return Nearest(pairs, float(rough.mean()), float(rough.std()), n)

    def _rough(self, codes: npt.NDArray[np.uint8], query: Vectors) -> tuple[Vectors, float]:
        """Every row's codes times ``query`` (before the row's scale), and how
        far the query those products are of is from ``query`` (0: itself)."""
        if self.integer_scan and len(codes) >= INTEGER_FROM:
            return self._products.scores(codes, query)
        rough = np.empty(len(codes), dtype=np.float32)
        block = np.empty((min(len(codes), _BLOCK), self.dims), dtype=np.float32)
        for start in range(0, len(codes), _BLOCK):  # a block of codes as floats at a time
            stop = min(len(codes), start + _BLOCK)
            floats = self._floats(codes[start:stop], block)
            np.matmul(floats, query, out=rough[start:stop])
        return rough, 0.0

    def _floats(self, codes: npt.NDArray[np.uint8], block: Vectors) -> Vectors:
        """``codes`` as the signed values they stand for, in ``block``'s rows."""
        floats = block[: len(codes)]
        np.copyto(floats, codes, casting="unsafe")
        floats -= CodeProducts.ZERO
        return floats

    def crowding(self, digests: Sequence[str], count: int) -> list[float]:
        """For each of ``digests``, the mean of its rough cosine to its
        ``count`` nearest other rows: how close the home's passages crowd
        around it (``crossing.py``)."""
        n = self._count
        if n < 2 or not digests:
            return [0.0] * len(digests)
        rows = self.rows_of(digests).T
        own = np.array([self._digests.row(d) for d in digests], dtype=np.intp)
        rough = np.empty((n, len(own)), dtype=np.float32)
        block = np.empty((min(n, _BLOCK), self.dims), dtype=np.float32)
        for start in range(0, n, _BLOCK):
            stop = min(n, start + _BLOCK)
            np.matmul(self._floats(self._codes[start:stop], block), rows, out=rough[start:stop])
        rough *= self._scale[:n, None]
        rough[own, np.arange(len(own))] = -np.inf  # not itself
        count = max(1, min(count, n - 1))
        top = np.partition(rough, n - count, axis=0)[n - count :]
        return [float(v) for v in top.mean(axis=0)]

    def _kept(
        self, query: Vectors, rough: Vectors, reach: Vectors, count: int
    ) -> tuple[npt.NDArray[np.intp], Vectors]:
        """The rows that may be among the ``count`` nearest, with their exact
        rows: those whose rough score plus ``reach`` reaches the least exact
        score of the ``count`` best rough ones."""
        first = np.sort(np.argpartition(rough, len(rough) - count)[len(rough) - count :])
        head = self.rows_at(first)
        rows = np.flatnonzero(rough + reach >= float((head @ query).min()))
        exact = np.empty((len(rows), self.dims), dtype=np.float32)
        known = np.isin(rows, first, assume_unique=True)
        exact[known] = head[np.searchsorted(first, rows[known])]
        exact[~known] = self.rows_at(rows[~known])
        return rows, exact

    # -- writing -------------------------------------------------------------

    def add(self, digests: Sequence[str], vectors: Vectors) -> None:
        """Append vectors for digests not stored yet (by any process)."""
        with self._locked():
            self._load_tail()
            fresh = [i for i, d in enumerate(digests) if d not in self]
            if not fresh:
                return
            rows = np.ascontiguousarray(shipped(vectors[fresh]), dtype=np.float32)
            keys = b"".join(bytes.fromhex(digests[i]) for i in fresh)
            # Rows another process wrote without their keys (it died between
            # the two) would put these rows out of step with their keys.
            cut_held(self.folder, self.dims)
            with self._tail:  # a refresh meanwhile would read these rows as new
                with (self.folder / _ROWS).open("ab") as out:
                    out.write(rows.tobytes())
                with (self.folder / _KEYS).open("ab") as out:
                    out.write(keys)
                self._open_rows()
                self._extend(keys, rows)

    def refresh(self) -> None:
        """See rows appended by another process."""
        self._load_tail()

    def live_share(self, live: int) -> float:
        """How much of the store is live (``live`` digests in use) rather than garbage."""
        return live / max(1, self._count)

    # -- what the exchange with other machines moved already -------------------

    def on_ref(self) -> set[str]:
        """Digests known to be on the vectors ref (exported or imported)."""
        try:
            raw = (self.folder / _ON_REF).read_bytes()
        except FileNotFoundError:
            return set()
        whole = len(raw) - len(raw) % _KEY_BYTES
        return {raw[i : i + _KEY_BYTES].hex() for i in range(0, whole, _KEY_BYTES)}

    def mark_on_ref(self, digests: Sequence[str]) -> None:
        with self._locked(), (self.folder / _ON_REF).open("ab") as out:
            out.write(b"".join(bytes.fromhex(d) for d in digests))

    def packs_seen(self) -> set[str]:
        try:
            return set((self.folder / _PACKS_SEEN).read_text().split())
        except FileNotFoundError:
            return set()

    def mark_packs_seen(self, names: Sequence[str]) -> None:
        with self._locked(), (self.folder / _PACKS_SEEN).open("a") as out:
            out.write("".join(f"{name}\n" for name in names))

    # -- internals -------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with self._guard, (self.folder / _LOCK).open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _load_tail(self) -> None:
        """Read rows the files hold beyond those in memory (cutting a torn tail)."""
        with self._tail:  # one reader at a time: rows are read into the buffer
            self._read_tail()

    def _read_tail(self) -> None:
        width = self.dims * 4
        try:
            fd = self._open_rows()
        except FileNotFoundError:
            return
        try:
            key_bytes = (self.folder / _KEYS).stat().st_size
        except FileNotFoundError:
            return
        row_bytes = os.fstat(fd).st_size
        whole = min(key_bytes // _KEY_BYTES, row_bytes // width)
        have = self._count
        if whole <= have:
            return
        with (self.folder / _KEYS).open("rb") as keys_in:
            keys_in.seek(have * _KEY_BYTES)
            raw = keys_in.read((whole - have) * _KEY_BYTES)
        # Read a block of rows at a time into their codes: the float32 rows
        # are never all in memory (reading them whole held the store twice).
        self._room(whole)
        for start in range(have, whole, _BLOCK):
            stop = min(whole, start + _BLOCK)
            self._encode(start, self._read_run(start, stop))
        self._extend(raw, None)

    def rows_at(self, rows: npt.NDArray[np.intp]) -> Vectors:
        """The stored rows numbered ``rows``, copied out of a map of the rows
        file kept for the store's life (``RowsMap``): a search reads a hundred
        or more scattered rows, and one system call a run of them cost ten
        times the copy. Public: the benchmarks time it (bench/vector_scan.py)."""
        if len(rows) == 0:
            return np.empty((0, self.dims), dtype=np.float32)
        need, rows_file = int(rows.max()) + 1, self.folder / _ROWS
        out: Vectors = self._map.rows(self._open_rows(), need, self._count, rows_file)[rows]
        return out

    def _read_run(self, start: int, stop: int) -> Vectors:
        """Rows ``start`` to ``stop`` read from the file (not through the map: the
        rows a store is opened with are read once, and through a map their
        pages would stay mapped in this process)."""
        width = self.dims * 4
        out = np.empty((stop - start, self.dims), dtype=np.float32)
        view, got, fd = out.data.cast("B"), 0, self._open_rows()
        while got < len(view):
            read = os.preadv(fd, [view[got:]], start * width + got)
            if not read:
                raise OSError(f"{self.folder / _ROWS}: shorter than it was")
            got += read
        return out

    def _open_rows(self) -> int:
        """The rows file's descriptor, opened once (closed with the store)."""
        if self._rows_fd is None:
            self._rows_fd = os.open(self.folder / _ROWS, os.O_RDONLY | os.O_CLOEXEC)
            weakref.finalize(self, os.close, self._rows_fd)
        return self._rows_fd

    def _encode(self, start: int, rows: Vectors) -> None:
        """Codes, scales and slack of ``rows``, stored from row ``start`` on, a
        few hundred rows at a time (their float temporaries stay small)."""
        for at in range(0, len(rows), 256):
            block = rows[at : at + 256]
            peak = np.abs(block).max(axis=1)
            scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
            codes = np.clip(np.rint(block / scale[:, None]), -127, 127)
            lost = block - codes * scale[:, None]
            slack = np.sqrt(np.einsum("ij,ij->i", lost, lost))  # _ROUNDING covers its rounding
            where = slice(start + at, start + at + len(block))
            self._codes[where] = codes + CodeProducts.ZERO
            self._scale[where], self._slack[where] = scale, slack

    def _room(self, total: int) -> None:
        """Arrays made larger (copies) when they hold fewer than ``total`` rows."""
        have, size = self._count, self._codes.shape[0]
        if total <= size:
            return
        size = max(total, 2 * size, 1024)

        def grown(old: npt.NDArray[Any]) -> npt.NDArray[Any]:
            new = np.empty((size, *old.shape[1:]), dtype=old.dtype)
            new[:have] = old[:have]
            return new

        self._codes, self._scale, self._slack = (
            grown(self._codes),
            grown(self._scale),
            grown(self._slack),
        )

    def _extend(self, keys: bytes, rows: Vectors | None) -> None:
        """Take ``rows`` for ``keys`` (16-byte digests; rows None: already
        encoded past ``_count``)."""
        have, total = self._count, self._count + len(keys) // _KEY_BYTES
        self._room(total)
        if rows is not None:
            self._encode(have, rows)
        self._digests.extend(keys, have)
        self._count = total

    def rows_of(self, digests: Sequence[str]) -> Vectors:
        found = [self._digests.row(d) for d in digests]
        missing = [d for d, row in zip(digests, found, strict=True) if row is None]
        if missing:
            raise KeyError(missing[0])
        order = np.array(found, dtype=np.intp)
        unique, back = np.unique(order, return_inverse=True)
        return self.rows_at(unique)[back]

    def digests(self) -> list[str]:
        return self._digests.all(self._count)


def open_store(folder: Path, model: str, dims: int) -> VectorStore:
    """The store in ``folder``; a new empty one swapped in when it is of another kind."""
    meta = {"format": FORMAT, "model": model, "dims": dims}
    try:
        found = json.loads((folder / _META).read_text())
    except (OSError, ValueError):
        found = None
    if found != meta:
        fresh_folder(folder, meta)
    else:
        cut_torn_tail(folder, dims)
    return VectorStore(folder, model, dims)


def compacted(store: VectorStore, live: set[str]) -> VectorStore:
    """A store holding only ``live`` digests, built aside and swapped in."""
    folder = store.folder
    new = folder.with_name(f"{folder.name}.new-{secrets.token_hex(4)}")
    fresh_folder(new, {"format": FORMAT, "model": store.model, "dims": store.dims})
    fresh = VectorStore(new, store.model, store.dims)
    keep = [d for d in store.digests() if d in live]
    if keep:
        fresh.add(keep, store.rows_of(keep))
    for name in (_ON_REF, _PACKS_SEEN):
        with contextlib.suppress(FileNotFoundError):
            shutil.copyfile(folder / name, new / name)
    swap_in(new, folder)
    return VectorStore(folder, store.model, store.dims)
