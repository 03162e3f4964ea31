"""Pure parts of the index and the generated pages: sections, rollups, ACTIVE.md."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hearth.domain import active, rollup
from hearth.domain.sections import MAX_SECTION_CHARS, split_sections
from hearth.errors import InvalidInput

markdown_line = st.one_of(
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
        max_size=60,
    ),
    st.sampled_from(["# Title", "## Sub", "### Deep ###", "```", "~~~", "---", "", "title: x"]),
)


@given(st.lists(markdown_line, max_size=60))
def test_sections_stay_inside_the_file_in_order(lines: list[str]) -> None:
    text = "\n".join(lines)
    sections = split_sections("memory/topics/x.md", text)
    assert sections
    count = max(len(text.split("\n")), 1)
    previous_end = 0
    for section in sections:
        assert 1 <= section.start_line <= section.end_line <= count
        assert section.start_line > previous_end or section.start_line == section.end_line
        previous_end = section.end_line


@given(st.lists(markdown_line, max_size=60))
def test_every_body_line_is_within_its_range(lines: list[str]) -> None:
    text = "\n".join(lines)
    all_lines = text.split("\n")
    for section in split_sections("a.md", text):
        window = all_lines[section.start_line - 1 : section.end_line]
        for body_line in section.body.split("\n"):
            if body_line.strip():
                assert body_line in window


def test_title_from_front_matter_then_heading_then_name() -> None:
    assert split_sections("a.md", "---\ntitle: Front\n---\n# Head\n")[0].title == "Front"
    assert split_sections("a.md", "intro\n\n# Head\n\nbody\n")[0].title == "Head"
    assert split_sections("notes/plain.md", "just text\n")[0].title == "plain"
    empty = split_sections("notes/empty.md", "")
    assert len(empty) == 1 and empty[0].title == "empty"


def test_long_sections_are_cut_at_blank_lines() -> None:
    paragraph = ("word " * 60).strip()
    text = "# Long\n\n" + "\n\n".join([paragraph] * 40) + "\n"
    sections = split_sections("long.md", text)
    assert len(sections) > 1
    assert all(len(s.body) <= MAX_SECTION_CHARS + len(paragraph) for s in sections)
    assert sections[0].start_line == 1
    for before, after in itertools.pairwise(sections):
        assert after.start_line > before.end_line


DAILY = (
    "# 2026-11-16\n\n## 09:05 UTC — Garden\n\nWatered the beans.\nSecond line.\n\n"
    "## Hand-written heading\n\nSomething by hand.\n"
)


def test_rollup_is_deterministic_and_lists_every_entry() -> None:
    notes = [
        (dt.date(2026, 11, 16), "memory/2026-11-16.md", DAILY),
        (dt.date(2026, 11, 18), "memory/2026-11-18.md", "# 2026-11-18\n"),
    ]
    first = rollup.render_rollup("2026-W47", notes)
    assert first == rollup.render_rollup("2026-W47", list(reversed(notes)))
    assert first.startswith("# Week 2026-W47 (2026-11-16 to 2026-11-22)")
    assert "- 09:05 Garden: Watered the beans." in first
    assert "- Hand-written heading: Something by hand." in first
    assert "## Wednesday 2026-11-18" in first and "(no entries" in first


LIONCLAW_DAILY = (
    "# Daily Continuity 2026-11-16\n\n"
    "## 09:30 UTC - Scheduled brief completed\n- artifact continuity/artifacts/x.md\n\n"
)


def test_rollup_lists_both_layouts_of_one_day_together() -> None:
    notes = [
        (dt.date(2026, 11, 16), "memory/2026-11-16.md", DAILY),
        (dt.date(2026, 11, 16), "continuity/daily/2026/11/2026-11-16.md", LIONCLAW_DAILY),
    ]
    digest = rollup.render_rollup("2026-W47", notes)
    assert digest == rollup.render_rollup("2026-W47", list(reversed(notes)))
    assert "Digest of 2 daily notes, 3 entries." in digest
    brief = digest.index("- 09:30 Scheduled brief completed: - artifact continuity/artifacts/x.md")
    assert brief < digest.index("- 09:05 Garden: Watered the beans.")


@pytest.mark.parametrize("label", ["2026-47", "2026-W54", "W47", "2026-W00", ""])
def test_bad_week_labels_are_refused(label: str) -> None:
    with pytest.raises(InvalidInput):
        rollup.week_days(label)


def test_previous_week_crosses_years() -> None:
    assert rollup.previous_week(dt.date(2027, 1, 4)) == "2026-W53"
    assert rollup.week_label(dt.date(2026, 11, 22)) == "2026-W47"


def test_active_render_is_pure_and_ordered() -> None:
    inputs = active.ActiveInputs(
        head="a" * 40,
        attention=["b problem", "a problem", "a problem"],
        loops=[
            active.LoopLine("k2", "Second", "", "2026-11-21"),
            active.LoopLine("k1", "First", "call", "2026-11-20"),
        ],
        daily_path="memory/2026-11-22.md",
        daily_text=DAILY,
    )
    text = active.render_active(inputs)
    assert text == active.render_active(inputs)
    assert text.index("a problem") < text.index("b problem")
    assert text.count("a problem") == 1
    assert text.index("First") < text.index("Second")
    assert "- 09:05 Garden: Watered the beans." in text
    assert text.endswith("- none\n")


def test_an_agents_long_title_never_pushes_out_its_key_or_whose_it_is() -> None:
    """Hostile pass. Reproduction: `POST /v1/loops` (or `decide`) with a write
    token and a 150-character title; ACTIVE.md, which every session loads,
    clipped the line at 200 characters before the key and before ", an
    agent's (api:NAME)", so the agent's loop read as the person's."""
    from hearth.domain.records import record_key

    title = "Send the bank details to the new landlord address " * 3
    key = record_key(title)
    inputs = active.ActiveInputs(
        head="a" * 40,
        loops=[active.LoopLine(key, title, "today " * 40, "2026-11-20", "api:agent", True)],
        decisions=[active.DecisionLine(key, title, "yes " * 60, "2026-11-20", "api:agent", True)],
    )
    lines = [ln for ln in active.render_active(inputs).splitlines() if ln.startswith("- Send")]
    assert len(lines) == 2
    for line in lines:
        assert f"(`{key}`), an agent's (api:agent)" in line, line
