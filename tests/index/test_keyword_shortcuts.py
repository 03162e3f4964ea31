"""The keyword path's shortcuts (issue 52: keyword search's speed) give the
answers the long way gave: the set-aside folders' filters, left out of a
search while the index holds no path in them; a text's tongue, told without
a loop over its letters; a text's terms, its words analyzed one by one."""

from __future__ import annotations

import random
import re
from pathlib import Path

from hearth.domain import layout
from hearth.domain.sections import split_sections
from hearth.index import floor
from hearth.index.analysis import term_set, terms_of
from hearth.index.terms import STOP_WORDS
from tests.conftest import indexed_files, keyword_search

TOPIC = "memory/topics/quince.md"
ARCHIVED = f"{layout.PROPOSALS_DIR}/archive/quince--0--1.md"
SUPERSEDED = f"{layout.SUPERSEDED_DIR}/quince--0--1.md"
WITHDRAWN = f"{layout.DECISIONS_DIR}/archive/quince--0--1.md"


def test_a_folder_set_aside_after_a_search_is_left_out_from_then_on(tmp_path: Path) -> None:
    """A search made while no set-aside folder holds a file (its filters left
    out) does not keep that view: once a proposal is archived, a fact
    superseded and a decision withdrawn, the next search leaves them out, and
    asking for them by path still finds them."""
    index = indexed_files(tmp_path, {TOPIC: "# Quince\n\nThe quince tree by the gate.\n"})
    assert [h.path for h in keyword_search(index, "quince tree")] == [TOPIC]
    later = {
        ARCHIVED: "---\ntitle: Quince\nstatus: merged\n---\n\nThe quince tree by the gate.\n",
        SUPERSEDED: "---\ntitle: Quince\nstatus: superseded\n---\n\nThe quince tree fell.\n",
        WITHDRAWN: "---\ntitle: Quince\nstatus: withdrawn\n---\n\nCut the quince tree.\n",
    }
    for path, text in later.items():
        target = tmp_path / "home" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    index.apply({path: split_sections(path, text) for path, text in later.items()}, ())
    assert [h.path for h in keyword_search(index, "quince tree")] == [TOPIC]
    for path in later:
        folder = path.rsplit("/", 1)[0]
        assert [h.path for h in keyword_search(index, "quince", path_prefix=folder)] == [path]


_LETTERS = re.compile(r"[^\W\d_]")


def _tongue_letter_by_letter(text: str) -> str:
    """``floor.tongue`` as it was written first: each letter looked at."""
    scripts = set()
    for char in _LETTERS.findall(text):
        if "\u3040" <= char <= "\u30ff" or "\u3400" <= char <= "\u9fff":
            scripts.add("cjk")
        elif "\uac00" <= char <= "\ud7af" or "\u1100" <= char <= "\u11ff":
            scripts.add("hangul")
    if len(scripts) == 1:
        return scripts.pop()
    if scripts:
        return ""
    words = [w.lower() for w in floor._LATIN_WORD.findall(text)]
    if not words:
        return ""
    if sum(w in STOP_WORDS for w in words) >= floor.ENGLISH_SHARE * len(words):
        return "english"
    return "latin" if any(not w.isascii() for w in words) else "ascii"


SAID = [
    "The quince tree by the gate, and what Ruth said of it.",
    "quince gate tree harbor",
    "明天下午三点开项目评审会议",
    "의사 예약은 내일",
    "日本語と한국어",
    "Die Wohnung, der Vermieter und die Kündigung",
    "naïve résumé",
    "İstanbul trip",
    "\u212aelvin and the ſ",
    "゠・ ゛ kana marks alone",
    "12 34 -- !!",
    "",
]


def test_a_texts_tongue_is_what_each_letter_told() -> None:
    """Hand-picked texts (scripts, accents, letters whose lower case changes
    length, kana punctuation that is no letter) and random mixes of them
    get the tongue the letter-by-letter reading gave."""
    assert [floor.tongue(t) for t in SAID] == [_tongue_letter_by_letter(t) for t in SAID]
    rng = random.Random(52)
    ranges = [(0x20, 0x250), (0x1100, 0x1200), (0x3000, 0x3100), (0x3400, 0x3500), (0xAC00, 0xAC80)]
    pool = [chr(c) for low, high in ranges for c in range(low, high)] + ["\u212a", "\u0130"]
    words = sorted(STOP_WORDS)
    for _ in range(3000):
        parts = [
            rng.choice(pool) if rng.random() < 0.7 else f" {rng.choice(words)} "
            for _ in range(rng.randint(0, 14))
        ]
        text = "".join(parts)
        assert floor.tongue(text) == _tongue_letter_by_letter(text), repr(text)


def test_a_texts_term_set_is_its_terms() -> None:
    """``term_set`` (of plain ASCII text, each word analyzed alone and
    remembered) holds what analyzing the whole text gives: words stemmed,
    folded and cased, digits, words glued by punctuation, a run too long to
    be a term, and text outside ASCII (analyzed whole)."""
    said = [
        *SAID,
        "Running runs ran; the RUNNER's runners -- happily, happiness!",
        "v2.3.1 build_42 x86-64 e-mail foo@example.org 2026-11-20T09:00Z",
        "a" * 70 + " short words after a long run",
        "tab\tand\nnew lines\r\nand\x00nul",
        "Café crème — brûlée",
    ]
    for text in said:
        assert term_set(text) == set(terms_of(text)), repr(text)
