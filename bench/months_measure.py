"""What ``bench/months.py`` counts in a home after its months: coverage of a
question by the text a runtime was handed, duplicates, contradicting versions
of one fact, and the observations' fates.

**Coverage.** A question is covered at a budget when the text handed over
holds its evidence: one of its evidence turns (the first 60 characters of the
turn's text, spaces folded, as ``bench/recall_silence.py`` checks a recalled
passage), or an entry made from that turn's observation (the entry's whole
text). An entry "made from" an observation is the observation's own text, or,
when the memory files no longer hold that text word for word and its proposal
is not left pending, any entry of theirs whose words are nearly the same
(review's measure, words only, at review's default threshold): what a
consolidation or a replacement wrote in its place, or what review judged it
known as, counts for its turns.

**Contradicting versions of one fact**: two entries of the memory files that
are either the same labelled field with two values (``Location: Porto`` and
``Location: Braga``, ``index/likeness.labelled_value``), or the same sentence
with one run of at most two words replaced, where the words replaced on both
sides hold a value (a number or a capitalised word past the first):
``Sam lives in Braga`` and ``Sam lives in Lisbon``, ``married for 5 years`` and
``married for 6 years``. It misses a change said in other words (``Sam moved
to Lisbon`` against ``Sam lives in Braga``), values in lower case (``vegetarian``
against ``vegan``), and counts two true facts of the same shape (``went to
Paris in May`` and ``went to Rome in May``) as contradicting.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from hearth.domain import entries as entry_lines
from hearth.domain.likeness import DEFAULT_THRESHOLD
from hearth.index.likeness import EntryLikeness, labelled_value

#: Characters of a turn's text that must be in what was handed over.
TURN_PREFIX = 60
_WORD = re.compile(r"[\w'’-]+")
_likeness = EntryLikeness()


def folded(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Evidence:
    """What counts as holding each turn: its text's head, and the entries made from it."""

    turns: dict[str, str] = field(default_factory=dict)
    entries: dict[str, set[str]] = field(default_factory=dict)

    def add_turn(self, dia_id: str, text: str) -> None:
        self.turns[dia_id] = folded(text)[:TURN_PREFIX]

    def add_entry(self, dia_id: str, text: str) -> None:
        self.entries.setdefault(dia_id, set()).add(folded(text))

    def holds(self, handed: str, evidence: Iterable[str]) -> bool:
        flat = folded(handed)
        for dia_id in evidence:
            turn = self.turns.get(dia_id)
            if turn and turn in flat:
                return True
            if any(e in flat for e in self.entries.get(dia_id, ())):
                return True
        return False


def memory_entries(texts: Mapping[str, str]) -> dict[str, list[str]]:
    """Each file's entries (the ``- `` lines hearth reads as entries)."""
    return {path: [e.text for e in entry_lines.list_entries(text)] for path, text in texts.items()}


def close_pairs(rows: Sequence[str], cols: Sequence[str]) -> list[tuple[int, int, float]]:
    """(row, col, score) of every pair nearly the same by words (review's measure)."""
    if not rows or not cols:
        return []
    import numpy as np

    scores = _likeness.scores(list(rows), list(cols))
    found = np.argwhere(scores >= DEFAULT_THRESHOLD)
    return [(int(i), int(j), float(scores[i, j])) for i, j in found]


def derived_entries(
    facts: Sequence[tuple[str, tuple[str, ...]]], held: Iterable[str], evidence: Evidence
) -> int:
    """For each observation whose own text the memory files no longer hold word
    for word (folded, replaced, or rejected as known), the entries nearly the
    same as it stand in its place: credited to its turns. Returns how many
    (observation, entry) pairs were credited."""
    kept = sorted({folded(h) for h in held})
    at = set(kept)
    gone = [(folded(t), ids) for t, ids in facts if folded(t) not in at]
    credited = 0
    for i, j, _score in close_pairs([t for t, _ids in gone], kept):
        for dia_id in gone[i][1]:
            evidence.add_entry(dia_id, kept[j])
        credited += 1
    return credited


@dataclass
class Repeats:
    exact: int = 0
    near: int = 0
    contradicting: list[tuple[str, str]] = field(default_factory=list)


def repeats(files: Mapping[str, list[str]]) -> Repeats:
    """Exact duplicates (an entry held again, in the same file or another one),
    near-duplicate pairs (not exact) and contradicting pairs over ``files``."""
    every = [e for found in files.values() for e in found]
    found = Repeats()
    seen: set[str] = set()
    for entry in every:
        key = folded(entry)
        if key in seen:
            found.exact += 1
        seen.add(key)
    distinct = sorted(seen)
    found.near = sum(1 for i, j, _s in close_pairs(distinct, distinct) if i < j)
    found.contradicting = contradicting(distinct)
    return found


def contradicting(entries: Sequence[str]) -> list[tuple[str, str]]:
    """Pairs that look like two versions of one fact (see the module's text)."""
    pairs: list[tuple[str, str]] = []
    fields: dict[str, list[tuple[str, str]]] = {}
    for entry in entries:
        value = labelled_value(entry)
        if value is not None:
            label = entry[: len(entry) - len(value)].strip(" *:").casefold()
            fields.setdefault(label, []).append((value.casefold(), entry))
    for versions in fields.values():
        for i, (value, entry) in enumerate(versions):
            pairs += [(entry, other) for v, other in versions[i + 1 :] if v != value]
    words = [_WORD.findall(e) for e in entries]
    sets = [frozenset(w.casefold() for w in found) for found in words]
    by_head: dict[str, list[int]] = {}
    for i, w in enumerate(words):
        if len(w) >= 4:
            by_head.setdefault(w[0].casefold(), []).append(i)
    for members in by_head.values():
        for a_at, a in enumerate(members):
            for b in members[a_at + 1 :]:
                near = abs(len(words[a]) - len(words[b])) <= 1 and len(sets[a] ^ sets[b]) <= 4
                if near and _one_value_apart(words[a], words[b]):
                    pairs.append((entries[a], entries[b]))
    return pairs


def _one_value_apart(a: list[str], b: list[str]) -> bool:
    ops = difflib.SequenceMatcher(None, [w.casefold() for w in a], [w.casefold() for w in b])
    changed = [op for op in ops.get_opcodes() if op[0] != "equal"]
    if len(changed) != 1 or changed[0][0] != "replace":
        return False
    _tag, i1, i2, j1, j2 = changed[0]
    if i2 - i1 > 2 or j2 - j1 > 2 or len(a) - (i2 - i1) < 3:
        return False
    return _holds_value(a, i1, i2) and _holds_value(b, j1, j2)


def _holds_value(words: list[str], start: int, end: int) -> bool:
    return any(
        any(c.isdigit() for c in w) or (i > 0 and w[:1].isupper())
        for i, w in enumerate(words[start:end], start)
    )
