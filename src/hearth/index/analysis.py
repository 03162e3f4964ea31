"""Indexing fast with exactly the search analyzer's terms.

The search analyzer (``schema.build_analyzer``) is a regex tokenizer, so that
Chinese, Japanese, Korean, Thai... characters are tokens of their own and no
run of letters is longer than ``MAX_TOKEN_CHARS``. Measured on a 10,000-file
home (docs/performance.md, "Figures behind the code's comments"): Tantivy's
regex tokenizer builds its caches anew for every field value, ten times its ``simple``
tokenizer; it was 10 of the build's 16 CPU seconds.

So the index is *written* through another ``tantivy.Index`` object on the same
folder, whose analyzer (same name, same filters) has the ``simple`` tokenizer,
and every field value is given in a form for which it yields the search
analyzer's terms, at the same positions:

- most text (all of it ASCII, or holding no character of ``charsets``, and no
  run of more than ``MAX_TOKEN_CHARS`` letters) is given as is: both
  tokenizers cut it at the same places;
- the ``text`` field (indexed, never stored) of other text is given a spaced
  copy: a space on either side of each character of ``CHAR_SCRIPTS``, and the
  characters only ``simple`` takes for letters replaced by a space;
- what is left (stored fields; text holding characters ``simple`` drops but the
  search analyzer keeps, such as combining marks, Indic viramas and Thai
  punctuation; a run of letters longer than ``MAX_TOKEN_CHARS``; text that
  ``folding.fold`` changes) is given pre-tokenized, with the search
  analyzer's own terms of the folded text.

Reading (query parsing, snippets) keeps the search analyzer. ``charsets.py``
holds the character classes, checked against both tokenizers for every code
point by ``tests/index/test_analysis.py``.
"""

from __future__ import annotations

import functools
import re

import tantivy

from hearth.index import charsets, folding, joined
from hearth.index.schema import MAX_TOKEN_CHARS, shared_analyzer


class _Classes:
    """The character classes as patterns, compiled on first use (it takes
    tens of milliseconds, which a command that writes nothing should not pay)."""

    @functools.cached_property
    def cut(self) -> re.Pattern[str]:
        return re.compile(f"[{charsets.CUT_CHARS}]")

    @functools.cached_property
    def simple_only(self) -> re.Pattern[str]:
        return re.compile(f"[{charsets.SIMPLE_ONLY_CHARS}]")

    @functools.cached_property
    def search_only(self) -> re.Pattern[str]:
        return re.compile(f"[{charsets.SEARCH_ONLY_CHARS}]")

    @functools.cached_property
    def any_special(self) -> re.Pattern[str]:
        return re.compile(
            f"[{charsets.CUT_CHARS}{charsets.SIMPLE_ONLY_CHARS}{charsets.SEARCH_ONLY_CHARS}]"
        )


_CLASSES = _Classes()
#: Runs of characters outside ASCII (no character of ``charsets`` is ASCII).
_NOT_ASCII = re.compile(r"[^\x00-\x7f]+")
#: Bytes that may be part of a run of letters (ASCII letters and digits, and
#: every byte of a non-ASCII character) become ``a``, others a space: a run of
#: more than MAX_TOKEN_CHARS letters leaves at least that many ``a`` in a row.
_RUN_BYTES = bytes(
    ord("a") if (chr(b).isascii() and chr(b).isalnum()) or b >= 0x80 else ord(" ")
    for b in range(256)
)
_LONG_RUN = b"a" * (MAX_TOKEN_CHARS + 1)

IndexValue = str | tantivy.PreTokenizedString


def build_fast_analyzer() -> tantivy.TextAnalyzer:
    """The writer's analyzer: ``schema.build_analyzer``'s filters on ``simple``."""
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


@functools.cache
def _fast_analyzer() -> tantivy.TextAnalyzer:
    return build_fast_analyzer()


def terms_of(text: str) -> list[str]:
    """The index's terms of ``text`` (its words, then the words it writes
    joined by punctuation put together: ``joined.py``), through the fast
    analyzer when it cuts ``text`` the same way (``is_plain``): a section's
    terms in a fraction of the time (the relevance floor reads every hit's)."""
    text = joined.with_catenations(text)
    if is_plain(text):
        return _fast_analyzer().analyze(text)
    return shared_analyzer().analyze(folding.fold(text))


#: The ``simple`` tokenizer's tokens of lower-cased ASCII text: runs of letters and digits.
_ASCII_TOKEN = re.compile(r"[a-z0-9]+")


@functools.lru_cache(maxsize=8192)
def _word_terms(word: str) -> tuple[str, ...]:
    return tuple(_fast_analyzer().analyze(word))


def term_set(text: str) -> set[str]:
    """The set of ``terms_of(text)``. Of plain ASCII text (most sections),
    each distinct word is analyzed once and remembered: the analyzer's
    filters (case, folding, stemming) work a token at a time, so a word's
    terms are the same alone as in its text, and the relevance floor asks
    for the terms of every hit it judges."""
    if text.isascii() and not may_hold_long_run(text):
        text = joined.with_catenations(text)
        return {t for word in set(_ASCII_TOKEN.findall(text.lower())) for t in _word_terms(word)}
    return set(terms_of(text))


def may_hold_long_run(text: str) -> bool:
    """False when ``text`` surely has no run of more than MAX_TOKEN_CHARS letters."""
    if len(text) <= MAX_TOKEN_CHARS:  # most titles and headings: no run can be longer
        return False
    return _LONG_RUN in text.encode("utf-8", "surrogatepass").translate(_RUN_BYTES)


def is_plain(text: str) -> bool:
    """True when the ``simple`` tokenizer cuts ``text`` as the search analyzer does."""
    if _has_special(text):
        return False
    return not may_hold_long_run(text)


def _has_special(text: str) -> bool:
    """Whether ``text`` holds a character of ``charsets``' classes. Only its
    characters outside ASCII are looked at: a daily note's ``—`` made the
    whole body go through the classes' slower pattern."""
    if text.isascii():
        return False
    rest = "".join(_NOT_ASCII.findall(text))
    return _CLASSES.any_special.search(rest) is not None or folding.foldable(text, rest)


def stored_value(text: str, extra: str | None = None) -> IndexValue:
    """What a stored, indexed field (title, heading) is given: with the
    words it writes joined put together (``joined.py``) among its terms
    (``extra``: those words, ``joined.catenations(text)``, when the caller
    has them)."""
    if extra is None:
        extra = joined.catenations(text)
    if extra:
        return pretokenized(text, f"{text}\n{extra}")
    return text if is_plain(text) else pretokenized(text)


def unstored_value(text: str) -> IndexValue:
    """What the indexed, unstored ``text`` field is given: ``text`` and,
    after it, the words it writes joined put together (``joined.py``)."""
    return unstored_form(joined.with_catenations(text))


def unstored_form(text: str) -> IndexValue:
    """``unstored_value`` of text that already ends with its joined words."""
    if text.isascii():
        return pretokenized(text) if may_hold_long_run(text) else text
    rest = "".join(_NOT_ASCII.findall(text))
    if folding.foldable(text, rest):
        return pretokenized(text)
    if _CLASSES.any_special.search(rest) is None:
        return pretokenized(text) if may_hold_long_run(text) else text
    if _CLASSES.search_only.search(rest) is not None:
        return pretokenized(text)
    spaced = _CLASSES.simple_only.sub(" ", _CLASSES.cut.sub(r" \g<0> ", text))
    return pretokenized(text) if may_hold_long_run(spaced) else spaced


def pretokenized(text: str, terms_of_text: str | None = None) -> tantivy.PreTokenizedString:
    """``text`` with the search analyzer's terms of its folded spelling
    (``folding.py``), or of ``terms_of_text``'s (offsets are not kept: no
    field given this way is highlighted from its indexed form)."""
    terms = shared_analyzer().analyze(
        folding.fold(text if terms_of_text is None else terms_of_text)
    )
    return tantivy.PreTokenizedString(
        text, [tantivy.Token(term, position, 0, 0) for position, term in enumerate(terms)]
    )
