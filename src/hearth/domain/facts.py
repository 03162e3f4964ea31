"""Facts that know when they were replaced: an entry that restates a held entry
with a new value.

Two rules, both over the words of the two entries (no model):

- **field**: both are a labelled field, ``Label: value`` (``**Location:** Porto``,
  ``所在地：東京``), with the same label and another value. A label that the file
  already holds twice or more names a list, not a field (``Note: ...``), and a
  few words that open list items rather than fields (``LIST_LABELS``) never do;
  nor does a label that names one of several a person may hold at once
  (``MANY_NOUNS``: ``Child: Ana`` then ``Child: Eva`` are two children, the
  second added beside the first), alone or after a possessive (``Ana's child``);
  a qualified one (``Best friend``, ``Native language``) names one and pairs.
- **value**: the two entries read the same but for one short span in the
  middle (at most ``MAX_SPAN`` words on each side: ``Sam lives in Braga`` and
  ``Sam lives in New York``), that span is a value on both sides (a number, a
  name written with a capital, or words of a script without capitals: CJK,
  Thai, Arabic, Hebrew...; there, two characters at least), neither entry
  carries a date (a dated entry tells an event: two events of one shape are
  two facts), no word of ``MANY_NOUNS`` stands in the two words before the
  span (``Sam's daughter is Ana``/``Eva``: two daughters as often as one
  renamed), and the words they share are most of each (``MIN_SHARED``).
  ``Sam likes tea`` and ``Sam likes coffee`` are two likes, not one fact
  changed, and are not paired.

What they miss (docs/formats.md says so too): a change told in other words
(``Sam moved to Lisbon`` beside ``Sam lives in Braga``), a negation
(``Sam is vegan`` and ``Sam is not vegan``: one side has no span), a value in
lower case (``favourite colour is blue``/``green``), a relation of several
that did change (``Pet: Bo`` after Rex: both stay), and a labelled field held
in two files (``app/writes/supersede.py`` reaches other files by the value rule
only). What they may pair wrongly: two facts that differ only by a name or a
title (``Sam studies Portuguese``/``Sam studies German``), a several-valued
label not in ``MANY_NOUNS`` (``Plant:``), German nouns (all capitalised).
The review page shows every replacement before it is made.

Pure: text in, a ``Restatement`` (or None) out.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from hearth.domain.keys import normalized_title_key, sanitize_slug
from hearth.domain.layout import SUPERSEDED_DIR

#: The most words a changed value spans on either side (CJK characters count half).
MAX_SPAN = 3.0
#: The share of each entry's words the two must have in common (value rule).
MIN_SHARED = 0.6
#: The fewest words the two must have in common (value rule).
MIN_SHARED_WORDS = 2
#: Words after which a number names one of many (``fact number 3``, ``room
#: 101``, ``step 2``), not a value of one fact: such a number never pairs.
NUMBERING_WORDS = frozenset(
    [
        "number",
        "no",
        "no.",
        "nr",
        "#",
        "item",
        "step",
        "part",
        "chapter",
        "page",
        "line",
        "room",
        "issue",
        "ticket",
        "version",
        "v",
        "option",
        "case",
        "rule",
        "point",
        "list",
    ]
)
#: Labels that open an item of a list, not a field with one value.
LIST_LABELS = frozenset(
    [
        "note",
        "notes",
        "todo",
        "reminder",
        "idea",
        "tip",
        "example",
        "update",
        "question",
        "fyi",
        "nb",
        "ps",
        "see",
        "also",
        "warning",
        "important",
        "done",
    ]
)
#: What a person holds several of at once: a field labelled so (``Child:``,
#: ``Ana's pet:``), or a value named right after one (``Sam's daughter is
#: Eva``, ``Sam speaks German``), is one more, not the old one changed. When in
#: doubt both stay: a value wrongly kept beside its successor costs the person
#: one removal, one wrongly replaced hides a fact from every prompt.
# fmt: off
MANY_NOUNS = frozenset([
    "child", "children", "kid", "kids", "son", "sons", "daughter", "daughters",
    "grandchild", "grandchildren", "grandson", "granddaughter", "sibling", "siblings",
    "brother", "brothers", "sister", "sisters", "cousin", "cousins", "niece", "nephew",
    "friend", "friends", "pet", "pets", "dog", "dogs", "cat", "cats", "language",
    "languages", "speak", "speaks", "hobby", "hobbies", "allergy", "allergies",
    "colleague", "colleagues", "coworker", "instrument", "instruments", "sport", "sports",
])
# fmt: on
#: A field's label: at most this many words.
MAX_LABEL_WORDS = 4
#: A field's value: at most this many words (a longer one is a sentence, not a value).
MAX_VALUE_WORDS = 12

_TOKEN = re.compile(r"\w+(?:['’.\-]\w+)*", re.UNICODE)
_FIELD = re.compile(r"^(?P<label>[^:：]{1,60}?)\s*[:：]\s*(?P<value>\S.*)$")
_EMPHASIS = re.compile(r"\*\*|__")
_MONTHS_DAYS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "mon",
        "tue",
        "tues",
        "wed",
        "thu",
        "thur",
        "thurs",
        "fri",
        "sat",
        "sun",
        "today",
        "yesterday",
        "tomorrow",
        "weekend",
    ]
)
_DATE = re.compile(r"^\d{1,4}[-/.]\d{1,2}(?:[-/.]\d{1,4})?$|^(?:1[89]|20)\d\d$")


@dataclass(frozen=True)
class Restatement:
    """``new`` restates ``old`` (an entry held at ``line``) with another value."""

    new: str
    old: str
    line: int
    #: ``field`` or ``value`` (see the module's text).
    rule: str
    #: The value ``old`` held and the one ``new`` gives.
    was: str
    now: str
    #: The hot file ``old`` stands in when it is not the proposal's target
    #: (``app/writes/supersede.py``); empty for the target.
    path: str = ""

    def as_dict(self) -> dict[str, object]:
        return {
            "entry": self.new,
            "replaces": self.old,
            "line": self.line,
            "rule": self.rule,
            "was": self.was,
            "now": self.now,
            "path": self.path or None,
        }


def _key(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _uncased(char: str) -> bool:
    return char.isalpha() and not char.isupper() and not char.islower()


def _tokens(text: str) -> list[str]:
    """Words; a run of a script written without spaces (CJK, Thai) one character a word."""
    found: list[str] = []
    for match in _TOKEN.finditer(unicodedata.normalize("NFKC", text)):
        word = match.group(0)
        if any(_uncased(c) for c in word) and not word.isascii() and _unspaced(word):
            found.extend(word)
        else:
            found.append(word)
    return found


def _unspaced(word: str) -> bool:
    """Whether ``word`` is of a script that does not put spaces between words."""
    for char in word:
        name = unicodedata.name(char, "")
        if name.startswith(("CJK", "HIRAGANA", "KATAKANA", "THAI", "LAO", "KHMER", "MYANMAR")):
            return True
    return False


def _weight(words: Sequence[str]) -> float:
    return sum(0.5 if len(w) == 1 and _uncased(w) else 1.0 for w in words)


@functools.lru_cache(maxsize=16384)
def field_of(text: str) -> tuple[str, str] | None:
    """``(label key, value)`` of a labelled field entry, else None."""
    match = _FIELD.match(_EMPHASIS.sub("", text).strip())
    if match is None:
        return None
    label = " ".join(match["label"].strip(" *_-").split())
    value = match["value"].strip(" *_")
    words = label.split()
    if (
        not value
        or not words
        or len(words) > MAX_LABEL_WORDS
        or any(c.isdigit() for c in label)
        or not any(c.isalpha() for c in label)
        or value.startswith("//")
        or len(value.split()) > MAX_VALUE_WORDS
        or _key(label) in LIST_LABELS
    ):
        return None
    return _key(label), value


def names_many(label: str) -> bool:
    """Whether a field's label (``field_of``'s key) names one of several a person
    holds at once: a word of ``MANY_NOUNS`` alone or after a possessive
    (``child``, ``ana's pet``), not a qualified one (``best friend``)."""
    words = label.split()
    owner = words[:-1]
    return words[-1] in MANY_NOUNS and all(w.endswith(("'s", "’s", "s'")) for w in owner)


def _is_value(words: Sequence[str], at: int) -> bool:
    """Whether the span ``words`` (starting at word ``at`` of its entry) is a value:
    each word a number, a capitalised name (not the entry's first word), a word
    of a script without capitals, or a short joining word between such (``de``).
    In a script written without spaces a one-character span is no value: it is
    as often a word of the sentence (``爱`` for ``喜欢``, love for like)."""
    if not words:
        return False
    if len(words) == 1 and len(words[0]) == 1 and _unspaced(words[0]):
        return False
    valued = False
    for i, word in enumerate(words):
        if (
            any(c.isdigit() for c in word)
            or any(_uncased(c) for c in word)
            or (word[0].isupper() and at + i > 0)
        ):
            valued = True
        elif not (0 < i < len(words) - 1 and len(word) <= 3):
            return False
    return valued


def _numbering(before: str, *spans: Sequence[str]) -> bool:
    """Whether the changed spans are numbers that count items (``number 3``
    beside ``number 4``): the word before them is a numbering word and each span
    is one number."""
    return before.rstrip(":") in NUMBERING_WORDS and all(
        len(span) == 1 and span[0].strip("#.,").isdigit() for span in spans
    )


def _owned(word: str) -> str:
    """A word without its possessive ending (``sister's`` -> ``sister``)."""
    return word.removesuffix("'s").removesuffix("’s")


def _dated(words: Sequence[str]) -> bool:
    return any(_key(w).removesuffix("s") in _MONTHS_DAYS or _DATE.match(w) for w in words)


@functools.lru_cache(maxsize=16384)
def _shape(text: str) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """An entry's words, their keys, and whether it carries a date; kept per text,
    since the review board compares each held entry with every proposed one."""
    words = tuple(_tokens(text))
    return words, tuple(_key(w) for w in words), _dated(words)


def _value_change(new: str, old: str) -> tuple[str, str] | None:
    """The one span in which ``old`` and ``new`` differ, when that is all that
    differs and it is a value on both sides; else None."""
    (a, ka, a_dated), (b, kb, b_dated) = _shape(new), _shape(old)
    # Cheap refusals first: the same words, or no shared first or last word (the
    # shared part is a prefix and a suffix). An entry that carries a date (a month,
    # a weekday, a year, ``2026-03-04``) tells an event: two events of one shape
    # are two facts, not one changed.
    if ka == kb or not ka or not kb or (ka[0] != kb[0] and ka[-1] != kb[-1]):
        return None
    if a_dated or b_dated:
        return None
    prefix = 0
    while prefix < min(len(ka), len(kb)) and ka[prefix] == kb[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(ka), len(kb)) - prefix and ka[-1 - suffix] == kb[-1 - suffix]:
        suffix += 1
    span_a, span_b = a[prefix : len(a) - suffix], b[prefix : len(b) - suffix]
    shared = a[:prefix] + a[len(a) - suffix :]
    if not span_a or not span_b:
        return None
    if _weight(span_a) > MAX_SPAN or _weight(span_b) > MAX_SPAN:
        return None
    if _weight(shared) < MIN_SHARED_WORDS:
        return None
    if _weight(shared) < MIN_SHARED * max(_weight(a), _weight(b)):
        return None
    if not (_is_value(span_a, prefix) and _is_value(span_b, prefix)):
        return None
    if prefix and _numbering(ka[prefix - 1], span_a, span_b):
        return None
    if any(_owned(k) in MANY_NOUNS for k in ka[max(0, prefix - 2) : prefix]):
        return None
    joiner = "" if all(_unspaced(w) for w in (*span_a, *span_b)) else " "
    return joiner.join(span_b), joiner.join(span_a)


def restates(new: str, old: str, held: Sequence[str] = ()) -> tuple[str, str, str] | None:
    """``(rule, was, now)`` when ``new`` restates ``old`` with another value;
    ``held``: the file's entries (a label held twice or more is a list)."""
    if _shape(new)[1] == _shape(old)[1]:  # the same words: a duplicate, not a change
        return None
    field, old_field = field_of(new), field_of(old)
    if field is not None and old_field is not None:
        (label, value), (old_label, old_value) = field, old_field
        if label != old_label:
            return None
        if _key(value) == _key(old_value):
            return None
        if names_many(label):
            return None
        labelled = [f for f in (field_of(h) for h in held) if f is not None]
        if sum(1 for f in labelled if f[0] == label) > 1:
            return None
        return "field", old_value, value
    changed = _value_change(new, old)
    if changed is None:
        return None
    return "value", *changed


def restated_in(new: str, held: Sequence[tuple[str, int]]) -> Restatement | None:
    """The held entry (text, line) that ``new`` restates with another value: none
    when ``new`` is held word for word (punctuation aside); of several, the last
    (the newest)."""
    texts = [text for text, _line in held]
    wanted = _shape(new)[1]
    if any(_shape(t)[1] == wanted for t in texts):
        return None
    found = None
    labelled = field_of(new) is not None
    for text, line in held:
        keys = _shape(text)[1]
        # Neither rule can pair these (no label, no shared first or last word):
        # skip them without the full look.
        ends = bool(keys) and bool(wanted) and (keys[0] == wanted[0] or keys[-1] == wanted[-1])
        if not labelled and not ends:
            continue
        pair = restates(new, text, texts)
        if pair is not None:
            found = Restatement(new, text, line, *pair)
    return found


def superseded_record(
    path: str, found: Restatement, held_from: str, held_to: str, proposal: str = ""
) -> str:
    """The text of the record a replaced entry leaves behind (kind ``archive``,
    status ``superseded``): the entry, its file, the dates between which it held
    (``YYYY-MM-DD``) and what replaced it."""
    lines = [
        f"# Superseded in {path}: {_one_line(found.old)}",
        "",
        f"- Entry: {_one_line(found.old)}",
        f"- File: {path}",
        f"- Held: {held_from or 'unknown'} to {held_to}",
        f"- Replaced by: {_one_line(found.new)}",
        f"- Rule: {found.rule} ({_one_line(found.was)} -> {_one_line(found.now)})",
    ]
    if proposal:
        lines.append(f"- Proposal: {proposal}")
    return "\n".join(lines) + "\n"


def superseded_path(day: str, old: str, unique: str) -> str:
    """Where the record of a replaced entry goes: ``<day>-<slug of the entry>--<unique>.md``
    (one file a replacement, so two machines' replacements never touch one file)."""
    slug = sanitize_slug(normalized_title_key(old))[:60].strip("-") or "entry"
    return f"{SUPERSEDED_DIR}/{day}-{slug}--{unique}.md"


def _one_line(text: str) -> str:
    return " ".join(text.split())
