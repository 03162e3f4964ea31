"""What review calls "nearly the same": scores, matches and groups of entries.

A proposed entry is compared with what the home already holds (the entries of
its target, of USER.md and MEMORY.md) and with the entries of the other
pending proposals. ``index/likeness.py`` measures two things for a pair: the
search analyzer's terms of each (words) and the cosine of their vectors
(meaning, when the semantic model is on). ``likeness`` folds them into one
score in [0, 1]; a pair at or above the threshold (``[review] threshold`` in
hearth.toml) is "nearly the same".

The fold and the default threshold were chosen by measurement on a labelled
set of entry pairs (``bench/near_duplicates.py``, figures in docs/ui.md):
multilingual-e5-small's cosines are compressed into a narrow band (unrelated
English sentences already score about 0.75), so the cosine is stretched from
``COSINE_FLOOR``..1 onto 0..1 before it is combined with the words' overlap.

Pure: terms, cosines and entries in; scores, matches and groups out.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: The score at or above which two entries are "nearly the same".
DEFAULT_THRESHOLD = 0.56
#: A cosine at or below this counts as no likeness at all (see the module's text).
COSINE_FLOOR = 0.8
#: Share of the score that comes from meaning when both measures are there.
MEANING_WEIGHT = 0.7
#: Most matches shown for one entry.
MAX_MATCHES = 3


def keyword_likeness(a: frozenset[str], b: frozenset[str]) -> float:
    """The overlap of two entries' terms (Dice's coefficient)."""
    if not a or not b:
        return 0.0
    return 2 * len(a & b) / (len(a) + len(b))


def likeness(a: frozenset[str], b: frozenset[str], cosine: float | None) -> float:
    """One score in [0, 1] from the terms' overlap and, when there is one, the cosine."""
    words = keyword_likeness(a, b)
    if cosine is None:
        return words
    meaning = min(1.0, max(0.0, (cosine - COSINE_FLOOR) / (1 - COSINE_FLOOR)))
    return MEANING_WEIGHT * meaning + (1 - MEANING_WEIGHT) * words


def parse_threshold(value: object) -> float:
    from hearth.errors import InvalidInput  # noqa: PLC0415  (kept beside its only use)

    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise InvalidInput(
            "hearth.toml: [review] threshold must be a number above 0 and at most 1 "
            f"(default {DEFAULT_THRESHOLD})"
        )
    return float(value)


#: A word (letters, digits, inner apostrophes and hyphens).
_WORD = re.compile(r"\w+(?:['’-]\w+)*")
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$", re.IGNORECASE)


@dataclass(frozen=True)
class Held:
    """An entry the home holds, or another pending proposal holds."""

    text: str
    path: str
    #: 1-based line of the entry in ``path``.
    line: int
    #: The pending proposal's key, when the entry is proposed, not held.
    key: str | None = None


@dataclass(frozen=True)
class EntryMatch:
    """One entry like a proposed one: where it is and how close (1.0: the same text)."""

    text: str
    path: str
    line: int
    score: float
    key: str | None = None

    @property
    def exact(self) -> bool:
        return self.score >= 1.0

    def as_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "text": self.text,
            "path": self.path,
            "line": self.line,
            "score": round(self.score, 3),
            "exact": self.exact,
            # "known": the home holds it; "proposed": another pending proposal does.
            "where": "proposed" if self.key else "known",
        }
        if self.key:
            data["key"] = self.key
        return data


@dataclass(frozen=True)
class EntryMatches:
    """A proposed entry and what is like it, closest first."""

    entry: str
    matches: tuple[EntryMatch, ...]

    @property
    def known(self) -> bool:
        """Whether the home already holds what the entry says: a held entry is
        like it (a paraphrase counts) and names every name and number the entry
        names. An entry that is like a held one but names something it does not
        (``Ada lives in Porto with her dog Biscuit`` beside ``Ada's dog Biscuit
        loves the beach``) is news: the review page's default never leaves it
        out."""
        return bool(self.holding)

    @property
    def holding(self) -> tuple[EntryMatch, ...]:
        """The held entries that make it known (see ``known``), closest first:
        each name and number the entry names is a word of the held entry,
        in any case or accents (``ada lives in porto`` holds ``Porto``)."""
        named = _named(self.entry)
        return tuple(m for m in self.matches if m.key is None and named <= _said(m.text))

    def as_dict(self) -> dict[str, object]:
        return {
            "entry": self.entry,
            "known": self.known,
            "matches": [m.as_dict() for m in self.matches],
        }


def _named(text: str) -> frozenset[str]:
    """The names and numbers a text names: its words written with a capital
    (but its first, capitalised as a sentence starts) or holding a digit; a
    possessive's ``'s`` and an ordinal's ``th`` let go (``14th`` is ``14``),
    folded (``_folded``)."""
    words = _WORD.findall(unicodedata.normalize("NFC", text))
    return frozenset(
        _folded(w)
        for i, w in enumerate(words)
        if (w[0].isupper() and i > 0) or any(c.isdigit() for c in w)
    )


def _said(text: str) -> frozenset[str]:
    """Every word of ``text``, folded as ``_named``'s."""
    return frozenset(_folded(w) for w in _WORD.findall(unicodedata.normalize("NFC", text)))


def _folded(word: str) -> str:
    """A word as search matches it: without a possessive or an ordinal's
    ending, case and accents (``Zoë``, ``ZOE`` and ``Zoe`` with a combining
    diaeresis are ``zoe``; Greek without its tonos)."""
    bare = _ORDINAL.sub(r"\1", re.sub(r"['’]s$", "", word)).casefold()
    marks = unicodedata.normalize("NFD", bare)
    return "".join(c for c in marks if not unicodedata.combining(c))


def same_text(one: str, other: str) -> bool:
    """Whether two entries are the same text to a reader: equal once both are
    composed (NFC), so a note pasted decomposed is not a different entry."""
    return one == other or unicodedata.normalize("NFC", one) == unicodedata.normalize("NFC", other)


def best_matches(
    entry: str,
    scored: Iterable[tuple[Held, float]],
    threshold: float,
    limit: int = MAX_MATCHES,
) -> EntryMatches:
    """The held entries scoring at or above ``threshold``, closest first; the same
    text scores 1.0 whatever the measures say."""
    found = []
    for held, measured in scored:
        score = 1.0 if same_text(held.text, entry) else min(measured, 0.999)
        if score >= threshold:
            found.append(EntryMatch(held.text, held.path, held.line, score, held.key))
    found.sort(key=lambda m: (-m.score, m.key is not None, m.path, m.line))
    return EntryMatches(entry, tuple(found[:limit]))


def groups(keys: Sequence[str], links: Iterable[tuple[str, str]]) -> list[list[str]]:
    """Groups of two or more proposals that say much the same, in ``keys``' order.

    A group is a proposal and every proposal not yet grouped that it is linked
    to directly (one of their entries is nearly the same as one of its own).
    Not the transitive closure: with chains (A like B, B like C, ...) a busy
    week of proposals would end up as one group whose ends share nothing, and
    a person merging "the group" would merge what they never compared.
    """
    linked: dict[str, set[str]] = {k: set() for k in keys}
    for a, b in links:
        if a in linked and b in linked and a != b:
            linked[a].add(b)
            linked[b].add(a)
    grouped: set[str] = set()
    found = []
    for key in keys:
        if key in grouped or not linked[key] - grouped:
            continue
        members = [key] + [k for k in keys if k in linked[key] and k not in grouped]
        grouped.update(members)
        found.append(members)
    return found


#: What a pointer left in place of a moved entry links to.
POINTER_MARK = "see memory/topics/"
#: Words of an entry that name its topic note.
TOPIC_WORDS = 3


@dataclass(frozen=True)
class Move:
    """One entry to move out of a bounded file: its line, its text, the topic
    note to move it to and the one-line pointer to leave in its place."""

    text: str
    line: int
    topic: str
    topic_path: str
    pointer: str
    #: Characters the move frees (the entry's length less the pointer's).
    frees: int
    #: Why this one: "in a topic note" (already there), "repeated", "older".
    why: str

    def as_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "line": self.line,
            "topic": self.topic,
            "topic_path": self.topic_path,
            "pointer": self.pointer,
            "frees": self.frees,
            "why": self.why,
        }


def topic_for(text: str, suffix: str = "") -> tuple[str, str, str]:
    """The topic note's title and path for an entry moved out of a bounded
    file, and the pointer left behind: ``<title>: see memory/topics/<slug>.md``.
    The slug is the one ``hearth topic <title>`` makes."""
    from hearth.domain import keys  # noqa: PLC0415  (kept beside its only use)

    words = [w.strip(".,;:!?()[]\"'*`") for w in text.split()]
    title = " ".join([w for w in words if w][:TOPIC_WORDS]) or "Moved entry"
    title = f"{title} {suffix}".strip()
    slug = keys.sanitize_slug(keys.normalized_title_key(title))
    if not slug or slug == "item":
        slug = keys.record_key(title)
    path = f"memory/topics/{slug}.md"
    return title, path, f"{title}: {POINTER_MARK}{slug}.md"


@dataclass(frozen=True)
class OverBound:
    """A merge that would push its target over its size bound (and so be refused)."""

    target: str
    chars: int
    bound: int
    #: The target's length now (before the merge).
    now: int
    #: Entries of the target that could move to a topic note to make room (each
    #: leaving a pointer), repeated ones first, then the oldest, as many as it takes.
    moves: tuple[Move, ...]

    @property
    def movable(self) -> tuple[tuple[str, int], ...]:
        return tuple((m.text, m.line) for m in self.moves)

    @property
    def enough(self) -> bool:
        """Whether the moves listed free enough room."""
        return sum(m.frees for m in self.moves) >= self.chars - self.bound

    def as_dict(self) -> dict[str, object]:
        return {
            "target": self.target,
            "chars": self.chars,
            "bound": self.bound,
            "chars_now": self.now,
            "over_by": self.chars - self.bound,
            "movable": [m.as_dict() for m in self.moves],
        }


def over_bound(
    target: str,
    after: str,
    bound: int | None,
    held: Sequence[tuple[str, int]],
    repeated: Iterable[int] = (),
    now: int | None = None,
    in_topics: Mapping[int, str] | None = None,
) -> OverBound | None:
    """None when ``after`` (the target as the merge would write it) fits ``bound``;
    else what is over, and which of the target's entries (``held``: text, line)
    to move to a topic note, each leaving its pointer, until the excess is
    covered (the pointer's characters counted). ``repeated``: lines of entries
    the home also holds elsewhere, moved first; then the oldest (the lowest
    line: entries are appended). Pointers already left are never moved again.
    ``in_topics``: line -> the topic note that already holds that entry's text:
    moved before all others, to that note (only the pointer is left to write)."""
    if bound is None or len(after) <= bound:
        return None
    excess = len(after) - bound
    again = set(repeated)
    candidates = []
    titles: set[str] = set()
    for text, line in held:
        if POINTER_MARK in text:
            continue
        topic, path, pointer = topic_for(text)
        if topic in titles:  # two entries that start alike: two notes, two pointers
            topic, path, pointer = topic_for(text, f"(line {line})")
        titles.add(topic)
        why = "repeated" if line in again else "older"
        held_in = (in_topics or {}).get(line)
        if held_in is not None:
            path, why = held_in, "in a topic note"
            pointer = f"{topic}: {POINTER_MARK}{held_in.removeprefix('memory/topics/')}"
        frees = len(text) - len(pointer)
        if frees <= 0:
            continue
        candidates.append(Move(text, line, topic, path, pointer, frees, why))
    order = {"in a topic note": 0, "repeated": 1, "older": 2}
    candidates.sort(key=lambda m: (order[m.why], m.line))
    moves: list[Move] = []
    freed = 0
    for move in candidates:
        if freed >= excess:
            break
        moves.append(move)
        freed += move.frees
    return OverBound(target, len(after), bound, len(after) if now is None else now, tuple(moves))
