"""Query text before Tantivy sees it: words in scripts without spaces, prefixes.

The analyzer (``schema.py``) makes every Chinese, Japanese, Korean, Thai...
character a token of its own. A query word in those scripts is a run of
characters that may be a whole sentence (``我明天要开什么会``), so searching it as one
phrase would find only that exact sentence. Instead each run becomes its
overlapping character pairs (``明天 天要 要开 ...``): each pair is a two-character
phrase for Tantivy, any of them may match, and the sections holding more of
them (the words of the question) rank higher. The whole run is kept too, as a
phrase bonus, so the note holding the exact word or sentence ranks first.
A Korean word followed by a particle (``부산에서``) holds the pair ``부산``, so
``부산`` finds it.

Pure string work: no Tantivy here.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from hearth.index.dates import MONTHS, NOT_NAMES
from hearth.index.joined import query_words as other_spellings
from hearth.index.joined import words_of as catenated_words

#: The code point ranges of the analyzer's ``CHAR_SCRIPTS`` (Python's ``re``
#: has no ``\p{Han}``): Han, kana, Hangul, Thai, Lao, Khmer, Myanmar.
_CHAR_RANGES = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1100-\u11ff"  # Hangul Jamo
    "\u1780-\u17ff"  # Khmer
    "\u3005\u3007"  # 々 〇
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u31f0-\u31ff"  # Katakana extensions
    "\u3400-\u4dbf"  # Han extension A
    "\u4e00-\u9fff"  # Han
    "\ua960-\ua97f"  # Hangul Jamo extended A
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # Han compatibility
    "\uff66-\uff9f"  # half-width Katakana
    "\U00020000-\U0003134f"  # Han extensions B to G
)
_CHAR_RUN = re.compile(f"[{_CHAR_RANGES}]+")
_PREFIX = re.compile(r"^(\w{2,64})\*$")
_QUOTED = re.compile(r'"[^"]*"?')
_FIELD = re.compile(r"^[+-]?\w+:")
#: The fields a query may name (``schema.py``); any other ``word:`` is a word
#: and its colon punctuation (``Okafor:``, ``10:30``), never a field no section has.
_FIELDS = frozenset({"title", "heading", "body", "text"})
_NAMED = re.compile(r"^[+-]?(\w+):")
#: A possessive's ``'s`` at a word's end (before any closing punctuation).
_POSSESSIVE_END = re.compile(r"(?<=\w)['’][sS](?=[^\w'’]*$)")
#: An elided article or pronoun at a word's start (French, Italian: ``l'``,
#: ``d'``, ``qu'``, ``dell'``...).
_ELIDED_START = re.compile(
    r"(?<![\w'’])(?:[cdjlmnst]|qu|dell|dall|nell|sull|all|un)['’](?=\w)", re.I
)


def bare_word(word: str) -> str:
    """``word`` without a possessive's ``'s`` and an elided article: no word of
    its own either (``Okafor's`` asks for Okafor, ``d'association`` for
    association)."""
    return _ELIDED_START.sub("", _POSSESSIVE_END.sub("", word))


#: ``body`` has no terms of its own (schema.py): ``body:word`` searches ``text``.
_BODY_FIELD = re.compile(r"^([+-]?)body:")
_SYNTAX = re.compile(r'"|(?:^|\s)[+-]\S|\b(?:title|heading|body):|\w\*(?:\s|$)')
_EDGE_PUNCTUATION = "?!.,;:'\"()[]{}"

#: English function words (NLTK's list, taken as is, not tuned): in a question
#: (``what did she say about the trip``) they match nearly every section of a
#: diary written in English and drown the words that carry the question. They
#: are left out of a query that holds any other word; a query of only such
#: words (``the who``), a quoted phrase and a ``+required`` word keep them.
_STOP_WORDS_TEXT = """i me my myself we our ours ourselves you your yours yourself yourselves he him
    his himself she her hers herself it its itself they them their theirs themselves
    what which who whom this that these those am is are was were be been being have
    has had having do does did doing a an the and but if or because as until while of
    at by for with about against between into through during before after above below
    to from up down in out on off over under again further then once here there when
    where why how all any both each few more most other some such no nor not only own
    same so than too very s t can will just don should now"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())


@dataclass(frozen=True)
class QueryText:
    """A user's query, taken apart."""

    #: For Tantivy's lenient parser (runs of characters replaced by their pairs).
    parsed: str
    #: Words ending in ``*``: prefix matches, accents folded and lower-cased.
    prefixes: tuple[str, ...]
    #: Words that count toward the heading and title bonus (not excluded).
    words: tuple[str, ...]
    #: Runs of CHAR_SCRIPTS characters of two or more (the phrase bonus).
    runs: tuple[str, ...]
    #: The words that words side by side make (``wi fi``: ``wifi``), asked
    #: for when the index holds them (``joined.py``).
    together: tuple[str, ...] = ()


def wants_exact_words(text: str) -> bool:
    """A query with search syntax (``"a phrase"``, ``+word``, ``-word``,
    ``title:word``, ``garde*``) asks for exact words: keyword ranking answers it,
    and only sections that match it are hits."""
    return bool(_SYNTAX.search(text))


def asks_in_words(text: str) -> bool:
    """A query of two or more words besides function words, without search
    syntax: a question or a description, which a section may answer without
    holding its words (a neighbouring entry, ``neighbour_bonuses.py``)."""
    if wants_exact_words(text):
        return False
    words = [w for w in re.findall(r"\w+", text.lower()) if w not in STOP_WORDS]
    return len(words) >= 2


_NAME = re.compile(r"(?<![\w'’])[A-Z][\w-]*")


def names_in(text: str) -> list[str]:
    """Capitalized words of ``text`` that are not function words or months,
    outside quotes, lower-cased (``What did Caroline's sister say?``:
    ``caroline``): most likely a person's or a place's name."""
    out = []
    for word in _NAME.findall(_QUOTED.sub(" ", text)):
        low = word.lower()
        if low not in STOP_WORDS and low not in MONTHS and low not in NOT_NAMES:
            out.append(low)
    return list(dict.fromkeys(out))


@functools.lru_cache(maxsize=256)
def read_query(text: str) -> QueryText:
    """``text`` taken apart (remembered: a search reads its text three times,
    for its query, its snippets and its relevance floor)."""
    prefixes: list[str] = []
    rest: list[str] = []
    words: list[str] = []
    quoted = False
    for given in text.split():
        inside, quoted = quoted or '"' in given, quoted ^ (given.count('"') % 2 == 1)
        # Tantivy's parser makes ``okafor's`` the phrase "okafor s" (and
        # ``d'association`` "d association"), which a section naming Okafor
        # (or saying "l'association") does not hold.
        raw = given if inside else bare_word(given)
        match = _PREFIX.match(raw)
        if match:
            prefixes.append(fold(match.group(1)))
            continue
        # A star anywhere else is not syntax: Tantivy's parser read ``a:*`` as
        # "field a exists" and the search failed (no field a; found by the
        # property test of queries).
        token = raw.replace("*", " ").strip()
        named = _NAMED.match(token)
        if not (named and named.group(1) in _FIELDS):
            token = token.replace(":", " ").strip()
        if not token:
            continue
        rest.append(_BODY_FIELD.sub(r"\1text:", token))
        if not token.startswith("-"):
            words.extend(_FIELD.sub("", token).split() if named else token.split())
    together: list[str] = []
    joined = _other_spellings(_without_stop_words(" ".join(rest)), together)
    # Stop words stay in ``words``: measured, the pair and heading bonuses of
    # "went to" or "did she" helped (0.609 against 0.597 any-hit@5).
    runs = [run for run in _CHAR_RUN.findall(_QUOTED.sub(" ", joined)) if len(run) > 1]
    return QueryText(
        parsed=_pairs_outside_quotes(joined),
        prefixes=tuple(prefixes),
        words=tuple(words),
        runs=tuple(dict.fromkeys(runs)),
        together=tuple(dict.fromkeys(together)),
    )


def _is_stop_word(token: str) -> bool:
    return token.strip(_EDGE_PUNCTUATION).lower() in STOP_WORDS


def _without_stop_words(text: str) -> str:
    """``text`` without its stop words outside quotes, unless nothing else would be left."""
    pieces: list[str] = []
    kept_other = False
    cursor = 0
    segments: list[tuple[bool, str]] = []
    for quoted in _QUOTED.finditer(text):
        segments += [(False, text[cursor : quoted.start()]), (True, quoted.group(0))]
        cursor = quoted.end()
    segments.append((False, text[cursor:]))
    for is_quoted, segment in segments:
        if is_quoted:
            pieces.append(segment)
            kept_other = True
            continue
        for token in segment.split():
            if _is_stop_word(token):
                continue
            pieces.append(token)
            kept_other = True
    return " ".join(pieces) if kept_other else text


def _other_spellings(text: str, together: list[str]) -> str:
    """``text`` with its words' other spellings asked for beside them, outside
    quotes (``joined.py``): a word written joined by punctuation its
    catenation (``Wi-Fi``: ``(Wi-Fi WiFi)``), a word in camel case its parts as
    a phrase (``WiFi``: ``(WiFi "Wi Fi")``); the words that words side by side
    make (``wi fi``: ``wifi``) are added to ``together``. A required word
    (``+Wi-Fi``) is found in either spelling, an excluded one (``-Wi-Fi``)
    excludes both."""
    out: list[str] = []
    cursor = 0
    for quoted in _QUOTED.finditer(text):
        out += [_spelled(text[cursor : quoted.start()], together), quoted.group(0)]
        cursor = quoted.end()
    out.append(_spelled(text[cursor:], together))
    return "".join(out)


_SIGNED = re.compile(r"^([+-]?)((?:\w+:)?)(.*)$", re.S)


def _signed(token: str) -> tuple[str, str, str]:
    """A query token's sign, field (``title:``) and word."""
    found = _SIGNED.match(token)
    return (found[1], found[2], found[3]) if found else ("", "", token)


#: What a word written joined or in camel case holds (most queries: nothing).
_MAY_BE_SPELLED = re.compile(r"[\w][-\u2010\u2011._'\u2019,][\w]|[a-z][A-Z]|[A-Z][A-Z][a-z]")


def _spelled(segment: str, together: list[str]) -> str:
    tokens = segment.split()
    if not tokens:
        return segment
    out: list[str] = []
    side_by_side: list[list[str]] = [[]]
    spelled = _MAY_BE_SPELLED.search(segment) is not None
    for token in tokens:
        sign, field, word = _signed(token) if spelled else ("", "", token)
        core = word.strip(_EDGE_PUNCTUATION)
        catenated, camel = other_spellings(core) if core and spelled else ((), ())
        spellings = [f"{field}{w}" for w in catenated]
        spellings += [f'{field}"{" ".join(camel)}"'] if camel else []
        if not spellings:
            out.append(token)
        elif sign == "-":
            out.append(" ".join([token, *(f"-{s}" for s in spellings)]))
        else:
            out.append(f"{sign}({field}{word} {' '.join(spellings)})")
        if _joinable(token):
            side_by_side[-1].append(core)
        elif side_by_side[-1]:
            side_by_side.append([])
    together += [w for words in side_by_side for w in catenated_words(words)]
    if out == tokens:
        return segment
    lead = segment[: len(segment) - len(segment.lstrip())]
    trail = segment[len(segment.rstrip()) :]
    return lead + " ".join(out) + trail


def _joinable(token: str) -> bool:
    """A plain word of letters or digits (no sign, field or search syntax, not
    a function word, not in the scripts cut per character)."""
    core = token.strip(_EDGE_PUNCTUATION)
    return (
        core.isalnum()
        and token[:1] not in "+-"
        and core.lower() not in STOP_WORDS
        and _CHAR_RUN.search(core) is None
    )


def _pairs_outside_quotes(text: str) -> str:
    """Runs of characters replaced by their overlapping pairs, except in ``"phrases"``."""
    out: list[str] = []
    cursor = 0
    for quoted in _QUOTED.finditer(text):
        out.append(_CHAR_RUN.sub(_pairs, text[cursor : quoted.start()]))
        out.append(quoted.group(0))
        cursor = quoted.end()
    out.append(_CHAR_RUN.sub(_pairs, text[cursor:]))
    return "".join(out)


def _pairs(match: re.Match[str]) -> str:
    run = match.group(0)
    if len(run) < 3:
        return f" {run} "
    return " " + " ".join(run[i : i + 2] for i in range(len(run) - 1)) + " "


def char_run_tokens(run: str) -> list[str]:
    """The analyzer's tokens of a run: its characters (lower-casing does not touch them)."""
    return list(run)


def fold(word: str) -> str:
    """What the analyzer does to a word's letters: lower-case and strip accents."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
