"""Consolidation: what hearth proposes so a hot file (USER.md, MEMORY.md,
``users/<id>.md``) stays under its size bound and holds each thing once.

Two kinds of proposal, each one record a person approves or rejects:

- **move**: a cluster of the file's entries about one topic (they share a
  word, as the search analyzer stems it) goes to the topic's own note
  (``memory/topics/<slug>.md``, or ``users/<id>.md`` for a person the home
  has a note for), and one pointer line (``<Topic>: see <note>``) takes the
  place of the first of them;
- **fold**: entries of one file that say nearly the same (review's likeness)
  become one entry: the longest, followed by ``(also: ...)`` with every word
  of the others it does not already hold.

A proposal's record keeps what it does: ``target`` the hot file, its entries
the entries it takes out, ``consolidate`` (``move`` or ``fold``),
``destination`` (a move's note) and ``leaves`` (the line left in the hot file:
the pointer, or the folded entry). Applying it (``apply``) is pure text in,
text out, and refuses (``StaleWrite``) when the hot file no longer holds one
of the entries as proposed, or a fold's line lacks a word of its entries.

No text is dropped: a move puts every entry it takes out into its note, word
for word; a fold keeps every distinct word of every entry it folds.

Pure: texts and terms in, proposals and texts out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from hearth.domain import entries, keys, layout, records
from hearth.domain.consolidation_settings import SOFT_BUDGET
from hearth.domain.text import counted
from hearth.errors import StaleWrite

MOVE = "move"
FOLD = "fold"
ACTIONS = (MOVE, FOLD)

#: Fewest entries a moved cluster holds.
MIN_CLUSTER = 3
#: A term in more than this share of a file's entries is its subject (the
#: person of a person note), never a topic.
SUBJECT_SHARE = 0.5
#: The likeness (``domain/likeness.py``) at or above which two entries of one
#: file are folded: above review's threshold, since a fold rewrites the entry.
FOLD_LIKENESS = 0.7
#: A likeness at or above which two entries are folded even when neither holds
#: all the other's words (in practice: when meaning is measured too).
SAME_MEANING = 0.85
#: Most entries folded into one.
MAX_FOLD = 4
#: Most move proposals made for one file at once.
MAX_MOVES = 3


#: The title every consolidation proposal starts with (the review page and
#: the rejection memory find them by it).
TITLE_PREFIX = "Consolidate "
_POINTER = re.compile(r":\s+see\s+(?:memory/topics|users)/\S+\.md$")
_WORD = re.compile(r"[\w'’-]+")
#: Sentence punctuation at a token's edges, which a fold need not keep.
_EDGES = '.,;:!?"“”()[]{}'


def is_pointer(text: str) -> bool:
    """Whether an entry is a pointer line a move left (never moved or folded again)."""
    return bool(_POINTER.search(text))


def pointer_title(text: str) -> str | None:
    """A pointer line's title (``Family (Caroline)``), or None for another entry."""
    found = _POINTER.search(text)
    return text[: found.start()] if found else None


def soft_budget(bound: int, share: float = SOFT_BUDGET) -> int:
    return int(bound * share)


@dataclass(frozen=True)
class Consolidation:
    """One proposed fix of one hot file."""

    action: str
    target: str
    entries: tuple[str, ...]
    leaves: str
    destination: str = ""
    #: The cluster's topic (a move) or the first words of the folded entry.
    topic: str = ""

    @property
    def title(self) -> str:
        if self.action == MOVE:
            return f"{TITLE_PREFIX}{self.target}: entries about {self.topic} to {self.destination}"
        return f"{TITLE_PREFIX}{self.target}: fold near-duplicates of {self.topic}"

    @property
    def frees(self) -> int:
        """Characters the hot file loses when it is applied."""
        taken = sum(len(e) + 3 for e in self.entries)
        return taken - (len(self.leaves) + 3)

    @property
    def rationale(self) -> str:
        n = counted(len(self.entries), "entry", "entries")
        if self.action == MOVE:
            return (
                f"{self.target} nears its size bound: {n} about {self.topic} move, "
                f"word for word, to {self.destination}; one pointer line stays. No text is dropped."
            )
        return (
            f"{n} of {self.target} say nearly the same: they become one entry "
            "holding every distinct word of each. No text is dropped."
        )


def words(text: str) -> list[str]:
    """The words of ``text`` as a fold compares them (case folded)."""
    return [w.casefold().strip("'’-") for w in _WORD.findall(text) if w.strip("'’-")]


def tokens(text: str) -> list[str]:
    """The tokens of ``text`` (between spaces, sentence punctuation at their
    edges aside) as a fold keeps them: a word, but also ``C#``, ``-5``, a link."""
    found = (raw.strip(_EDGES) for raw in text.split())
    return [t for t in found if t.strip("-–—")]


def fold_text(texts: Sequence[str]) -> str:
    """One entry saying what ``texts`` say: the longest, then ``(also: ...)``
    with every token of the others it does not hold, in their order (tokens,
    not words: ``C#`` beside ``C++``, or an emoji, is no word)."""
    base = max(texts, key=len)
    seen = {t.casefold() for t in tokens(base)}
    extra: list[str] = []
    for text in texts:
        if text == base:
            continue
        for token in tokens(text):
            if token.casefold() not in seen:
                seen.add(token.casefold())
                extra.append(token)
    return f"{base} (also: {' '.join(extra)})" if extra else base


def differs_in_a_value(a: str, b: str) -> bool:
    """Whether the words one of two entries has and the other lacks include a
    value: a number, or a capitalised word (a name, a place, a month). Such a
    pair states two facts, or a fact that changed: it is not folded. So does a
    link, a path or an address the two do not share: a fold keeps words, and
    the other's would be broken."""
    if _links(a) != _links(b):
        return True
    wa, wb = set(words(a)), set(words(b))
    for raw in _WORD.findall(a) + _WORD.findall(b):
        word = raw.casefold().strip("'’-")
        if (word in wa) != (word in wb) and (any(c.isdigit() for c in raw) or raw[:1].isupper()):
            return True
    return False


def _links(text: str) -> set[str]:
    """The links, paths and addresses of ``text`` (a token with ``/``, ``\\`` or ``@``)."""
    return {t.strip(".,;:!?()[]<>\"'") for t in text.split() if any(c in t for c in "/\\@")}


def loses_words(folded: str, texts: Iterable[str]) -> list[str]:
    """The words and tokens of ``texts`` that ``folded`` does not hold (none for a fold)."""
    held = set(words(folded)) | {t.casefold() for t in tokens(folded)}
    said = {w for t in texts for w in (*words(t), *(x.casefold() for x in tokens(t)))}
    return sorted(said - held)


@dataclass(frozen=True)
class Cluster:
    term: str
    #: The word the entries use most for ``term`` (its title).
    word: str
    texts: tuple[str, ...]

    @property
    def chars(self) -> int:
        return sum(len(t) + 3 for t in self.texts)


def clusters(
    held: Sequence[str],
    terms_of: Callable[[str], frozenset[str]],
    subject: frozenset[str] = frozenset(),
    minimum: int = MIN_CLUSTER,
) -> list[Cluster]:
    """Clusters of ``held`` entries sharing a term, the largest (in characters)
    first, each entry in at most one. Terms of ``subject`` (a person note's
    person) and terms in more than ``SUBJECT_SHARE`` of the entries are no topic."""
    found = {text: terms_of(text) for text in held}
    counts = Counter(t for ts in found.values() for t in ts)
    common = {t for t, n in counts.items() if n > max(minimum, len(held) * SUBJECT_SHARE)}
    topics = {t for t, n in counts.items() if n >= minimum and t not in common | subject}
    topics = {t for t in topics if not t.isdigit() and len(t) > 2}
    out: list[Cluster] = []
    left = dict(found)
    while topics:
        best = max(
            topics,
            # Ties go to the longer stem: a noun of the topic over a short verb.
            key=lambda t: (sum(len(x) for x, ts in left.items() if t in ts), len(t), t),
        )
        texts = tuple(x for x, ts in left.items() if best in ts)
        topics.discard(best)
        if len(texts) < minimum:
            continue
        out.append(Cluster(best, surface_word(best, texts, terms_of), texts))
        for text in texts:
            del left[text]
    return out


def surface_word(term: str, texts: Sequence[str], terms_of: Callable[[str], frozenset[str]]) -> str:
    """The word of ``texts`` that most often stems to ``term`` (``painting`` for ``paint``)."""
    counted: Counter[str] = Counter()
    for text in texts:
        for raw in _WORD.findall(text):
            if term in terms_of(raw):
                counted[raw.lower()] += 1
    if not counted:
        return term
    return max(counted, key=lambda w: (counted[w], -len(w), w))


def topic_note(title: str) -> str:
    """The note ``hearth topic <title>`` writes."""
    slug = keys.sanitize_slug(keys.normalized_title_key(title))
    return layout.topic_path(slug if slug and slug != "item" else keys.record_key(title))


def pointer(title: str, destination: str) -> str:
    return f"{title}: see {destination}"


def movable(text: str) -> list[str]:
    """The entries of ``text`` a consolidation may take out: one bullet each
    (no sub-bullets, which would not travel whole), not a pointer, in order."""
    lines = text.replace("\r\n", "\n").split("\n")
    return [
        b.text
        for b in entries.entry_blocks(lines)
        if b.end == b.head_end and not is_pointer(b.text)
    ]


def apply(
    consolidation: Consolidation, source: str, destination: str | None
) -> tuple[str, str | None]:
    """The hot file's text and the destination's (a move; None for a fold)
    after ``consolidation``. ``destination``: the note as it is (a new one
    when None). Refuses (``StaleWrite``) when ``source`` no longer holds every
    entry as proposed, one bullet each."""
    present = set(movable(source))
    gone = [e for e in consolidation.entries if e not in present]
    if gone:
        raise StaleWrite(
            f"this consolidation is stale: {consolidation.target} no longer holds the entry "
            f"{gone[0]!r} as hearth proposed it (it was edited or removed since); nothing "
            "was changed. Reject it: hearth proposes again from the file as it is now",
            detail={"target": consolidation.target, "missing": gone},
        )
    if consolidation.action == FOLD:
        lost = loses_words(consolidation.leaves, consolidation.entries)
        if lost:
            # The record was changed after hearth made it (an update by title
            # adds entries, not their words to the folded line).
            raise StaleWrite(
                f"this fold of {consolidation.target} would drop the words "
                f"{', '.join(map(repr, lost[:5]))}: its entries are no longer those it "
                "folded; nothing was changed. Reject it: hearth proposes again",
                detail={"target": consolidation.target, "missing": lost},
            )
    text = source
    leaves = consolidation.leaves
    taken = [e for e in consolidation.entries if e != leaves]
    if leaves not in consolidation.entries and all(
        e.text != leaves for e in entries.list_entries(text)
    ):
        # The line left takes the place of the first entry taken out.
        text = entries.replace_entry(text, _single(text, taken.pop(0)), leaves)
    for entry in taken:
        text = entries.remove_entry(text, _single(text, entry))
    if consolidation.action == FOLD:
        return text, None
    note = destination
    if note is None:
        title = consolidation.leaves.split(": see ", 1)[0]
        note = f"# {title}\n\n{entries.ENTRIES_HEADING}\n"
    moved, _added = entries.add_entries(note, consolidation.entries)
    return text, moved


def _single(text: str, entry: str) -> str:
    """``#N`` of the first entry reading ``entry`` that has no sub-bullets (the
    one ``movable`` offered): another reading the same keeps its own."""
    lines = text.replace("\r\n", "\n").split("\n")
    singles = {b.start + 1 for b in entries.entry_blocks(lines) if b.end == b.head_end}
    for found in entries.list_entries(text.replace("\r\n", "\n")):
        if found.text == entry and found.line in singles:
            return f"#{found.number}"
    return entry


def stale_entries(consolidation: Consolidation, source: str) -> list[str]:
    """The entries of ``consolidation`` that ``source`` no longer holds as proposed."""
    present = set(movable(source))
    return [e for e in consolidation.entries if e not in present]


def of_proposal(proposal: records.Proposal) -> Consolidation | None:
    """The consolidation a proposal's record holds, or None (an ordinary proposal)."""
    if proposal.consolidate not in ACTIONS:
        return None
    topic = proposal.title.split(" about ", 1)[-1].split(" to ", 1)[0]
    if proposal.consolidate == FOLD:
        topic = proposal.title.split(" of ", 1)[-1]
    return Consolidation(
        proposal.consolidate,
        proposal.target,
        proposal.entries,
        proposal.leaves,
        proposal.destination,
        topic,
    )


def as_proposal(consolidation: Consolidation, stamp: str) -> records.Proposal:
    return records.Proposal(
        title=records.clean_title(consolidation.title),
        entries=consolidation.entries,
        created=stamp,
        updated=stamp,
        target=consolidation.target,
        rationale=consolidation.rationale,
        consolidate=consolidation.action,
        destination=consolidation.destination,
        leaves=consolidation.leaves,
    )


def summary(found: Consolidation, source: str | None) -> dict[str, object]:
    """What the review page and the API show of a consolidation: what moves
    where, what stays, what it frees, and whether it still applies."""
    stale = stale_entries(found, source or "")
    lost = loses_words(found.leaves, found.entries) if found.action == FOLD else []
    return {
        "action": found.action,
        "target": found.target,
        "destination": found.destination or None,
        "leaves": found.leaves,
        "entries": len(found.entries),
        "frees": found.frees,
        "chars_now": len(source or ""),
        "stale": stale,
        "loses_text": bool(lost),
    }
