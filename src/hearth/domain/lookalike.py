"""Names that read as another's: ``soul.md`` or ``SОUL.md`` (a Cyrillic О)
beside SOUL.md, ``users/sаm.md`` beside ``users/sam.md``.

A file that a person, or an agent reading a listing, takes for SOUL.md while it
is another file, splits the persona in two with no one seeing it. ``skeleton``
folds a name the way a reader's eye does: compatibility forms (full-width
letters, ligatures) to their plain letters, case away, and the Cyrillic and
Greek letters (and the digits) that are drawn like Latin ones to those Latin
letters. Two names with the same skeleton look the same; a home refuses a second
one next to a persona file, and a write refuses to create a file or folder
whose name reads as one already beside it (``reads_as``). The map is the small
part of Unicode's confusables that matters for names of letters A-Z; it is not
the whole of UTS #39, which a home's file names do not need.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import unicodedata
from collections.abc import Callable, Iterable

#: Letters drawn like a Latin letter (lower case, after ``casefold``).
_LIKE_LATIN = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
    "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i",
    "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y", "ɡ": "g",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "μ": "u", "ζ": "z", "σ": "o", "ϲ": "c",
    # digits and marks drawn like letters
    "0": "o", "1": "l", "|": "l", "ı": "i",
}  # fmt: skip
#: Capitals drawn like a Latin capital whose small letter is drawn otherwise
#: (Greek Μ is an M, its μ a u), so they are read before case goes: Greek,
#: Cyrillic, Armenian and Cherokee capitals, and Armenian small letters.
_LIKE_LATIN_CAPITAL = {
    # Greek
    "Α": "a", "Β": "b", "Ε": "e", "Ζ": "z", "Η": "h", "Ι": "i", "Κ": "k", "Μ": "m",
    "Ν": "n", "Ο": "o", "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x",
    # Cyrillic
    "А": "a", "В": "b", "Е": "e", "К": "k", "М": "m", "Н": "h", "О": "o", "Р": "p",
    "С": "c", "Т": "t", "У": "y", "Х": "x", "Ѕ": "s", "І": "i", "Ј": "j", "Ү": "y",
    # Armenian
    "Ս": "u", "Օ": "o", "օ": "o", "ս": "u", "հ": "h", "ո": "n",
    # Cherokee
    "Ꭺ": "a", "Ᏼ": "b", "Ꮯ": "c", "Ꭰ": "d", "Ꭼ": "e", "Ꮐ": "g", "Ꮋ": "h", "Ꭵ": "i",
    "Ꭻ": "j", "Ꮶ": "k", "Ꮮ": "l", "Ꮇ": "m", "Ꮲ": "p", "Ꮪ": "s", "Ꭲ": "t", "Ꮩ": "v",
    "Ꮃ": "w", "Ꮓ": "z",
}  # fmt: skip
_CAPITALS = str.maketrans(_LIKE_LATIN_CAPITAL)
_TABLE = str.maketrans(_LIKE_LATIN)
#: The part of the tables an ASCII name can meet (most names: a fast path).
_ASCII_TABLE = str.maketrans({k: v for k, v in _LIKE_LATIN.items() if k.isascii()})
#: The digits ``skeleton`` reads as letters, back as digits (a date's name).
_DIGITS_BACK = str.maketrans({"o": "0", "l": "1"})


@functools.lru_cache(maxsize=1 << 14)
def skeleton(name: str) -> str:
    """What ``name`` looks like: compatibility forms folded, case away, look-alike
    letters as the Latin letters they are drawn like, invisible characters dropped,
    and the spaces and dots a name ends with (spaces at its start too): unseen, or
    hardly, and Windows drops the trailing ones, so ``continuity /`` and
    ``continuity./`` are ``continuity/`` on a Windows clone of the home."""
    if name.isascii():  # NFKC, the capitals and the invisible characters leave it be
        return _ends(name.lower().translate(_ASCII_TABLE))
    plain = unicodedata.normalize("NFKC", name).translate(_CAPITALS)
    folded = plain.casefold().translate(_TABLE)
    return _ends("".join(c for c in folded if unicodedata.category(c) != "Cf"))


def _ends(name: str) -> str:
    """``name`` without the spaces it starts or ends with and the dots it ends with
    (itself when nothing else is left)."""
    return name.strip().rstrip(". \t").strip() or name


#: A daily note's name as ``skeleton`` leaves it (0 as o, 1 as l), read back.
_DAILY_NAME = re.compile(r"(\d{4})-(\d{2})-(\d{2})\.md")


def daily_name_read(name: str) -> str | None:
    """The daily note's name (``2026-12-09.md``) that ``name`` reads as without
    being it (``2026-12-O9.md``, a letter O; ``２０２６-12-09.md``), else None."""
    digits = skeleton(name).translate(_DIGITS_BACK)
    match = _DAILY_NAME.fullmatch(digits)
    if match is None or digits == name:
        return None
    try:
        dt.date(*(int(part) for part in match.groups()))
    except ValueError:
        return None
    return digits


def looks_like(name: str, names: tuple[str, ...]) -> str | None:
    """The one of ``names`` that ``name`` reads as without being it, or None."""
    if name in names:
        return None
    mark = skeleton(name)
    return next((n for n in names if skeleton(n) == mark), None)


def reads_as(path: str, names_in: Callable[[str], Iterable[str]]) -> str | None:
    """The existing path that ``path`` (``/``-separated) reads as without being it,
    or None. ``names_in(folder)`` lists what a folder holds (``""``: the top), files
    and folders alike. Each name of ``path`` is looked for in its folder; the
    first that is not there is compared with what is, and a look-alike found
    there names the path as it already exists (``Users/sam.md`` reads as
    ``users/sam.md``). Names below a new folder are new too, so the walk stops."""
    parts = path.split("/")
    for at, part in enumerate(parts):
        folder = "/".join(parts[:at])
        names = tuple(names_in(folder))
        if part in names:
            continue
        twin = looks_like(part, names)
        if twin is None:
            return None
        return "/".join([*parts[:at], twin, *parts[at + 1 :]])
    return None


def alike_groups(names: Iterable[str]) -> list[tuple[str, ...]]:
    """The names of one folder that read as one another, each group sorted (a
    home may hold them: pulled, or made by hand, before a write could refuse)."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(skeleton(name), []).append(name)
    return [tuple(sorted(group)) for group in groups.values() if len(group) > 1]
