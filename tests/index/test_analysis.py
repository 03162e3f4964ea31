"""The writer's fast analyzer gives exactly the search analyzer's terms."""

from __future__ import annotations

import re

import tantivy
from hypothesis import given, settings
from hypothesis import strategies as st

from hearth.index import analysis, charsets, folding, joined
from hearth.index.schema import CHAR_SCRIPTS, MAX_TOKEN_CHARS, PICTOGRAPHS, build_analyzer
from tests.conftest import examples

SEARCH = build_analyzer()
FAST = analysis.build_fast_analyzer()
#: Code points a Rust string can hold (no surrogates).
CODE_POINTS = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


def _single_tokens(tokenizer: tantivy.Tokenizer) -> set[int]:
    """The code points ``tokenizer`` keeps when each stands alone between spaces."""
    analyzer = tantivy.TextAnalyzerBuilder(tokenizer).build()
    kept: set[int] = set()
    for start in range(0, len(CODE_POINTS), 50_000):
        text = " ".join(chr(c) for c in CODE_POINTS[start : start + 50_000])
        kept.update(ord(token) for token in analyzer.analyze(text))
    return kept


def _ranges(points: set[int]) -> str:
    out: list[str] = []
    for c in sorted(points):
        if out and out[-1].endswith(f"-{c - 1:x}"):
            out[-1] = out[-1].rsplit("-", 1)[0] + f"-{c:x}"
        elif out and out[-1] == f"{c - 1:x}":
            out[-1] += f"-{c:x}"
        else:
            out.append(f"{c:x}")
    return " ".join(out)


def _members(char_class: str) -> set[int]:
    everything = "".join(chr(c) for c in CODE_POINTS)
    return {ord(c) for c in re.findall(f"[{char_class}]", everything)}


def test_the_character_classes_match_both_tokenizers_on_every_code_point() -> None:
    simple = _single_tokens(tantivy.Tokenizer.simple())
    cut = _single_tokens(tantivy.Tokenizer.regex(f"[{CHAR_SCRIPTS}]"))
    pictographs = _single_tokens(tantivy.Tokenizer.regex(PICTOGRAPHS))
    word = _single_tokens(tantivy.Tokenizer.regex(rf"[[\p{{L}}\p{{N}}\p{{M}}]--[{CHAR_SCRIPTS}]]"))
    expected = {
        "CUT_CHARS": (cut | pictographs) & simple,
        "SIMPLE_ONLY_CHARS": simple - word - cut - pictographs,
        "SEARCH_ONLY_CHARS": (word | cut | pictographs) - simple,
    }
    for name, points in expected.items():
        found = _members(getattr(charsets, name))
        # On a mismatch the message gives the ranges to write into charsets.py.
        assert found == points, f"{name} should be the code points {_ranges(points)}"


def _terms(value: analysis.IndexValue) -> list[str]:
    if isinstance(value, str):
        return list(FAST.analyze(value))
    return [token.text for token in value.tokens]


PIECES = st.sampled_from(
    [
        "garden",
        "Tomatoes",
        "café",
        "cafe\u0301",  # a combining accent (NFD)
        "Straße",
        "Köln",
        "东京",
        "西红柿",
        "寿司を食べた",
        "부산에서",
        "ภาษาไทย๏",  # Thai with its punctuation
        "क्या",  # Devanagari with a virama
        "ⓐⓑ",  # circled letters
        "x" * 70,
        "y" * MAX_TOKEN_CHARS,
        "a_b",
        "12:30",
        "—",
        "’s",
        "🦉",
        "Αθήνα",  # folded: Greek accents, Russian ё, half-width kana, Arabic marks
        "ёлка",
        "ｶﾚｰ",
        "السُّوق",
        "İstanbul",
        " ",
        "\n",
        ", ",
        "-",  # words joined by punctuation: also their catenation (joined.py)
        ".",
        "_",
        "'",
        "000",
    ]
)


@settings(max_examples=examples(200))
@given(st.lists(st.one_of(PIECES, st.text(max_size=12)), max_size=12))
def test_fast_values_give_the_search_analyzers_terms(pieces: list[str]) -> None:
    text = "".join(pieces)
    # The words written joined put together come after the text's own.
    expected = list(SEARCH.analyze(folding.fold(joined.with_catenations(text))))
    assert _terms(analysis.unstored_value(text)) == expected
    assert _terms(analysis.stored_value(text)) == expected


def test_plain_text_is_given_as_is() -> None:
    assert analysis.unstored_value("Planted the gardens — with Sam’s café") == (
        "Planted the gardens — with Sam’s café"
    )
    assert isinstance(analysis.stored_value("東京"), tantivy.PreTokenizedString)
    spaced = analysis.unstored_value("東京でsushi")
    assert isinstance(spaced, str) and spaced.split() == ["東", "京", "で", "sushi"]
    assert isinstance(analysis.unstored_value("x" * 65), tantivy.PreTokenizedString)
