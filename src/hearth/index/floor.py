"""The relevance floor: which hits are evidence for the question (issue 38).

A ranking always has a best hit, relevant or not: asked ``asdkjh qwpoeiru``,
the semantic side still finds the nearest passage. So after ranking, each hit
is judged on what the ranking already knows, and only the hits that pass are
answered (the others are counted, and a caller may ask for them: browsing).
What a hit is judged on (``Judged``, gathered by ``evidence.py``):

- **words**: the share of the question's word weight the hit holds (each
  content word weighed by its BM25 inverse document frequency over the
  home's sections; a word no section holds counts at the highest), and that
  weight in units of a word found in one section;
- **meaning**: how far its cosine to the question stands out of the
  question's own background (the mean and spread of its cosine to every
  passage, which the semantic side computes anyway), beyond what the best of
  that many unrelated passages reaches. e5's similarities are bunched
  (unrelated text scores about 0.8), by an amount that depends on the
  question and the home, so a fixed cosine means nothing;
- **both sides**: among the first ``both_depth`` candidates of both the
  keyword and the semantic side: two rankings that agree;
- **next to evidence**: a daily entry right after (or before) a hit that
  passes on its own (the answer to a question asked in the entry before it;
  ``neighbour_bonuses.py`` says why neighbours rank at all);
- **text**: a bare heading (nothing under it: a daily note's ``# DATE``
  line, a record whose fields are all front matter) is no evidence as a
  neighbour, and its vector (of the heading alone) says nothing of meaning;
  it passes only on its words (a title that holds the question's words
  points at its note);
- **every word**: a hit holding every content word of the question (after
  the analyzer's folding; function words, dates and small talk are no
  content words) is evidence, whatever their weight: what a person typed and
  the home holds is never "no matches";
- **translation**: a hit written in another language than the question
  (``tongue``), sharing none of its words, the semantic side's nearest
  passage with text, standing at ``Floor.translation``; or the question's
  translation candidate (``crossing.py``: the cosine weighed by how crowded
  the question and the passage are) at ``Floor.crossing``, standing
  ``Floor.crossing_margin`` above the passages in the question's language;
  for a question of unaccented words the home holds none of, whose language
  is not told, the best of every passage by crossing at ``Floor.crossing_unheld``.

The question decides the bar (``Bar``): one naming something no section
holds (a capitalized word not starting a sentence: ``Caroline``,
``Kubernetes``; a number of two digits or more: ``4242``), or none of whose
content words any section holds, is about what the home does not know, and
only a translation passes; one
naming what a heading holds (a daily entry's speaker, a topic's title) is
about this home and gets the lower ``named`` bar; any other gets ``bar``
(``keyword`` in keyword ranking, which has no meaning to weigh). The values
were decided on the LoCoMo development split (``bench/floor_parts.py``,
``bench/recall_silence.py``; docs/search.md has the figures with and
without each part). Pure: numbers in, decisions out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hearth.index.terms import STOP_WORDS, bare_word, names_in

if TYPE_CHECKING:
    from hearth.index.hits import Hit

#: A section's key in a ranking: ``(path, start_line)``.
Key = tuple[str, int]

_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+)[\"'“‘(]*([A-Z][\w-]*)")
#: Punctuation at a word's edges, no part of it.
EDGE = "?!.,;:'\"()[]{}’"
_DATE_WORDS_TEXT = """today yesterday tomorrow tonight ago week weeks weekend month months year
years monday tuesday wednesday thursday friday saturday sunday january february march april
may june july august september october november december"""
_DATE_WORDS = frozenset(_DATE_WORDS_TEXT.split())
#: Words of greetings, thanks and go-aheads: a prompt of these alone is small
#: talk, and a conversation holds them everywhere; they are no content words.
_SMALL_TALK_TEXT = """hi hello hey hiya howdy thanks thank thx cheers bye goodbye good morning
afternoon evening night great nice cool ok okay yes yeah yep nope sure please continue fine"""
_SMALL_TALK = frozenset(_SMALL_TALK_TEXT.split())
#: The words that set a date in a phrase (``in March``, ``last Friday``, ``on the
#: weekend``): beside words of dates they say when, not what, so a search of
#: them is still a search of the date's words alone.
_DATE_FRAME_TEXT = """in on at of by for from to the a an this that last next every since until
till before after during past coming early late mid"""
_DATE_FRAME = frozenset(_DATE_FRAME_TEXT.split())


@dataclass(frozen=True)
class Bar:
    """What a hit must show, on its own, to be evidence; a part set to None is left out."""

    #: Share of the question's word weight the hit holds...
    words: float | None
    #: ...and that weight, in words found in one section of the home.
    words_held: float
    #: Spreads above the question's background the hit's cosine stands.
    meaning: float | None
    #: Both sides' first candidates, standing this many spreads above...
    agreed: float | None
    #: ...and holding this share and weight of the question's words.
    agreed_words: float = 0.0
    agreed_held: float = 0.0
    #: A hit holding every content word of the question (after the analyzer's
    #: folding) is evidence, whatever their weight.
    every_word: bool = True


@dataclass(frozen=True)
class Floor:
    """The floor's parts (``None`` or False: left out)."""

    #: The bar of a question that says no name the home's headings hold.
    bar: Bar = Bar(
        words=0.5, words_held=1.5, meaning=1.0, agreed=-0.5, agreed_words=0.1, agreed_held=1.0
    )
    #: The bar of a question naming someone or something a heading of the home
    #: holds (a daily entry's speaker, a topic's title): about this home.
    named: Bar | None = Bar(words=0.2, words_held=0.0, meaning=-1.5, agreed=-2.5)
    #: The bar of keyword ranking (semantic ranking off, or no vector yet): the
    #: words alone, as many as a question of one rare word holds.
    keyword: Bar = Bar(words=0.5, words_held=0.0, meaning=None, agreed=None)
    #: The first candidates of each side that count as both sides' (``agreed``).
    both_depth: int = 10
    #: A daily entry next to evidence is evidence.
    neighbours: bool = True
    #: A name the home never mentions: nothing is evidence (but a translation).
    names: bool = True
    #: Standing at which a hit written in another language than the question,
    #: sharing none of its words, is evidence (a translation of the same thing);
    #: None: such a hit is judged as any other.
    translation: float | None = 0.0
    #: ...and only the semantic side's nearest passage: e5 ranks a passage in
    #: the question's own language above one in another unless the other
    #: says the same thing.
    translation_nearest: bool = True
    #: A question none of whose words the home holds: only a translation passes.
    absent_words: bool = True
    #: The crossing (``crossing.py``: cosine less the question's and the
    #: passage's crowding) at which the question's translation candidate is a
    #: translation, and how far it must stand above the best passage in the
    #: question's own language; None: only the nearest at ``translation``.
    crossing: float | None = -0.05
    crossing_margin: float = 0.035
    #: The crossing at which the best of every passage passes for a question
    #: of unaccented words none of which the home holds (it may be asked in
    #: another language than the home's: ``crossing.candidate``'s ``unheld``);
    #: None: only a candidate in another language. Off: typed gibberish
    #: (``asdkjh qwpoeiru``) is such a question too, and its best passage stood
    #: at the crossings of the German and French words it found (docs/search.md).
    crossing_unheld: float | None = None
    #: A search a person asked for (``hearth search``, ``/v1/search``, MCP
    #: ``search``), not a prompt's recall: a query made only of words of dates
    #: and small talk searches for them (``lone_words``); recalled, it is
    #: small talk and passes nothing.
    searched: bool = True


#: The floor hearth searches with.
FLOOR = Floor()


@dataclass(frozen=True)
class Meaning:
    """The semantic side's view of one question."""

    #: Cosine of each candidate passage (by digest) to the question.
    cosines: Mapping[str, float]
    #: Mean and standard deviation of the question's cosine to every passage...
    mean: float
    spread: float
    #: ...and how many passages there are.
    passages: int

    def standing(self, cosine: float) -> float:
        """How many spreads ``cosine`` stands above the background, beyond the
        best of ``passages`` unrelated ones (the expected largest of n normal
        draws is about sqrt(2 ln n) spreads: 2.4 for 20 passages, 3.5 for 500,
        4.6 for 40,000), so one bar means the same in a small home and a big one."""
        if self.spread <= 0:
            return 0.0
        return (cosine - self.mean) / self.spread - math.sqrt(2 * math.log(max(self.passages, 2)))


@dataclass(frozen=True)
class Judged:
    """What the floor knows of one hit (``signals``)."""

    #: Share of the question's word weight the hit holds.
    words: float
    #: The rarest question word the hit holds: its weight over the weight of a
    #: word in one section of the home (0 when it holds none).
    rarest: float
    #: The weight of the question's words the hit holds, in the same unit.
    held: float
    #: Spreads above the background (None: no vector for it, or keyword ranking).
    standing: float | None
    #: Among both sides' first candidates.
    both: bool
    #: The section has text under its heading (a bare heading is no neighbour,
    #: and its vector, of its heading alone, says nothing of meaning).
    text: bool = True
    #: Written in another language (script or letters) than the question.
    foreign: bool = False
    #: The semantic side's nearest passage with text.
    nearest: bool = False
    #: The question's translation candidate's crossing and its margin
    #: (``crossing.py``; None: this hit is not the candidate).
    crossing: float | None = None
    crossing_margin: float | None = None
    #: The candidate was sought among every passage (``Crossing.unheld``).
    crossing_unheld: bool = False


def inner_names(text: str) -> list[str]:
    """The names ``text`` says (``terms.names_in``: capitalized words, not
    function words, months or days), but not a word that starts a sentence
    (``Summarize``, ``Whose``) nor a single letter: ``When did Caroline go?``:
    ``caroline``."""
    starts = {m.lower() for m in _SENTENCE_START.findall(text)}
    return [n for n in names_in(text) if n not in starts and len(n) > 1]


def content_words(words: Sequence[str]) -> list[str]:
    """``words`` without function words, words of dates (the day lift weighs
    those: ``ranking.py``), of small talk, and edge punctuation."""
    out = []
    for word in words:
        # A possessive's "s" is no word of its own: "Okafor's" asks for Okafor;
        # nor is an elided article: "d'association" asks for association.
        low = bare_word(word.lower().strip(EDGE))
        if re.split(r"['’]", low, maxsplit=1)[0] in STOP_WORDS:  # that's, I'd, won't
            continue
        if low and low not in STOP_WORDS and low not in _DATE_WORDS and low not in _SMALL_TALK:
            out.append(low)
    return out


def lone_words(words: Sequence[str]) -> list[str]:
    """The words of dates or small talk of ``words`` (edge punctuation stripped)
    when every other one only sets a date (``_DATE_FRAME``): ``Friday``, ``good
    night``, ``tonight``, ``in March``, ``last Friday`` (a query of these alone is
    about them); else none (``how are you today``: a sentence of small talk)."""
    lows = [low for low in (word.lower().strip(EDGE) for word in words) if low]
    said = [low for low in lows if low in _DATE_WORDS or low in _SMALL_TALK]
    lone = said and all(
        low in _DATE_WORDS or low in _SMALL_TALK or low in _DATE_FRAME for low in lows
    )
    return said if lone else []


def idf(df: int, total: int) -> float:
    """BM25's inverse document frequency of a term in ``df`` of ``total`` sections."""
    return math.log(1 + (total - df + 0.5) / (df + 0.5))


def word_share(held: Collection[str], weights: Mapping[str, float]) -> float:
    """The share of the question's word weight (``weights``: term -> idf) in ``held``."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(w for term, w in weights.items() if term in held) / total


_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")
#: A letter of Han or kana, and of hangul.
_CJK = re.compile(r"(?=[^\W\d_])[\u3040-\u30ff\u3400-\u9fff]")
_HANGUL = re.compile(r"(?=[^\W\d_])[\uac00-\ud7af\u1100-\u11ff]")
#: Every ASCII character but a letter, made a space.
_NOT_ASCII_LETTER = str.maketrans(
    {chr(c): " " for c in range(128) if not ("a" <= chr(c) <= "z" or "A" <= chr(c) <= "Z")}
)
#: English function words in at least this share of a Latin text's words: English.
ENGLISH_SHARE = 0.15


def tongue(text: str) -> str:
    """What ``text`` is written in, as far as its letters tell: ``cjk`` (Han,
    kana), ``hangul``, ``english`` (Latin letters, English function words),
    ``latin`` (Latin letters with accents and few English function words:
    German, French, Spanish), ``ascii`` (a few unaccented words: any of
    those), or "" (no letters, or several scripts)."""
    # A body is judged at every search that finds it, and most are ASCII: its
    # words are its runs of letters, found without a regular expression.
    if text.isascii():
        words = text.lower().translate(_NOT_ASCII_LETTER).split()
    else:
        cjk = _CJK.search(text) is not None
        hangul = _HANGUL.search(text) is not None
        if cjk or hangul:
            return "" if cjk and hangul else "cjk" if cjk else "hangul"
        words = [w.lower() for w in _LATIN_WORD.findall(text)]
    if not words:
        return ""
    if sum(map(STOP_WORDS.__contains__, words)) >= ENGLISH_SHARE * len(words):
        return "english"
    return "ascii" if text.isascii() or all(map(str.isascii, words)) else "latin"


def other_tongues(one: str, other: str) -> bool:
    """Whether texts of these tongues (``tongue``) are in different languages:
    different scripts, or English beside accented Latin; ``ascii`` (a few
    unaccented words) tells only that it is not written in another script."""
    if not one or not other or one == other:
        return False
    latin = {"english", "latin", "ascii"}
    return not ("ascii" in (one, other) and one in latin and other in latin)


def is_translation(judged: Judged, floor: Floor) -> bool:
    """Whether a hit in another language, sharing none of the question's words,
    stands out enough to be the same thing said there."""
    if judged.crossing_unheld:
        return (
            judged.text
            and judged.words == 0
            and floor.crossing_unheld is not None
            and judged.crossing is not None
            and judged.crossing >= floor.crossing_unheld
        )
    if not (judged.foreign and judged.text and judged.words == 0):
        return False
    crossed = (
        floor.crossing is not None
        and judged.crossing is not None
        and judged.crossing_margin is not None
        and judged.crossing >= floor.crossing
        and judged.crossing_margin >= floor.crossing_margin
    )
    return crossed or (
        floor.translation is not None
        and (judged.nearest or not floor.translation_nearest)
        and judged.standing is not None
        and judged.standing >= floor.translation
    )


def is_evidence(judged: Judged, bar: Bar) -> bool:
    """Whether one hit clears ``bar`` on its own (not as a neighbour)."""
    if bar.every_word and judged.words >= 1.0:
        return True
    if bar.words is not None and judged.words >= bar.words and judged.held >= bar.words_held:
        return True
    standing = judged.standing
    if standing is None or not judged.text:
        return False
    if bar.meaning is not None and standing >= bar.meaning:
        return True
    return (
        bar.agreed is not None
        and judged.both
        and standing >= bar.agreed
        and judged.words >= bar.agreed_words
        and judged.held >= bar.agreed_held
    )


def bar_of(floor: Floor, *, named: bool, hybrid: bool) -> Bar:
    """The bar a hit of this question is judged at (``passing``)."""
    if not hybrid:
        return floor.keyword
    return floor.named if named and floor.named is not None else floor.bar


def why_not(
    judged: Judged,
    unknown_names: Collection[str] = (),
    *,
    absent: bool = False,
    bar: Bar = FLOOR.bar,
) -> str:
    """Why a hit left out is no evidence, in a person's words."""
    if unknown_names:
        return f"the home never mentions {', '.join(sorted(unknown_names))}"
    if absent:
        return "the home holds none of the question's words"
    said = f"it holds {judged.words:.0%} of the question's words (by weight)"
    if judged.standing is None or not judged.text or bar.meaning is None:
        return said
    return f"{said}; its meaning stands {judged.standing:+.1f} (evidence from {bar.meaning:+.1f})"


def passing(
    hits: Sequence[Hit],
    judged: Sequence[Judged],
    ordinals: Mapping[Key, int],
    unknown_names: Collection[str] = (),
    named: bool = False,
    floor: Floor = FLOOR,
    *,
    hybrid: bool = True,
    absent: bool = False,
    lone: bool = False,
) -> list[bool]:
    """For each hit, whether it is evidence (``judged`` in the same order);
    ``named``: the question names what a heading of the home holds;
    ``hybrid``: the ranking had the semantic side (else ``floor.keyword``);
    ``absent``: the home holds none of the question's words;
    ``lone``: its words are words of dates and small talk alone (``lone_words``):
    searched, only a hit holding every one of them is evidence; recalled, none."""
    if lone:
        return [floor.searched and j.words >= 1.0 for j in judged]
    if (floor.names and unknown_names) or (floor.absent_words and absent):
        return [is_translation(j, floor) for j in judged]
    bar = bar_of(floor, named=named, hybrid=hybrid)
    # A section with no vector yet (written a moment ago, or while the vectors
    # of a large home still fill) has only its words to show: the keyword bar,
    # as when semantic ranking is off, never the hybrid bar that expects meaning.
    alone = [
        is_evidence(j, floor.keyword if j.standing is None else bar) or is_translation(j, floor)
        for j in judged
    ]
    if not floor.neighbours:
        return alone
    at = {
        (hit.path, ordinals[hit.path, hit.start_line])
        for hit, ok in zip(hits, alone, strict=True)
        if ok and (hit.path, hit.start_line) in ordinals
    }
    out = []
    for hit, j, ok in zip(hits, judged, alone, strict=True):
        ordinal = ordinals.get((hit.path, hit.start_line))
        near = (
            j.text
            and ordinal is not None
            and hit.kind == "daily"
            and ((hit.path, ordinal - 1) in at or (hit.path, ordinal + 1) in at)
        )
        out.append(ok or near)
    return out
