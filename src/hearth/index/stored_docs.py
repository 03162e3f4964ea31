"""Hits' documents, read from Tantivy's store once a process and kept by key.

Reading a hit's stored document is a large share of a keyword search: its
compressed block found and decompressed, the document made a Python object,
and a search reads dozens (the page, the page's last's ties, a crowded
page's candidates; docs/performance.md has the figures). The
same sections come back search after search (the common words' ones), and a
stored document never changes: a change of a file deletes its sections'
documents and adds new ones.

So each document carries a key of its own (``DOC_KEY``, a fast field: read for
a batch of addresses without touching the store, a fraction of a read),
unique to that document as it was added (``documents.new_key``), and what the
search takes of a document (``Doc``) is kept under its key for any later
search (``KeptDocs``, at most ``KEPT`` documents and ``KEPT_CHARS``
characters of bodies, the least lately used let go first). A key read that is
not kept (a new document, or one let go) is read from the store as before.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from typing import Any, NamedTuple

import tantivy

from hearth.domain import layout
from hearth.index.hits import Hit, Ranked
from hearth.index.schema import BODY, DOC_KEY, FILE_DIGEST, ORDINAL

#: Documents kept at most...
KEPT = 16384
#: ...and characters of their bodies.
KEPT_CHARS = 8_000_000


class Doc(NamedTuple):
    """What a search takes of a stored document."""

    #: The section as a hit, without score or snippet.
    hit: Hit
    ordinal: int | None
    #: Its passage digest.
    digest: str
    #: Its stored body and the digest of its file's bytes (``Ranked.stored``).
    stored: tuple[str, bytes] | None


class KeptDocs:
    """Documents by key, shared by a process's searches (a lock guards them)."""

    def __init__(self, most: int = KEPT, most_chars: int = KEPT_CHARS) -> None:
        self._most = most
        self._most_chars = most_chars
        self._docs: OrderedDict[Hashable, Doc] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Doc | None:
        with self._lock:
            found = self._docs.get(key)
            if found is not None:
                self._docs.move_to_end(key)
            return found

    def keep(self, key: Hashable, doc: Doc) -> None:
        chars = len(doc.stored[0]) if doc.stored else 0
        with self._lock:
            if key in self._docs:
                return
            self._docs[key] = doc
            self._chars += chars
            while len(self._docs) > self._most or self._chars > self._most_chars:
                _key, gone = self._docs.popitem(last=False)
                self._chars -= len(gone.stored[0]) if gone.stored else 0

    def __len__(self) -> int:
        return len(self._docs)


#: The documents this process read.
KEPT_DOCS = KeptDocs()


def read(searcher: tantivy.Searcher, found: Sequence[tuple[float, Any]]) -> list[tuple[float, Doc]]:
    """The documents of ``found`` (``(score, address)``), with their scores:
    those kept by key (``KEPT_DOCS``), the others read from the store (and kept)."""
    if not found:
        return []
    kept = KEPT_DOCS
    keys = searcher.fast_field_values(DOC_KEY, [address for _score, address in found])
    out = []
    for (score, address), key in zip(found, keys, strict=True):
        doc = kept.get(key) if key is not None else None
        if doc is None:
            doc = _doc(searcher.doc(address))
            if key is not None:
                kept.keep(key, doc)
        out.append((score, doc))
    return out


def _doc(document: tantivy.Document) -> Doc:
    first = document.get_first
    path = str(first("path"))
    hit = Hit(
        path=path,
        start_line=int(first("start_line") or 0),
        end_line=int(first("end_line") or 0),
        title=str(first("title") or ""),
        heading=str(first("heading") or ""),
        kind=str(first("kind")),
        date=str(first("date") or ""),
        score=0.0,
        snippet="",
        status=_record_status(path),
    )
    ordinal = first(ORDINAL)
    file_digest = first(FILE_DIGEST)
    stored = (str(first(BODY) or ""), file_digest) if file_digest is not None else None
    return Doc(hit, None if ordinal is None else int(ordinal), str(first("digest") or ""), stored)


def ranked(docs: Sequence[tuple[float, Doc]]) -> Ranked:
    """The hits of ``docs``, with their scores, and what the index keeps of each."""
    hits: list[Hit] = []
    ordinals: dict[tuple[str, int], int] = {}
    digests: dict[tuple[str, int], str] = {}
    stored: dict[tuple[str, int], tuple[str, bytes]] = {}
    for score, doc in docs:
        hit = doc.hit.scored(round(float(score), 4))
        hits.append(hit)
        where = (hit.path, hit.start_line)
        if doc.ordinal is not None:
            ordinals[where] = doc.ordinal
        digests[where] = doc.digest
        if doc.stored is not None:
            stored[where] = doc.stored
    return Ranked(hits, ordinals, digests, stored)


def tie_order(pair: tuple[float, Doc]) -> tuple[float, str, int]:
    """Best first, equal scores by path and first line."""
    score, doc = pair
    return (-score, doc.hit.path, doc.hit.start_line)


#: ``layout.record_status`` of a path, remembered (the same paths come back
#: search after search).
_record_status = functools.lru_cache(maxsize=8192)(layout.record_status)
