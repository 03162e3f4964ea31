"""The index folder and the vectors as files: what status reads of them without
loading Tantivy or numpy (each costs a command's start-up more than the read).

::

    <index>/meta.json            {"schema": N, "generation": "<random id>"}
    <index>/tantivy/meta.json    Tantivy's: the committed segments, each with
                                 ``max_doc`` and its deletions
    <vectors>/keys               16-byte digests, one per stored vector

A searcher of the index counts ``max_doc`` less the deleted documents of every
committed segment; ``documents`` reads the same numbers from Tantivy's
``meta.json`` (a format Tantivy has kept since 0.5), and answers None for
anything it does not recognize, so a caller then opens the index itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

# 2: whole-section scoring, the CJK-aware analyzer (recall).
# 3: also daily notes in LionClaw's layout (continuity/daily/YYYY/MM/) are kind "daily".
# 4: ``body`` stored without terms; the writer's fast analyzer (``analysis.py``).
# 5: ``digest`` stored without terms, found by the integer ``digest_key``.
# 6: ``ordinal``, a section's place in its file (neighbouring entries, ``neighbour_bonuses.py``).
# 7: no ``body``: a hit's body is read from its file (``bodies.py``).
# 8: a record's front-matter fields a person reads are a section (``domain/sections.py``).
# 9: a pictograph (an emoji) is a token of its own (``schema.PICTOGRAPHS``).
# 10: terms of text in its folded spelling (``folding.py``: Greek accents, ё, NFD...).
# 11: ``body`` stored again, with its file's ``file_digest`` (``bodies.py``).
# 12: words written joined by punctuation are also their catenation (``joined.py``: Wi-Fi, wifi).
# 13: ``doc_key``, a fast field: a process keeps the documents it read by it (``documents.py``).
#: The index schema's version (see ``schema.py``: bump it there with any change of
#: fields or analyzers); named here so status can compare it without Tantivy.
SCHEMA_VERSION = 13
META_NAME = "meta.json"
TANTIVY_DIR = "tantivy"
#: The vector store's file of digests, and the size of one.
KEYS_NAME = "keys"
KEY_BYTES = 16


@dataclass(frozen=True)
class VectorCoverage:
    model: str
    embedded: int
    sections: int

    @property
    def complete(self) -> bool:
        return self.embedded >= self.sections

    def as_dict(self) -> dict[str, object]:
        return {
            "model": self.model,
            "embedded": self.embedded,
            "sections": self.sections,
            "complete": self.complete,
        }


def read_meta(folder: Path) -> dict[str, object] | None:
    """The index folder's own ``meta.json``; None when missing or unreadable."""
    try:
        meta = json.loads((folder / META_NAME).read_text())
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


def documents(folder: Path) -> int | None:
    """Documents a searcher of the committed index in ``folder`` would count; None
    when the folder is not an index of this schema or its files are not as expected."""
    meta = read_meta(folder)
    if meta is None or meta.get("schema") != SCHEMA_VERSION:
        return None
    try:
        found = json.loads((folder / TANTIVY_DIR / META_NAME).read_text())
        total = 0
        for segment in found["segments"]:
            deletes = segment.get("deletes") or {}
            alive = int(segment["max_doc"]) - int(deletes.get("num_deleted_docs", 0))
            if alive < 0:
                return None
            total += alive
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    return total


def stored_rows(folder: Path) -> int:
    """How many vectors the store in ``folder`` holds, without loading them."""
    try:
        return (folder / KEYS_NAME).stat().st_size // KEY_BYTES
    except OSError:
        return 0


class Nearest(NamedTuple):
    """What ``VectorStore.nearest_in`` found."""

    #: ``(digest, cosine)`` of the nearest rows, best first.
    pairs: list[tuple[str, float]]
    #: Mean and standard deviation of the query's cosine against every row...
    mean: float
    spread: float
    #: ...and how many rows there are.
    rows: int
