"""What review does with an entry the home already holds in other words.

Review judges a proposed entry "known" when a held entry is nearly the same
and names every name and number it names (``domain/likeness.py``). Leaving
such an entry out of a merge used to lose the words it added ("Caroline is a
counselor who helps trans youth" beside "Caroline is a counselor": "helps
trans youth" was kept nowhere). So a known entry is one of two things:

- a **restatement**: a held entry holds every content word of it (the
  search analyzer's terms less English function words: ``cats`` is ``cat``,
  ``the`` is nothing, and ``allergy`` is ``allergic``: ``says_all``). Leaving
  it out loses nothing it says, and a card of nothing else is rejected naming
  that entry;
- a **fold**: the held entry it is like, in the proposal's target, lacks some
  of its tokens. Merging writes one entry in the held one's place holding
  every token of both (``fold_into``): the proposed entry itself when it
  holds every token of the held one (it says all that and more), else the
  held entry followed by ``(also: ...)`` with the tokens it lacks, in their
  order (an ``(also: ...)`` the held entry already ends with grows).

A known entry like held entries only outside its target (USER.md or
MEMORY.md beside a person note) and adding tokens is neither: it is merged as
a new entry, so its words are kept where it was proposed to go.

The same entry appears once in a file: a fold whose text another entry of the
file already reads is no fold (merged as new); nor is one longer than an entry
may be. Pure: texts in, texts out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from hearth.domain.consolidation import is_pointer, loses_words, tokens
from hearth.domain.entries import MAX_ENTRY_CHARS

#: A held entry that an earlier fold grew: its text, then ``(also: ...)``.
_ALSO = re.compile(r"^(?P<base>.*\S) \(also: (?P<extra>[^()]*)\)$", re.DOTALL)


def fold_into(held: str, entry: str) -> str:
    """One entry holding every token of ``held`` and of ``entry`` (see the module's text)."""
    if not loses_words(held, [entry]):
        return held
    if not loses_words(entry, [held]):
        return entry
    grown = _ALSO.match(held)
    base, extra = (grown["base"], grown["extra"].split()) if grown else (held, [])
    seen = {t.casefold() for t in (*tokens(held), *extra)}
    for token in tokens(entry):
        if token.casefold() not in seen:
            seen.add(token.casefold())
            extra.append(token)
    folded = f"{base} (also: {' '.join(extra)})"
    return folded if not loses_words(folded, [held, entry]) else f"{held} (also: {entry})"


#: A term this long or longer is one word with a term it starts, or that
#: starts it, when they differ by at most ``AFFIX`` letters (see ``says_all``).
STEM = 5
AFFIX = 3


def says_all(held: frozenset[str], said: frozenset[str]) -> bool:
    """Whether the terms ``held`` hold every term ``said``: the same, or one
    word in another form the stemmer leaves apart (``allergic`` and ``allergy``,
    ``counselor`` and ``counsel``, ``adoption`` and ``adopt``), but never a
    longer word a short one only starts (``grandmother`` is not ``grand``)."""
    return all(t in held or any(_forms(t, h) for h in held) for t in said)


def _forms(a: str, b: str) -> bool:
    short, long = sorted((a, b), key=len)
    return len(short) >= STEM and len(long) - len(short) <= AFFIX and long.startswith(short)


@dataclass(frozen=True)
class Fold:
    """A proposed entry folded into the held entry ``into`` of ``path`` at
    ``line``: after the merge that line reads ``becomes``."""

    entry: str
    into: str
    path: str
    line: int
    becomes: str

    def as_dict(self) -> dict[str, object]:
        return {
            "entry": self.entry,
            "into": self.into,
            "path": self.path,
            "line": self.line,
            "becomes": self.becomes,
        }


@dataclass(frozen=True)
class HeldLike:
    """A held entry a proposed one is like (``EntryMatch`` of the home)."""

    text: str
    path: str
    line: int


@dataclass(frozen=True)
class Sorted:
    """A proposal's known entries sorted: ``restated`` (entry -> the held entry
    that holds all of it, and where), ``folds``, and ``new`` (known entries that
    are neither: merged as new entries)."""

    restated: dict[str, HeldLike]
    folds: tuple[Fold, ...]
    new: tuple[str, ...]


def sort_known(
    known: Iterable[tuple[str, Sequence[HeldLike]]],
    target: str,
    held_texts: Iterable[str],
    terms_of: Callable[[str], frozenset[str]],
) -> Sorted:
    """``known``: each known entry with the held entries like it (closest first);
    ``target``: the proposal's target; ``held_texts``: the target's entries;
    ``terms_of``: an entry's content terms (``EntryLikeness.terms``). Several
    entries folding into one held entry fold in turn, each into what the one
    before made of it."""
    current = {t: t for t in held_texts}  # held text -> what folds made of it so far
    taken = set(current)
    restated: dict[str, HeldLike] = {}
    folds: list[Fold] = []
    new: list[str] = []
    for entry, found in known:
        # A pointer line a consolidation left holds no fact (its note does), and
        # folded into, it would point nowhere: it neither says nor takes an entry.
        like = [h for h in found if not is_pointer(h.text)]
        whole = next(
            (h for h in like if says_all(terms_of(current.get(h.text, h.text)), terms_of(entry))),
            None,
        )
        if whole is not None:
            restated[entry] = whole
            continue
        into = next((h for h in like if h.path == target and h.text in current), None)
        was = current[into.text] if into is not None else ""
        becomes = fold_into(was, entry) if into is not None else ""
        if into is None or becomes in taken - {was} or len(becomes) > MAX_ENTRY_CHARS:
            # Like nothing in the target, another entry reads so, or too long for
            # one entry: added as its own entry, every word kept all the same.
            new.append(entry)
            continue
        taken.discard(was)
        taken.add(becomes)
        current[into.text] = becomes
        folds.append(Fold(entry, into.text, into.path, into.line, becomes))
    return Sorted(restated, tuple(folds), tuple(new))


def folded(folds: Iterable[tuple[str, str]]) -> dict[str, str]:
    """By held entry: what ``folds`` (proposed entry, held entry) make of it,
    each folded in turn into what the one before made."""
    out: dict[str, str] = {}
    for entry, held in folds:
        out[held] = fold_into(out.get(held, held), entry)
    return out
