"""ONNX models written as protobuf bytes, without the ``onnx`` package.

``encoder_graph`` builds one graph per session from parts this module writes:
tensors (inline or in an external data file), nodes with integer, float and
integer-list attributes, typed inputs and outputs, the graph and the model.
Importing ``onnx`` (and the protobuf runtime it brings) for that kept memory
resident in a server for the rest of its life; the bytes here are the
same messages (the tests parse them with ``onnx`` and compare them with its
``helper``'s).

Field numbers are those of ``onnx.proto`` (IR version 10).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

#: What the models written here say they are (ONNX 1.16; ONNX Runtime 1.20+ reads it).
IR_VERSION = 10

#: ``TensorProto.DataType`` of the numpy types the graphs hold.
DATA_TYPES = {
    np.dtype(np.float32): 1,
    np.dtype(np.uint8): 2,
    np.dtype(np.int8): 3,
    np.dtype(np.int32): 6,
    np.dtype(np.int64): 7,
    np.dtype(np.float16): 10,
}
FLOAT = DATA_TYPES[np.dtype(np.float32)]

_VARINT, _FIXED32, _BYTES = 0, 5, 2
# AttributeProto.AttributeType
_ATTR_FLOAT, _ATTR_INT, _ATTR_INTS = 1, 2, 7


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int64: two's complement, ten bytes
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _field(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _int(number: int, value: int) -> bytes:
    return _field(number, _VARINT) + _varint(value)


def _bytes(number: int, payload: bytes) -> bytes:
    return _field(number, _BYTES) + _varint(len(payload)) + payload


def _str(number: int, text: str) -> bytes:
    return _bytes(number, text.encode())


def _ints(number: int, values: Sequence[int]) -> bytes:
    """A repeated int64 field, packed."""
    return _bytes(number, b"".join(_varint(v) for v in values)) if values else b""


def tensor(name: str, value: np.ndarray[Any, Any]) -> bytes:
    """A ``TensorProto`` holding ``value``'s bytes (little-endian)."""
    data = np.asarray(value, order="C")
    return (
        _ints(1, data.shape)
        + _int(2, DATA_TYPES[data.dtype])
        + _str(8, name)
        + _bytes(9, data.astype(data.dtype.newbyteorder("<"), copy=False).tobytes())
    )


def external_tensor(
    name: str, dtype: np.dtype[Any], shape: Sequence[int], location: str, offset: int, length: int
) -> bytes:
    """A ``TensorProto`` whose bytes are ``length`` bytes at ``offset`` of the
    file ``location`` (beside the model)."""
    entries = (("location", location), ("offset", str(offset)), ("length", str(length)))
    return (
        _ints(1, shape)
        + _int(2, DATA_TYPES[np.dtype(dtype)])
        + _str(8, name)
        + b"".join(_bytes(13, _str(1, key) + _str(2, text)) for key, text in entries)
        + _int(14, 1)  # data_location: EXTERNAL
    )


def _attribute(name: str, value: int | float | Sequence[int]) -> bytes:
    if isinstance(value, bool):
        raise TypeError(f"attribute {name}: a bool")
    if isinstance(value, int):
        return _str(1, name) + _int(3, value) + _int(20, _ATTR_INT)
    if isinstance(value, float):
        return (
            _str(1, name) + _field(2, _FIXED32) + struct.pack("<f", value) + _int(20, _ATTR_FLOAT)
        )
    return _str(1, name) + _ints(8, list(value)) + _int(20, _ATTR_INTS)


def node(
    op: str,
    inputs: Sequence[str],
    outputs: Sequence[str],
    domain: str | None = None,
    **attributes: int | float | Sequence[int],
) -> bytes:
    """A ``NodeProto``."""
    return (
        b"".join(_str(1, name) for name in inputs)
        + b"".join(_str(2, name) for name in outputs)
        + _str(4, op)
        + b"".join(_bytes(5, _attribute(k, v)) for k, v in attributes.items())
        + (_str(7, domain) if domain is not None else b"")
    )


def value_info(name: str, elem_type: int, shape: Sequence[int | str]) -> bytes:
    """A ``ValueInfoProto`` of a tensor; a ``str`` in ``shape`` names a free dimension."""
    dims = b"".join(_bytes(1, _str(2, d) if isinstance(d, str) else _int(1, d)) for d in shape)
    return _str(1, name) + _bytes(2, _bytes(1, _int(1, elem_type) + _bytes(2, dims)))


def graph(
    nodes: Sequence[bytes],
    name: str,
    inputs: Sequence[bytes],
    outputs: Sequence[bytes],
    initializers: Sequence[bytes],
) -> bytes:
    """A ``GraphProto`` of parts made above."""
    return (
        b"".join(_bytes(1, n) for n in nodes)
        + _str(2, name)
        + b"".join(_bytes(5, t) for t in initializers)
        + b"".join(_bytes(11, v) for v in inputs)
        + b"".join(_bytes(12, v) for v in outputs)
    )


def model(graph_bytes: bytes, opsets: Sequence[tuple[str, int]]) -> bytes:
    """A ``ModelProto``: the graph and the operator sets (domain, version) it uses."""
    return (
        _int(1, IR_VERSION)
        + _bytes(7, graph_bytes)
        + b"".join(_bytes(8, _str(1, d) + _int(2, v)) for d, v in opsets)
    )
