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

An approximate search is built and measured, and off: from
``PREFILTER_FROM`` rows on, the rows' first 128 principal components, as
8-bit codes (``_Projection``), would pick ``PREFILTER_SHARE`` of the rows
(at least the count asked), and only those be scored from their full codes
and read again exactly. e5's cosines bunch too closely for a cheap code to
pick the candidates: sign bits scatter the nearest, and the share of
principal components' candidates that keeps a home's top 5 costs what the
full scan does (docs/performance.md, "A prefilter of principal components").
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import mmap
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
#: Rows from which a search scores only the candidates of a prefilter
#: (``_prefiltered``), not every row's full codes: an approximate search,
#: off (no store reaches it) since the share of candidates that keeps
#: LoCoMo's top 5 saves nothing (docs/search.md, "A prefilter of principal
#: components, measured and off"). ``bench/recall.py --scan prefilter``
#: sets it to 0 (at any size) to measure what it loses.
PREFILTER_FROM = 1 << 62
#: The share of the rows the prefilter hands to the rescoring ...
PREFILTER_SHARE = 0.025
#: ... and the fewest (None: the count asked for).
PREFILTER_LEAST: int | None = None
#: The principal components the prefilter scores.
PREFILTER_DIMS = 128
#: Rows whose mean and axes the prefilter's codes are of (the first ones of
#: the file, so every process codes a store alike).
_CENTRE_ROWS = 4096


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
        #: A read-only map of that file (``_mapped``), made again when it grew.
        self._map: Vectors = np.empty((0, dims), dtype=np.float32)
        self._mapping = threading.Lock()
        self._digests = RowsByDigest()
        #: Rough scores through integer products (``embedding/products.py``);
        #: False: through the codes as floats, a block at a time. Either gives
        #: the same nearest rows, which ``_kept`` reads again exactly.
        self.integer_scan = True
        self._products = CodeProducts()
        self._projection = _Projection(dims)
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
        codes, scale, slack = self._codes, self._scale, self._slack
        if n == 0 or count <= 0:
            return Nearest([], 0.0, 0.0, 0)
        count = min(count, n)
        query = np.ascontiguousarray(query, dtype=np.float32)
        if n >= PREFILTER_FROM:
            return self._prefiltered(query, count, n)
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
        return self._ranked(query, rows, exact, count, float(rough.mean()), float(rough.std()), n)

    def _prefiltered(self, query: Vectors, count: int, n: int) -> Nearest:
        """``nearest_in`` over the candidates of the prefilter: the
        ``PREFILTER_SHARE`` of the rows (at least the ``count`` asked) whose
        principal components' codes score highest (``_Projection``), scored
        from their full codes and read again exactly as the full scan does
        (the same answer whenever the candidates hold the exact nearest). The
        background's mean and spread come from the rows' sum and the
        prefilter's products (``_Projection.background``)."""
        projection = self._projection.upto(self, n)
        least = count if PREFILTER_LEAST is None else PREFILTER_LEAST
        take = min(n, max(least, int(np.ceil(PREFILTER_SHARE * n))))
        rows, every = projection.nearest(query, take)
        codes = self._codes[rows]
        rough = np.empty(len(rows), dtype=np.float32)
        block = np.empty((min(len(rows), _BLOCK), self.dims), dtype=np.float32)
        for start in range(0, len(rows), _BLOCK):
            stop = min(len(rows), start + _BLOCK)
            np.matmul(self._floats(codes[start:stop], block), query, out=rough[start:stop])
        rough *= self._scale[rows]
        count = min(count, len(rows))
        if count < len(rows):
            reach = (self._slack[rows] + _ROUNDING) * float(np.linalg.norm(query))
            kept, exact = self._kept(query, rough, reach, count, rows)
        else:
            kept, exact = rows, self.rows_at(rows)
        mean, spread = projection.background(query, every)
        return self._ranked(query, kept, exact, count, mean, spread, n)

    def _ranked(
        self,
        query: Vectors,
        rows: npt.NDArray[np.intp],
        exact: Vectors,
        count: int,
        mean: float,
        spread: float,
        n: int,
    ) -> Nearest:
        """The ``count`` best of ``rows`` by their ``exact`` rows' cosine."""
        # In float64, each row's score is the same whichever rows are scored
        # with it (float32 products over a matrix vary in the last bit with
        # its shape), then rounded to float32.
        scores = (exact.astype(np.float64) @ query.astype(np.float64)).astype(np.float32)
        top = np.lexsort((rows, -scores))[:count]  # equal scores: the earlier row first
        pairs = [(self._digests.hex(int(rows[i])), float(scores[i])) for i in top]
        return Nearest(pairs, mean, spread, n)

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
        self,
        query: Vectors,
        rough: Vectors,
        reach: Vectors,
        count: int,
        among: npt.NDArray[np.intp] | None = None,
    ) -> tuple[npt.NDArray[np.intp], Vectors]:
        """The rows that may be among the ``count`` nearest, with their exact
        rows: those whose rough score plus ``reach`` reaches the least exact
        score of the ``count`` best rough ones (of ``among``, sorted row
        numbers ``rough`` scores, when not every row)."""
        best = np.argpartition(rough, len(rough) - count)[len(rough) - count :]
        first = np.sort(best if among is None else among[best])
        head = self.rows_at(first)
        rows = np.flatnonzero(rough + reach >= float((head @ query).min()))
        if among is not None:
            rows = among[rows]
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
        """The stored rows numbered ``rows``, copied out of a memory
        map of the rows file kept for the store's life: a search reads a hundred
        or more scattered rows, and one system call a run of them cost ten
        times the copy (docs/performance.md, "Exact rows through a kept map").
        The map's pages are the file's, which the kernel may drop and read
        again: not this process's private memory. Public: the benchmarks time
        it (bench/vector_scan.py, bench/hybrid_parts.py)."""
        if len(rows) == 0:
            return np.empty((0, self.dims), dtype=np.float32)
        out: Vectors = self._mapped(int(rows.max()) + 1)[rows]
        return out

    def _mapped(self, need: int) -> Vectors:
        """The rows file as ``[rows, dims]`` float32 (the rows this store took),
        mapped again when it holds fewer than ``need`` rows (appends
        since): a map is never changed, so a reader holding the last one reads
        on while another replaces it."""
        view = self._map
        if len(view) >= need:
            return view
        with self._mapping:
            view = self._map
            if len(view) < need:
                fd = self._open_rows()
                whole = os.fstat(fd).st_size // (self.dims * 4)
                # Only rows this store took (their keys were written): a torn
                # tail's cut (``cut_torn_tail``, in place, by any process
                # opening the store) may shorten the rows file to those, and
                # a map's page past the end of its file kills its reader
                # (SIGBUS).
                whole = min(whole, max(need, self._count))
                if whole < need:
                    raise OSError(f"{self.folder / _ROWS}: shorter than it was")
                mapped = mmap.mmap(fd, whole * self.dims * 4, prot=mmap.PROT_READ)
                view = np.frombuffer(mapped, dtype=np.float32).reshape(whole, self.dims)
                self._map = view
        return view

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

    def values(self, start: int, stop: int) -> Vectors:
        """Rows ``start`` to ``stop`` as their codes stand for them (``scale * codes``)."""
        block = np.empty((stop - start, self.dims), dtype=np.float32)
        values = self._floats(self._codes[start:stop], block)
        values *= self._scale[start:stop, None]
        return values

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


class _Projection:
    """Every row's first ``PREFILTER_DIMS`` principal components as 8-bit codes
    with a scale (the rows less their centre, projected on the axes of the
    file's first ``_CENTRE_ROWS`` rows, from their codes: every process codes
    a store alike), and the rows' sum, from which (with the products of
    every row's projection) the mean and spread of a query's cosine to every
    row follow without scoring every row's full codes. Made on a store's
    first prefiltered search (a second of CPU at 40,000 rows) and kept up
    with its appends; only in memory (derived from the codes like the codes
    from the rows, so no store on disk holds stale ones)."""

    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.width = min(PREFILTER_DIMS, dims)
        self._codes = np.zeros((0, self.width), dtype=np.uint8)  # code + CodeProducts.ZERO
        self._scale: Vectors = np.zeros(0, dtype=np.float32)
        self._count = 0
        self._centre: Vectors = np.zeros(dims, dtype=np.float32)
        self._axes: Vectors = np.zeros((self.width, dims), dtype=np.float32)
        self._centred_on = 0
        self._sum = np.zeros(dims, dtype=np.float64)
        #: The axes past ``width`` and the rows' variance along each.
        self._rest = np.zeros((0, dims), dtype=np.float64)
        self._rest_spread = np.zeros(0, dtype=np.float64)
        self._products = CodeProducts()
        self._lock = threading.Lock()

    def upto(self, store: VectorStore, n: int) -> _Projection:
        """These codes, holding at least the store's first ``n`` rows."""
        if self._count >= n and self._centred_on >= min(n, _CENTRE_ROWS):
            return self
        with self._lock:
            base = min(n, _CENTRE_ROWS)
            if self._centred_on < base and (base >= 2 * self._centred_on or base == _CENTRE_ROWS):
                # Axes of more of the first rows: every row coded again.
                first = store.values(0, base).astype(np.float64)
                centre = first.mean(axis=0)
                # The covariance's eigenvectors, largest first (an SVD of the
                # rows costs ten times more).
                lengths, axes = np.linalg.eigh(np.cov(first, rowvar=False, bias=True))
                self._axes = axes[:, ::-1][:, : self.width].T.astype(np.float32)
                self._rest = axes[:, ::-1][:, self.width :].T.copy()
                self._rest_spread = np.maximum(lengths[::-1][self.width :], 0.0)
                self._centre = centre.astype(np.float32)
                self._centred_on, self._count = base, 0
                self._sum[:] = 0
            if self._count < n:
                size = max(n, 2 * len(self._codes))
                codes = np.zeros((size, self.width), dtype=np.uint8)
                scale = np.zeros(size, dtype=np.float32)
                codes[: self._count] = self._codes[: self._count]
                scale[: self._count] = self._scale[: self._count]
                for start in range(self._count, n, _BLOCK):
                    stop = min(n, start + _BLOCK)
                    values = store.values(start, stop)
                    projected = (values - self._centre) @ self._axes.T
                    peak = np.abs(projected).max(axis=1)
                    scale[start:stop] = np.where(peak > 0, peak / 127.0, 1.0)
                    coded = np.rint(projected / scale[start:stop, None])
                    codes[start:stop] = np.clip(coded, -127, 127) + CodeProducts.ZERO
                    self._sum += values.sum(axis=0, dtype=np.float64)
                self._codes, self._scale, self._count = codes, scale, n
        return self

    def nearest(self, query: Vectors, take: int) -> tuple[npt.NDArray[np.intp], Vectors]:
        """The ``take`` rows (sorted) whose projection's product with
        ``query``'s is highest (the centre's product, the same for every
        row, left out), and every row's product."""
        n = self._count
        projected = np.ascontiguousarray(self._axes @ query, dtype=np.float32)
        if n >= INTEGER_FROM:
            rough = self._products.scores(self._codes[:n], projected)[0]
        else:
            rough = (self._codes[:n].astype(np.float32) - CodeProducts.ZERO) @ projected
        rough *= self._scale[:n]
        if take >= n:
            return np.arange(n), rough
        return np.sort(np.argpartition(rough, n - take)[n - take :]), rough

    def background(self, query: Vectors, rough: Vectors) -> tuple[float, float]:
        """Mean and spread of ``query``'s cosine to every row: the mean from
        the rows' sum; the spread from ``rough`` (every row's projected
        product) and, along the axes the codes leave out, the first rows'
        variance (the two parts are uncorrelated on those rows)."""
        n = max(1, self._count)
        wide = query.astype(np.float64)
        mean = float(wide @ self._sum) / n
        rest = float(np.square(self._rest @ wide) @ self._rest_spread)
        return mean, float(np.sqrt(float(rough.var(dtype=np.float64)) + rest))


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
