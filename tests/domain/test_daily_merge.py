"""The entry-by-entry merge of daily notes (pure)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hearth.domain.daily_merge import merge_daily, parse_daily, render_daily

BASE = "# 2026-11-22\n\n## 09:00 UTC — note\n\nWoke up.\n"


def entry(time: str, text: str, title: str = "note") -> str:
    return f"\n## {time} UTC — {title}\n\n{text}\n"


def test_same_minute_entries_on_both_sides_keep_their_own_headings() -> None:
    ours = BASE + entry("11:32", "Bought bread.")
    theirs = BASE + entry("11:32", "Called Sam.")
    merged = merge_daily(BASE, ours, theirs)
    assert merged is not None
    assert merged.count("## 11:32 UTC — note") == 2
    note = parse_daily(merged)
    assert [e.split("\n")[-1] for e in note.entries] == ["Woke up.", "Bought bread.", "Called Sam."]


def test_entries_are_ordered_by_time_and_identical_ones_kept_once() -> None:
    ours = BASE + entry("12:00", "Lunch.") + entry("15:00", "Tea.")
    theirs = BASE + entry("10:00", "Run.") + entry("12:00", "Lunch.")
    merged = merge_daily(BASE, ours, theirs)
    assert merged == BASE + entry("10:00", "Run.") + entry("12:00", "Lunch.") + entry(
        "15:00", "Tea."
    )
    assert "<<<<<<<" not in merged


def test_an_entry_removed_or_edited_on_one_side_stays_removed_or_edited() -> None:
    base = BASE + entry("10:00", "Typo hre.")
    ours = BASE + entry("10:00", "Typo here.")  # edited here
    theirs = base + entry("11:00", "New there.")
    assert merge_daily(base, ours, theirs) == ours + entry("11:00", "New there.")
    removed = merge_daily(base, BASE, theirs)
    assert removed == BASE + entry("11:00", "New there.")


def test_both_sides_editing_one_entry_keep_both_versions() -> None:
    base = BASE + entry("10:00", "Draft.")
    merged = merge_daily(base, BASE + entry("10:00", "Ours."), BASE + entry("10:00", "Theirs."))
    assert merged is not None and "Ours." in merged and "Theirs." in merged
    assert "Draft." not in merged


def test_headings_inside_fences_and_non_time_headings_stay_in_their_entry() -> None:
    body = "Code:\n\n```\n## 10:30 not an entry\n```\n\n## Later\n\nmore"
    ours = BASE + entry("10:00", body)
    theirs = BASE + entry("11:00", "Other.")
    merged = merge_daily(BASE, ours, theirs)
    assert merged == ours + entry("11:00", "Other.")
    assert len(parse_daily(ours).entries) == 2


def test_a_lionclaw_daily_note_merges_too() -> None:
    base = "# 2026-11-22\n\n## 09:00 UTC - Morning\n\nCoffee.\n"
    ours = base + "\n## 10:00 UTC - Work\n\nShipped.\n"
    theirs = base + "\n## 09:30 UTC - Walk\n\nPark.\n"
    assert merge_daily(base, ours, theirs) == (
        base + "\n## 09:30 UTC - Walk\n\nPark.\n" + "\n## 10:00 UTC - Work\n\nShipped.\n"
    )


def test_preamble_changed_on_both_sides_differently_is_a_conflict() -> None:
    ours = BASE.replace("# 2026-11-22", "# 2026-11-22 (home)")
    theirs = BASE.replace("# 2026-11-22", "# 2026-11-22 (work)")
    assert merge_daily(BASE, ours, theirs) is None
    only_theirs = merge_daily(BASE, BASE + entry("10:00", "x"), theirs)
    assert only_theirs is not None and only_theirs.startswith("# 2026-11-22 (work)")


_TEXTS = st.text(alphabet="abc xyz\n#", max_size=30).map(lambda t: t.strip() or "x")
_ENTRIES = st.lists(st.tuples(st.integers(0, 23), st.integers(0, 59), _TEXTS), max_size=6).map(
    lambda items: "".join(entry(f"{h:02d}:{m:02d}", t) for h, m, t in items)
)


@given(base=_ENTRIES, ours_added=_ENTRIES, theirs_added=_ENTRIES)
def test_appends_on_both_sides_keep_every_entry(
    base: str, ours_added: str, theirs_added: str
) -> None:
    head = "# 2026-11-22\n" + base
    ours, theirs = head + ours_added, head + theirs_added
    merged = merge_daily(head, ours, theirs)
    assert merged is not None
    got = sorted(parse_daily(merged).entries)
    expected = (
        parse_daily(ours).entries
        + parse_daily(theirs + "").entries[len(parse_daily(head).entries) :]
    )
    # Every entry of either side is there, whole (theirs' additions that ours
    # also added appear once per side that did not already have them).
    for item in set(expected):
        assert got.count(item) >= 1
    if head not in (ours, theirs) and ours != theirs:
        # An actual merge orders entries by time (a side taken whole stays as it was).
        minutes = [e[3:8] for e in parse_daily(merged).entries]
        assert minutes == sorted(minutes)
    # Merging is symmetric in content and a no-op on itself.
    other = merge_daily(head, theirs, ours)
    assert other is not None and sorted(parse_daily(other).entries) == got
    assert merge_daily(merged, merged, merged) == merged
    assert render_daily(parse_daily(merged)) == merged
