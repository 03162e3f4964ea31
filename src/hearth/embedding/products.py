"""Products of 8-bit rows by a query, in exact integers, through ONNX Runtime.

The vector store (``index/vectors.py``) holds each row as 8-bit codes and a
scale, and a search scores every row from them. Turning the codes into floats
a block at a time before each product was most of that scan's cost; ONNX
Runtime's ``MatMulInteger`` multiplies them into int32 without that step.
The rows are unsigned (``code + 128``, with 128 as their zero point) and the
query signed: the pair ONNX Runtime's integer kernels are fastest for
(docs/performance.md, "The vector scan in integers").

The query is a float vector, so it is written as two int8 vectors: ``q ~ s1
c1 + s2 c2``, the second coding what rounding the first lost. Both go through
one product (a ``[dims, 2]`` right-hand side costs what one column does: the
rows are read once). What is left, ``|q - s1 c1 - s2 c2|``, is returned with
the scores, so a caller can bound how far a row's score may be from its
product with ``q`` itself (``|row| * left``).
"""

from __future__ import annotations

import os
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: Threads of one product. Two halve the scan on an idle machine, but a
#: second thread that sleeps between runs must be woken at each search, and
#: on a busy one that wait cost more than the scan (docs/performance.md,
#: "The vector scan in integers"); one runs on the caller's thread.
THREADS = 1
#: Rows of one run when the scan is shared (``CodeProducts.helpers``): the
#: caller and a helper thread take runs of this many rows in turn until none
#: is left, so the caller never waits for a helper that has not started.
SHARED_ROWS = 8192


def _codes(vector: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.int8], float]:
    """``vector`` as int8 codes and their scale (``vector ~ scale * codes``)."""
    import numpy as np  # noqa: PLC0415  (this package is imported without numpy)

    peak = float(np.abs(vector).max()) if len(vector) else 0.0
    scale = peak / 127.0 if peak > 0 else 1.0
    codes = np.clip(np.rint(vector / scale), -127, 127).astype(np.int8)
    return codes, scale


class CodeProducts:
    """``scores(codes, query)``: every row of ``codes`` (uint8, ``code + 128``)
    times ``query``."""

    #: What an unsigned code holds for 0.
    ZERO = 128

    def __init__(self, threads: int = THREADS, helpers: int | None = None) -> None:
        """``helpers``: threads that take runs of the scan beside the caller's
        (None: one when the machine has another core)."""
        self._threads = max(1, min(threads, os.cpu_count() or 1))
        self._session: Any = None
        self._lock = threading.Lock()
        cores = os.cpu_count() or 1
        self._helpers = (1 if cores > 1 else 0) if helpers is None else max(0, helpers)
        self._pool: ThreadPoolExecutor | None = None

    def scores(
        self, codes: npt.NDArray[np.uint8], query: npt.NDArray[np.float32]
    ) -> tuple[npt.NDArray[np.float32], float]:
        """``(codes - 128) @ query`` for every row (float32), and the length of what
        the query's two int8 codes leave out of it (every score is within
        ``|row| * left`` of the row's exact product with ``query``, plus
        float32's rounding of the two scales' sum)."""
        import numpy as np  # noqa: PLC0415  (see _codes)

        exact = np.asarray(query, dtype=np.float64)
        first, s1 = _codes(exact)
        rest = exact - s1 * first
        second, s2 = _codes(rest)
        left = float(np.linalg.norm(rest - s2 * second))
        both = np.ascontiguousarray(np.stack([first, second], axis=1))
        if len(codes) == 0:
            return np.zeros(0, dtype=np.float32), left
        products = self._run(np.ascontiguousarray(codes), both)
        # Integers up to 127 * 127 * dims: exact in float32 for dims < 1040.
        out: npt.NDArray[np.float32] = products.astype(np.float32) @ np.array(
            [s1, s2], dtype=np.float32
        )
        return out, left

    def _run(self, codes: npt.NDArray[np.uint8], both: npt.NDArray[np.int8]) -> Any:
        if self._session is None:
            with self._lock:
                if self._session is None:
                    self._session = _session(codes.shape[1], self._threads)
        session = self._session
        if not self._helpers or len(codes) <= SHARED_ROWS:
            return session.run(None, {"rows": codes, "query": both})[0]
        return self._shared(session, codes, both)

    def _shared(self, session: Any, codes: npt.NDArray[np.uint8], both: Any) -> Any:
        """The product in runs of ``SHARED_ROWS`` rows, taken in turn by this
        thread and the helpers (ONNX Runtime releases the GIL in a run, and its
        session may run on several threads at once); a helper that has not
        started when this thread has taken the last run is called off."""
        import numpy as np  # noqa: PLC0415  (see _codes)

        out = np.empty((len(codes), 2), dtype=np.int32)
        starts = iter(range(0, len(codes), SHARED_ROWS))
        taking = threading.Lock()

        def take() -> None:
            while True:
                with taking:
                    start = next(starts, None)
                if start is None:
                    return
                rows = codes[start : start + SHARED_ROWS]
                out[start : start + len(rows)] = session.run(None, {"rows": rows, "query": both})[0]

        pool = self._helper_pool()
        helping = [pool.submit(take) for _ in range(self._helpers)]
        take()
        for helper in helping:
            if not helper.cancel():
                helper.result()  # a run it took is being written into ``out``
        return out

    def _helper_pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._helpers, thread_name_prefix="hearth-scan")
            return self._pool


def _session(dims: int, threads: int) -> Any:
    """An ONNX Runtime session of one ``MatMulInteger``: ``rows`` ``[n, dims]``
    (uint8, zero point 128) times ``query`` ``[dims, 2]`` (int8), into int32."""
    import numpy as np  # noqa: PLC0415  (see _codes)
    import onnxruntime as ort  # noqa: PLC0415  (loaded at the first search)

    from hearth.embedding import onnx_protobuf as pb  # noqa: PLC0415  (numpy at import)

    types = pb.DATA_TYPES
    uint8, int8, int32 = (
        types[np.dtype(np.uint8)],
        types[np.dtype(np.int8)],
        types[np.dtype(np.int32)],
    )
    graph = pb.graph(
        [pb.node("MatMulInteger", ["rows", "query", "zero"], ["products"])],
        "products",
        [pb.value_info("rows", uint8, ["n", dims]), pb.value_info("query", int8, [dims, 2])],
        [pb.value_info("products", int32, ["n", 2])],
        [pb.tensor("zero", np.array(CodeProducts.ZERO, dtype=np.uint8))],
    )
    options = ort.SessionOptions()
    options.enable_cpu_mem_arena = False  # a run's output is all it allocates
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # A shared machine: a waiting thread sleeps instead of spinning.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    with tempfile.TemporaryDirectory(prefix="hearth-products-") as folder:
        path = Path(folder) / "products.onnx"
        path.write_bytes(pb.model(graph, [("", 17)]))
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
