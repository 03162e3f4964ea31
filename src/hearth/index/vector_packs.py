"""Vectors as they travel between machines: packs, and what a pack must be to be used.

A pack is one blob on ``refs/hearth/vectors`` (``store/vector_ref.py`` keeps
the ref; ``app/sync/vectors.py`` moves it) holding the vectors one machine
embedded between two syncs::

    HEARTHVEC1\\n
    {"model": "<embedder name>", "dims": D, "dtype": "float16", "count": N}\\n
    N digests of 16 bytes (``schema.digest``: blake2b of the passage)
    N rows of D little-endian float16 values

Its name is the SHA-256 of those bytes, so a tree entry cannot name one pack
and hold another, the same vectors exported twice are one blob, and a push
sends only packs the remote lacks.

**float16 on the ref, the same bits everywhere.** A row is rounded to float16
(``shipped``) before it is stored, on the machine that embeds it
(``VectorStore.add``) and on every machine that imports it (float16 to
float32 and back is exact), so all machines hold bit-identical vectors and
rank identically. Rounding moves a cosine by about 1e-5 and leaves a row's
length within 1e-4 of 1 (bench/vector_sync.py measures both); the two engines
that embed passages already differ by 2e-4. It halves the bytes a sync moves.

**Nothing from a pack is trusted.** ``read_pack`` refuses (``BadPack``) a pack
whose name is not its hash, whose header is not exactly the format's, whose
size does not match its count, or any of whose rows is not finite or not of
unit length; a pack of another model is ``None`` (kept on the ref for the
machines that use it, never loaded here). A refused pack is never loaded or
exported again: its passages are embedded here as if no machine had. What a
well-formed hostile pack can do is bounded by the vectors' role: a vector is
found by its digest, and the index says which sections hold that digest now,
under the search's filters, so a wrong vector can move a section up or down
the semantic side of a hybrid ranking, never add a section, a file or text.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from hearth.errors import BadPack
from hearth.index.ondisk import KEY_BYTES

Vectors = npt.NDArray[np.float32]

MAGIC = b"HEARTHVEC1\n"
DTYPE = "float16"
#: Rows a pack holds at most: an export of more is cut into several (a first
#: sync of a big home is several packs).
PACK_ROWS = 8192
#: Largest count a header may claim (a hostile header cannot make a reader
#: allocate without bound: the size check comes first anyway).
MAX_COUNT = 1 << 20
#: How far from 1 a row's length may be after rounding to float16.
NORM_TOLERANCE = 1e-2
_HEADER_LIMIT = 4096


@dataclass(frozen=True)
class Pack:
    name: str
    digests: list[str]
    rows: Vectors


def shipped(rows: Vectors) -> Vectors:
    """Rows as every machine holds them: rounded to float16 (not normalized
    again, which would round differently on the next export)."""
    out: Vectors = np.asarray(rows, dtype=np.float32).astype(np.float16).astype(np.float32)
    return out


def pack_name(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def make_pack(model: str, dims: int, digests: list[str], rows: Vectors) -> tuple[str, bytes]:
    """``(name, bytes)`` of a pack of ``rows`` (one per digest)."""
    if rows.shape != (len(digests), dims):
        raise ValueError(f"rows of shape {rows.shape} for {len(digests)} digests of {dims}")
    header = {"model": model, "dims": dims, "dtype": DTYPE, "count": len(digests)}
    data = b"".join(
        (
            MAGIC,
            json.dumps(header, sort_keys=True).encode() + b"\n",
            b"".join(bytes.fromhex(d) for d in digests),
            np.asarray(rows, dtype="<f2").tobytes(),
        )
    )
    return pack_name(data), data


def read_pack(name: str, data: bytes, model: str, dims: int) -> Pack | None:
    """The pack ``name`` holding ``data``, checked; None when of another model.

    Raises ``BadPack`` for anything that is not a well-formed pack of unit
    vectors whose name is its hash."""
    if pack_name(data) != name:
        raise BadPack(f"pack {name[:12]}: its content does not match its name")
    if not data.startswith(MAGIC):
        raise BadPack(f"pack {name[:12]}: not a hearth vector pack")
    end = data.find(b"\n", len(MAGIC), len(MAGIC) + _HEADER_LIMIT)
    if end < 0:
        raise BadPack(f"pack {name[:12]}: no header")
    try:
        header = json.loads(data[len(MAGIC) : end])
    except ValueError as exc:
        raise BadPack(f"pack {name[:12]}: unreadable header") from exc
    if not isinstance(header, dict) or set(header) != {"model", "dims", "dtype", "count"}:
        raise BadPack(f"pack {name[:12]}: unexpected header")
    if header["model"] != model:
        if not isinstance(header["model"], str):
            raise BadPack(f"pack {name[:12]}: unexpected header")
        return None
    count = header["count"]
    if header["dims"] != dims or header["dtype"] != DTYPE:
        raise BadPack(f"pack {name[:12]}: {header['dims']} x {header['dtype']}, not {dims}")
    if type(count) is not int or not 0 < count <= MAX_COUNT:
        raise BadPack(f"pack {name[:12]}: bad count")
    body = data[end + 1 :]
    if len(body) != count * (KEY_BYTES + 2 * dims):
        raise BadPack(f"pack {name[:12]}: {len(body)} bytes for {count} rows")
    keys = body[: count * KEY_BYTES]
    rows = np.frombuffer(body, dtype="<f2", offset=count * KEY_BYTES).astype(np.float32)
    rows = rows.reshape(count, dims)
    if not np.isfinite(rows).all():
        raise BadPack(f"pack {name[:12]}: values that are not finite")
    norms = np.linalg.norm(rows, axis=1)
    if np.abs(norms - 1.0).max() > NORM_TOLERANCE:
        raise BadPack(f"pack {name[:12]}: rows that are not unit vectors")
    digests = [keys[i : i + KEY_BYTES].hex() for i in range(0, len(keys), KEY_BYTES)]
    return Pack(name, digests, rows)
