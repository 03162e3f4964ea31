"""The question a search asks: its text, its filters, and what is read from
it once for every stage (the dates and the names it says)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from hearth.domain.searching import MAX_LIMIT, MAX_QUERY_CHARS
from hearth.index.dates import named_dates
from hearth.index.folding import fold
from hearth.index.terms import names_in


@dataclass(frozen=True)
class Question:
    """What a search is asked, read once for every stage."""

    text: str
    kind: str | None = None
    path_prefix: str | None = None
    limit: int = 10
    #: Days (``YYYY-MM-DD``) and months (``YYYY-MM``) the text names.
    dates: tuple[str, ...] = ()
    #: Names the text says (lower-cased capitalized words, ``terms.names_in``).
    names: tuple[str, ...] = ()


def question(
    text: str,
    kind: str | None = None,
    path_prefix: str | None = None,
    limit: int = 10,
    today: dt.date | None = None,
) -> Question:
    """The question of ``text``; ``today`` (the clock's, UTC) resolves the
    relative dates it names (without it, absolute dates only). The text is
    folded as the index's terms are (``folding.py``: ``αθηνα`` finds
    ``Αθήνα``); most text is left as it is."""
    text = fold(text)
    read = text[:MAX_QUERY_CHARS]  # what the keyword side searches, too
    dates = tuple(dict.fromkeys(named_dates(read, today)))
    limit = max(1, min(limit, MAX_LIMIT))
    return Question(text, kind, path_prefix, limit, dates, tuple(names_in(read)))
