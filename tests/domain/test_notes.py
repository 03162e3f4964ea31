from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hearth.domain.notes import add_entries, append_daily_entry
from hearth.errors import InvalidInput

MOMENT = dt.datetime(2026, 11, 22, 9, 5, tzinfo=dt.UTC)


def test_new_daily_note_has_date_heading() -> None:
    text = append_daily_entry(None, MOMENT, "Standup", "Talked about the release.")
    assert text == "# 2026-11-22\n\n## 09:05 UTC — Standup\n\nTalked about the release.\n"


def test_append_keeps_existing_text_and_separates_entries() -> None:
    first = append_daily_entry(None, MOMENT, "", "one")
    second = append_daily_entry(first.rstrip("\n"), MOMENT + dt.timedelta(hours=1), "", "two")
    assert second.startswith(first.rstrip("\n"))
    assert second.endswith("\n\n## 10:05 UTC — note\n\ntwo\n")


def test_local_time_is_written_as_utc() -> None:
    local = MOMENT.astimezone(dt.timezone(dt.timedelta(hours=-5)))
    assert "## 09:05 UTC" in append_daily_entry(None, local, "x", "y")


def test_empty_text_is_refused() -> None:
    with pytest.raises(InvalidInput):
        append_daily_entry(None, MOMENT, "t", "  \n ")


MEMORY = "# Memory\n\nIntro.\n\n## Entries\n\n- old one\n\n## Later\n\ntext\n"


def test_entries_go_at_the_end_of_the_section_and_skip_duplicates() -> None:
    new, added = add_entries(MEMORY, ["old one", "new one", "new one"])
    assert added == ["new one"]
    assert new == "# Memory\n\nIntro.\n\n## Entries\n\n- old one\n- new one\n\n## Later\n\ntext\n"


def test_section_is_created_when_missing() -> None:
    new, added = add_entries("# Topic\n\nSome prose.\n", ["a"])
    assert added == ["a"]
    assert new == "# Topic\n\nSome prose.\n\n## Entries\n\n- a\n"


def test_nothing_new_leaves_text_untouched() -> None:
    assert add_entries(MEMORY, ["old one"]) == (MEMORY, [])


@given(st.lists(st.text(alphabet="abc xyz", min_size=1, max_size=12).map(str.strip).filter(bool)))
def test_adding_twice_is_idempotent(items: list[str]) -> None:
    once, _ = add_entries(MEMORY, items)
    twice, added = add_entries(once, items)
    assert twice == once
    assert added == []
    for item in items:
        assert f"- {item}" in once.splitlines()
