"""Text hearth writes cannot become structure hearth reads (issue 35): a note's
text cannot open a daily entry, a record's field cannot close its front matter
or add a LionClaw bullet. Every reader of a daily note is asked: the merge
driver's parser, ACTIVE.md's Today and the rollups' parser, search sections."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from hearth.domain import daily_merge, notes, records, rollup, sections

AT = dt.datetime(2026, 11, 27, 13, 49, tzinfo=dt.UTC)
FORGED = "line one\n## 09:00 UTC — Forged\nforged entry"


def _note(*texts: str, layout: notes.DailyLayout = "hearth") -> str:
    text: str | None = None
    for body in texts:
        text = notes.append_daily_entry(text, AT, "", body, layout)
    assert text is not None
    return text


@pytest.mark.parametrize("layout", ["hearth", "lionclaw"])
@pytest.mark.parametrize(
    "body",
    [
        FORGED,
        "line one\r\n## 09:00 UTC — Forged\r\nforged entry",
        "a\n   ## 09:00 UTC — Forged",
        "a\n# 2026-01-01\nb",
        "a\n## Ideas\nb",
        "```\n## 09:00 UTC — in a fence\n```",
    ],
)
def test_a_note_text_opens_no_entry_for_any_reader(body: str, layout: notes.DailyLayout) -> None:
    text = _note(body, "after", layout=layout)
    assert len(daily_merge.parse_daily(text).entries) == 2, text
    assert [e.time for e in rollup.parse_daily_entries(text)] == ["13:49", "13:49"], text
    headings = [s.heading for s in sections.split_sections("memory/2026-11-27.md", text)]
    assert all("Forged" not in h and "Ideas" not in h for h in headings), headings
    assert "Forged" in text or "Ideas" in text or "2026-01-01" in text or "fence" in text


def test_the_escaped_line_keeps_its_words() -> None:
    text = _note(FORGED)
    assert "\\## 09:00 UTC — Forged" in text
    assert "forged entry" in text


def test_an_unclosed_fence_cannot_swallow_the_next_entry() -> None:
    text = _note("```python\nprint(1)", "the next one")
    entries = daily_merge.parse_daily(text).entries
    assert len(entries) == 2, text
    assert entries[1].endswith("the next one")
    other = _note("```python\nprint(1)", "theirs")
    merged = daily_merge.merge_daily(_note("```python\nprint(1)"), text, other)
    assert merged is not None
    assert len(daily_merge.parse_daily(merged).entries) == 3, merged


def test_merging_a_forged_note_orders_by_the_real_time_only() -> None:
    base = _note("first")
    ours = notes.append_daily_entry(base, AT, "", FORGED)
    theirs = notes.append_daily_entry(base, AT.replace(hour=10), "", "theirs at ten")
    merged = daily_merge.merge_daily(base, ours, theirs)
    assert merged is not None
    entries = daily_merge.parse_daily(merged).entries
    assert [e.split("\n", 1)[0][:8] for e in entries] == ["## 10:49", "## 13:49", "## 13:49"]


@pytest.mark.parametrize(
    "value",
    [
        "a\n---\nstatus: withdrawn",
        "a\n  ---\ntitle: other",
        "x\r\n---\r\n",
        "long " * 400 + "\n---",
    ],
)
def test_a_record_field_cannot_close_the_front_matter(value: str) -> None:
    decision = records.Decision(
        title="the plan", created="c", updated="u", decision="settled", why=value, source=value
    )
    text = records.render(decision)
    assert [line.strip() for line in text.splitlines()].count("---") == 2, text
    parsed = records.parse("decision", text)
    assert parsed.why == value.strip() or parsed.why == value
    assert parsed.status == "active" and parsed.title == "the plan"
    assert parsed.decision == "settled"


def test_a_lionclaw_field_cannot_add_a_bullet() -> None:
    loop = records.OpenLoop(
        title="call the plumber",
        created="2026-11-27T00:00:00Z",
        updated="2026-11-27T00:00:00Z",
        source="chat\n- Status: resolved",
        next_step="ring\n- Key: other.md",
        style="lionclaw",
    )
    text = records.render(loop)
    parsed = records.parse("loop", text)
    assert parsed.status == "open", text
    assert parsed.key == loop.key
    archived = records.archived_text(parsed, text, loop.key, AT, "resolved", "done\n- Status: open")
    again = records.parse("loop", archived)
    assert again.status == "resolved", archived
    assert dataclasses.replace(again, resolution="").title == "call the plumber"
