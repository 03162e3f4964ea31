"""How alike two memory entries are, by hearth's own search: the index's words
and the semantic model's vectors.

Review flags a proposed entry that the home already holds in other words
(``domain/likeness.py`` decides what counts as "nearly the same"; this module
only measures). An entry is one line, so it is compared whole, not as a
section of the index:

- words: the terms the index makes of it (``analysis.terms_of``: lower-cased,
  accents folded, its folded spelling, words written joined put together,
  English stems, one term per CJK character),
  without English function words (``terms.STOP_WORDS``), so ``Sam has a cat
  allergy`` and ``Sam is allergic to cats`` share ``sam``, ``cat``;
- meaning: the cosine of the two entries' vectors from the model semantic
  search uses, embedded as passages. Vectors are kept by the digest of the
  entry's text in a store of their own (``.git/hearth/entry-vectors``, the
  format of ``index/vectors.py``), so each entry is embedded once, whichever
  page, command or reflection run asks first.

Without a model (``[search] semantic = false``, or ``HEARTH_SEMANTIC=off``)
only words are compared. A pointer line a consolidation left is compared by
its title alone (``said``).
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hearth.domain.consolidation import pointer_title
from hearth.domain.likeness import COSINE_FLOOR, MEANING_WEIGHT
from hearth.embedding import Embedder
from hearth.index.analysis import terms_of
from hearth.index.schema import digest, shared_analyzer
from hearth.index.terms import STOP_WORDS

if TYPE_CHECKING:
    from hearth.index.vectors import Vectors, VectorStore

#: Entries embedded per call to the model.
BATCH = 32


class EntryLikeness:
    """Terms and vectors of entries, remembered by text."""

    def __init__(self, embedder: Embedder | None = None, folder: Path | None = None) -> None:
        self.embedder = embedder
        self.folder = folder
        self._store: VectorStore | None = None
        self._memory: dict[str, Vectors] = {}
        self._lock = threading.Lock()

    @property
    def semantic(self) -> bool:
        return self.embedder is not None

    def terms(self, text: str) -> frozenset[str]:
        return _terms(text)

    def scores(
        self, rows: Sequence[str], cols: Sequence[str], subject: frozenset[str] = frozenset()
    ) -> Vectors:
        """``likeness`` (``domain/likeness.py``) of every row against every column,
        as one matrix: the terms as 0/1 rows over the pair's vocabulary (their
        product counts the shared terms), the cosines as one product of vectors.
        50 proposals of 3 entries against 500 held entries: a few milliseconds,
        where scoring pair by pair in Python took about 100.

        A pair where one entry is a ``Label: value`` field (USER.md's style,
        ``Diet: vegetarian``) is also compared by the value alone, without
        ``subject`` (the terms of the person's names, implicit in such a field
        and named in the sentence, ``Sam is vegetarian``), and the better
        overlap counts; other pairs are compared as they are."""
        import numpy as np  # noqa: PLC0415  (numpy only once scores are wanted)

        if not rows or not cols:
            return np.zeros((len(rows), len(cols)), dtype=np.float32)

        def overlap(row_terms: list[frozenset[str]], col_terms: list[frozenset[str]]) -> Vectors:
            vocabulary: dict[str, int] = {}
            for found in (*row_terms, *col_terms):
                for term in found:
                    vocabulary.setdefault(term, len(vocabulary))

            def incidence(sets: list[frozenset[str]]) -> Vectors:
                out = np.zeros((len(sets), len(vocabulary)), dtype=np.float32)
                for i, found in enumerate(sets):
                    out[i, [vocabulary[t] for t in found]] = 1.0
                return out

            r, c = incidence(row_terms), incidence(col_terms)
            shared = r @ c.T
            sizes = r.sum(axis=1)[:, None] + c.sum(axis=1)[None, :]
            dice: Vectors = np.divide(2 * shared, sizes, out=np.zeros_like(shared), where=sizes > 0)
            return dice

        def about(text: str) -> frozenset[str]:
            found = self.terms(labelled_value(text) or text)
            return (found - subject) or found

        words: Vectors = overlap([self.terms(t) for t in rows], [self.terms(t) for t in cols])
        labelled = np.zeros((len(rows), len(cols)), dtype=bool)
        if any(labelled_value(t) for t in (*rows, *cols)):
            # A pair with a labelled entry: also by value, the person left implicit.
            labelled = (
                np.array([labelled_value(t) is not None for t in rows])[:, None]
                | np.array([labelled_value(t) is not None for t in cols])[None, :]
            )
            by_value = overlap([about(t) for t in rows], [about(t) for t in cols])
            words = np.where(labelled, np.maximum(words, by_value), words)
        if self.embedder is None:
            return words
        found_vectors = self.vectors([said(t) for t in (*rows, *cols)])
        cosines = (
            np.stack([found_vectors[said(t)] for t in rows])
            @ np.stack([found_vectors[said(t)] for t in cols]).T
        )
        meaning = np.clip((cosines - COSINE_FLOOR) / (1 - COSINE_FLOOR), 0.0, 1.0)
        scores: Vectors = MEANING_WEIGHT * meaning + (1 - MEANING_WEIGHT) * words
        # The model reads whole sentences and scores a field (``Diet: vegetarian``)
        # against the sentence saying it (``Sam is vegetarian``) low: for a pair
        # with a labelled entry, the words' overlap counts on its own too.
        scores = np.where(labelled, np.maximum(scores, words), scores)
        return scores

    def vectors(self, texts: Sequence[str]) -> dict[str, Vectors]:
        """Each distinct text's vector (empty without a model); embeds only what
        no earlier call (in any process sharing the folder) embedded."""
        if self.embedder is None:
            return {}
        import numpy as np  # noqa: PLC0415  (numpy only once vectors are wanted)

        wanted = list(dict.fromkeys(texts))
        with self._lock:
            store = self._open()
            if store is not None:
                store.refresh()
            found: dict[str, Vectors] = {}
            todo: list[str] = []
            for text in wanted:
                vector = self._memory.get(text)
                key = digest(text)
                if vector is None and store is not None and key in store:
                    vector = store.rows_of([key])[0]
                    self._memory[text] = vector
                if vector is None:
                    todo.append(text)
                else:
                    found[text] = vector
            for start in range(0, len(todo), BATCH):
                chunk = todo[start : start + BATCH]
                rows = np.asarray(self.embedder.passages(chunk), dtype=np.float32)
                if store is not None:
                    store.add([digest(t) for t in chunk], rows)
                for text, row in zip(chunk, rows, strict=True):
                    self._memory[text] = row
                    found[text] = row
            return found

    def _open(self) -> VectorStore | None:
        if self._store is None and self.folder is not None and self.embedder is not None:
            from hearth.index.vectors import open_store  # noqa: PLC0415  (numpy: see vectors)

            self._store = open_store(self.folder, self.embedder.name, self.embedder.dims)
        return self._store


#: ``Label: value`` (USER.md's style): a short label of words, a colon, the value.
_LABELLED = re.compile(r"^\**([^\W\d][\w' ]{0,28}?)\**:\**\s+(\S.*)$")


def labelled_value(text: str) -> str | None:
    """The value of a ``Label: value`` entry (``Diet: vegetarian`` -> ``vegetarian``)."""
    found = _LABELLED.match(text.strip())
    return found[2] if found else None


@functools.lru_cache(maxsize=1)
def _stop_terms() -> frozenset[str]:
    """The function words as the analyzer leaves them (``has`` is stemmed to ``ha``)."""
    analyzer = shared_analyzer()
    return frozenset(analyzer.analyze(" ".join(sorted(STOP_WORDS)))) | STOP_WORDS


def said(text: str) -> str:
    """What an entry says, as it is compared: a pointer line a consolidation
    left (``Family (Caroline): see memory/topics/family-caroline.md``) says its
    title; the path says where entries went, and every pointer has one, so
    two pointers would look alike by it."""
    title = pointer_title(text)
    return text if title is None else title


@functools.lru_cache(maxsize=8192)
def _terms(text: str) -> frozenset[str]:
    # As the index holds them: folded (``folding.py``: NFD, Greek accents...)
    # and with words written joined put together (``joined.py``).
    tokens = terms_of(said(text))
    stop = _stop_terms()
    content = [t for t in tokens if t not in stop]
    return frozenset(content or tokens)
