"""ONNX messages written without the ``onnx`` package are the ones its helper makes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from hearth.embedding import onnx_protobuf  # noqa: E402


@pytest.mark.parametrize(
    "value",
    [
        np.array([3, 3, 3], dtype=np.int64),
        np.array(0.125, dtype=np.float32),
        np.array([[-1, 2], [127, -127]], dtype=np.int8),
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.array([-(2**40), 0, 7], dtype=np.int64),
    ],
)
def test_an_inline_tensor_is_numpy_helpers(value: np.ndarray) -> None:  # type: ignore[type-arg]
    ours = TensorProto.FromString(onnx_protobuf.tensor("t", value))
    assert ours == numpy_helper.from_array(value, "t")
    assert np.array_equal(numpy_helper.to_array(ours), value)


def test_an_external_tensor_names_its_file_offset_and_length() -> None:
    ours = TensorProto.FromString(
        onnx_protobuf.external_tensor(
            "w", np.dtype(np.float32), (384, 1152), "e5.weights", 8192, 4096
        )
    )
    theirs = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[384, 1152])
    theirs.data_location = TensorProto.EXTERNAL
    for key, text in (("location", "e5.weights"), ("offset", "8192"), ("length", "4096")):
        theirs.external_data.add(key=key, value=text)
    assert ours == theirs


def test_nodes_with_each_kind_of_attribute_are_helpers() -> None:
    cases = [
        (("Softmax", ["a"], ["b"]), {"axis": -1}),
        (("LayerNormalization", ["x", "w", "b"], ["y"]), {"axis": -1, "epsilon": 1e-12}),
        (("Transpose", ["x"], ["y"]), {"perm": [0, 2, 1, 3]}),
        (("MatMul", ["x", "w"], ["y"]), {}),
    ]
    for (op, inputs, outputs), attrs in cases:
        ours = onnx.NodeProto.FromString(onnx_protobuf.node(op, inputs, outputs, **attrs))
        assert ours == helper.make_node(op, inputs, outputs, **attrs)
    inputs, contrib = ["a", "b", "s", "", "c"], "com.microsoft"
    ours = onnx.NodeProto.FromString(
        onnx_protobuf.node("DynamicQuantizeMatMul", inputs, ["y"], domain=contrib)
    )
    theirs = helper.make_node("DynamicQuantizeMatMul", inputs, ["y"], domain=contrib)
    assert ours == theirs


def test_a_model_is_helpers() -> None:
    x = onnx_protobuf.value_info("x", onnx_protobuf.FLOAT, ["texts", "tokens", 384])
    y = onnx_protobuf.value_info("y", onnx_protobuf.FLOAT, ["tokens", 384])
    graph = onnx_protobuf.graph(
        [onnx_protobuf.node("Identity", ["x"], ["y"])],
        "g",
        [x],
        [y],
        [onnx_protobuf.tensor("k", np.array([1, 2], dtype=np.int64))],
    )
    ours = onnx.ModelProto.FromString(onnx_protobuf.model(graph, [("", 17), ("com.microsoft", 1)]))
    theirs = helper.make_model(
        helper.make_graph(
            [helper.make_node("Identity", ["x"], ["y"])],
            "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["texts", "tokens", 384])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["tokens", 384])],
            [numpy_helper.from_array(np.array([1, 2], dtype=np.int64), "k")],
        ),
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
        ir_version=onnx_protobuf.IR_VERSION,
    )
    assert ours == theirs
    onnx.checker.check_model(ours)


@pytest.mark.parametrize("weights8", [False, True])
def test_the_encoder_graph_is_a_valid_onnx_model(tmp_path: Path, weights8: bool) -> None:
    from hearth.embedding.encoder_graph import encoder_graph
    from hearth.embedding.model_file import shared_weights

    path = tmp_path / "e5.onnx"
    path.write_bytes(encoder_graph(shared_weights(), tmp_path, weights8))
    onnx.checker.check_model(str(path), full_check=True)
    model = onnx.load(str(path), load_external_data=False)
    ops = {node.op_type for node in model.graph.node}
    assert ("DynamicQuantizeMatMul" in ops) == weights8
    assert len(model.graph.initializer) > 12 * 8
