"""Dates a question names: ``in March``, ``on 3 May 2023``, ``yesterday``,
``last Tuesday`` (``named_dates``: the days or months they stand for, read
against today), and the question without them (``without_dates``: what
its words are judged on).

Pure string work: no Tantivy here.
"""

from __future__ import annotations

import datetime as dt
import re

MONTHS = {
    name: n
    for n, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_DATE_FORMS = (
    # 2023-05-03, 2023/05/03
    (re.compile(r"\b" + _YEAR + r"[-/](\d{1,2})[-/](\d{1,2})\b"), "ymd"),
    # May 3, 2023 / May 3rd 2023
    (re.compile(r"\b" + _MONTH + r"\s+" + _DAY + r",?\s*" + _YEAR + r"\b", re.I), "mdy"),
    # 3 May 2023 / 3rd of May, 2023
    (re.compile(r"\b" + _DAY + r"\s+(?:of\s+)?" + _MONTH + r",?\s*" + _YEAR + r"\b", re.I), "dmy"),
    # May 2023 / May, 2023
    (re.compile(r"\b" + _MONTH + r",?\s+" + _YEAR + r"\b", re.I), "my"),
)


def without_dates(text: str) -> str:
    """``text`` with every absolute date it names replaced by a space."""
    for pattern, _form in _DATE_FORMS:
        text = pattern.sub(" ", text)
    return text


_NUMBERS = {
    w: n
    for n, w in enumerate(
        ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"], start=1
    )
}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: Capitalized words that are not names: the days of the week and the words of
#: relative dates (a question starting "Yesterday" or "Last week").
NOT_NAMES = frozenset((*_WEEKDAYS, "today", "yesterday", "tomorrow", "last", "this", "next"))
#: Days and months named relative to when the question is asked (``named_dates``
#: with a ``today``), longest first so "the day before yesterday" is not "yesterday".
_RELATIVE_FORMS = (
    (re.compile(r"\bthe\s+day\s+before\s+yesterday\b", re.I), "before-yesterday"),
    (re.compile(r"\b(\d{1,2}|" + "|".join(_NUMBERS) + r")\s+days?\s+ago\b", re.I), "days-ago"),
    (re.compile(r"\blast\s+(" + "|".join(_WEEKDAYS) + r")\b", re.I), "last-weekday"),
    (re.compile(r"\b(last|this)\s+week\b", re.I), "week"),
    (re.compile(r"\b(last|this)\s+month\b", re.I), "month"),
    (re.compile(r"\byesterday\b", re.I), "yesterday"),
    (re.compile(r"\btoday\b", re.I), "today"),
)


def named_dates(text: str, today: dt.date | None = None) -> list[str]:
    """The days (``YYYY-MM-DD``) and months (``YYYY-MM``) ``text`` names, in
    the order it names them.

    Absolute dates always; with ``today`` (the day the question is asked, in
    UTC like the daily notes' dates) also ``today``, ``yesterday``, ``the day
    before yesterday``, ``N days ago``, ``last Tuesday``, ``this week`` (its
    days so far, from Monday), ``last week`` (the seven days before today),
    ``this month`` and ``last month``.
    """
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []

    def add(match: re.Match[str], values: list[str]) -> None:
        if any(match.start() < end and start < match.end() for start, end in taken):
            return
        if values:
            taken.append(match.span())
            found.extend((match.start(), value) for value in values)

    for pattern, form in _DATE_FORMS:
        for match in pattern.finditer(text):
            value = _date_value(form, match.groups())
            add(match, [value] if value is not None else [])
    if today is not None:
        for pattern, form in _RELATIVE_FORMS:
            for match in pattern.finditer(text):
                add(match, _relative_value(form, match.groups(), today))
    return [value for _start, value in sorted(found, key=lambda item: item[0])]


def _relative_value(form: str, groups: tuple[str, ...], today: dt.date) -> list[str]:
    try:
        return _relative_days(form, groups, today)
    except OverflowError:  # before the year 1: no note is that old
        return []


def _relative_days(form: str, groups: tuple[str, ...], today: dt.date) -> list[str]:
    def days(*back: int) -> list[str]:
        return [(today - dt.timedelta(days=n)).isoformat() for n in back]

    if form == "today":
        return days(0)
    if form == "yesterday":
        return days(1)
    if form == "before-yesterday":
        return days(2)
    if form == "days-ago":
        count = _NUMBERS.get(groups[0].lower()) or int(groups[0])
        return days(count)
    if form == "last-weekday":
        back = (today.weekday() - _WEEKDAYS.index(groups[0].lower())) % 7 or 7
        return days(back)
    if form == "week":
        if groups[0].lower() == "this":
            return days(*range(today.weekday() + 1))
        return days(*range(1, 8))
    first = today.replace(day=1)
    month = first if groups[0].lower() == "this" else (first - dt.timedelta(days=1))
    return [f"{month.year:04d}-{month.month:02d}"]


def _date_value(form: str, groups: tuple[str, ...]) -> str | None:
    if form == "ymd":
        year, month, day = int(groups[0]), int(groups[1]), int(groups[2])
    elif form == "mdy":
        month, day, year = MONTHS[groups[0].lower()], int(groups[1]), int(groups[2])
    elif form == "dmy":
        day, month, year = int(groups[0]), MONTHS[groups[1].lower()], int(groups[2])
    else:
        return f"{int(groups[1]):04d}-{MONTHS[groups[0].lower()]:02d}"
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return f"{year:04d}-{month:02d}-{day:02d}"
