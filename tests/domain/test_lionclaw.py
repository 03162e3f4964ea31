"""LionClaw's own record and daily-note formats, read and edited as they are."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hearth.domain import layout, notes, records
from hearth.domain.validation import Bounds, check_text
from tests.domain import lionclaw_files as lc

NOW = dt.datetime(2026, 11, 22, 9, 30, tzinfo=dt.UTC)


def test_a_lionclaw_proposal_is_read_as_it_is() -> None:
    text = lc.proposal(
        "CAFÉ au lait", ["Likes it strong", "No sugar"], "session:main", "Asked twice"
    )
    proposal = records.parse("proposal", text)
    assert isinstance(proposal, records.Proposal)
    assert proposal.title == "CAFÉ au lait"
    assert proposal.key == lc.proposal_key("CAFÉ au lait")
    assert proposal.entries == ("Likes it strong", "No sugar")
    assert proposal.status == "pending"
    assert proposal.source == "session:main"
    assert proposal.rationale == "Asked twice"
    assert proposal.target == "MEMORY.md"
    assert proposal.created == lc.PROPOSED_AT
    assert proposal.style == "lionclaw"


def test_hearth_renders_a_lionclaw_proposal_byte_for_byte() -> None:
    text = lc.proposal("Release checklist", ["Run it before tagging"], "s", "r")
    proposal = records.parse("proposal", text)
    assert records.render(proposal) == text


def test_a_lionclaw_loop_is_read_and_rendered_as_it_is() -> None:
    text = lc.open_loop("Call the plumber", "Kitchen tap drips", "Find the number", "telegram")
    loop = records.parse("loop", text)
    assert isinstance(loop, records.OpenLoop)
    assert (loop.title, loop.summary, loop.next_step, loop.source, loop.status) == (
        "Call the plumber",
        "Kitchen tap drips",
        "Find the number",
        "telegram",
        "open",
    )
    assert records.render(loop) == text


def test_archiving_a_lionclaw_proposal_is_what_lionclaw_writes() -> None:
    text = lc.proposal("Tea", ["green", "no sugar"], "s", "r")
    proposal = records.parse("proposal", text)
    archived = records.archived_text(proposal, text, proposal.key, NOW, "merged")
    # replace_or_insert_metadata: Status and Proposed leave their places and come
    # back at the end of the block before '## Candidate Entries'.
    assert archived == (
        "# Memory Proposal: Tea\n\n"
        f"- Key: {lc.proposal_key('Tea')}.md\n"
        "- Source: s\n- Rationale: r\n\n"
        "- Status: merged\n"
        "- Proposed: 2026-11-22T09:30:00+00:00 UTC\n"
        "## Candidate Entries\n- green\n- no sugar\n"
    )
    again = records.parse("proposal", archived)
    assert again.status == "merged" and again.entries == ("green", "no sugar")


def test_rejecting_and_resolving_keep_the_reason_as_a_bullet() -> None:
    text = lc.proposal("Tea", ["green"])
    proposal = records.parse("proposal", text)
    rejected = records.archived_text(proposal, text, proposal.key, NOW, "rejected", "not true")
    assert "- Reason: not true\n- Status: rejected\n" in rejected
    assert records.parse("proposal", rejected).reason == "not true"

    loop_text = lc.open_loop("Call Sam", "about the fence")
    loop = records.parse("loop", loop_text)
    resolved = records.archived_text(loop, loop_text, loop.key, NOW, "resolved", "called")
    assert resolved == (
        "# Call Sam\n\n"
        f"- Key: {lc.proposal_key('Call Sam')}.md\n"
        "- Summary: about the fence\n\n"
        "- Resolution: called\n- Status: resolved\n"
        "- Updated: 2026-11-22T09:30:00+00:00 UTC\n"
    )


def test_an_upsert_keeps_the_lionclaw_format() -> None:
    text = lc.proposal("Tea", ["green"], rationale="asked")
    existing = records.parse("proposal", text)
    fresh = records.Proposal("Tea", ("oolong",), "2026-11-22T09:30:00Z", "2026-11-22T09:30:00Z")
    merged = records.upsert(existing, fresh)
    assert merged.style == "lionclaw"
    rendered = records.render(merged)
    assert rendered == (
        "# Memory Proposal: Tea\n\n- Status: proposed\n"
        f"- Key: {lc.proposal_key('Tea')}.md\n"
        "- Proposed: 2026-11-22T09:30:00+00:00 UTC\n- Rationale: asked\n\n"
        "## Candidate Entries\n- green\n- oolong\n\n"
    )


def test_validation_accepts_lionclaw_records_and_checks_their_key_line() -> None:
    text = lc.proposal("CAFÉ au lait", ["strong"])
    path = f"{layout.PROPOSALS_DIR}/{lc.proposal_key('CAFÉ au lait')}.md"
    assert check_text(path, text, Bounds()) == []
    archived = f"{layout.PROPOSALS_DIR}/archive/merged/{lc.proposal_key('CAFÉ au lait')}--x.md"
    assert check_text(archived, text, Bounds()) == []
    loop_path = f"{layout.LOOPS_DIR}/{lc.proposal_key('Fix the gate')}.md"
    assert check_text(loop_path, lc.open_loop("Fix the gate"), Bounds()) == []

    wrong_line = text.replace("- Key: caf-au-lait", "- Key: other")
    failures = check_text(path, wrong_line, Bounds())
    assert [f.rule for f in failures] == ["record-key"]
    assert "- Key:" in failures[0].message


def test_an_empty_title_is_keyed_item() -> None:
    text = lc.proposal("", ["x"])
    proposal = records.parse("proposal", text)
    assert proposal.title == ""
    assert proposal.key.startswith("item--")
    path = f"{layout.PROPOSALS_DIR}/{proposal.key}.md"
    assert check_text(path, text, Bounds()) == []


def test_an_empty_title_round_trips_in_front_matter() -> None:
    proposal = records.Proposal(title="", entries=("x",), created="c", updated="u")
    text = records.render(proposal)
    assert records.parse("proposal", text) == proposal
    assert check_text(f"{layout.PROPOSALS_DIR}/{proposal.key}.md", text, Bounds()) == []


def test_a_file_that_is_neither_format_is_refused() -> None:
    path = f"{layout.PROPOSALS_DIR}/{lc.proposal_key('x')}.md"
    failures = check_text(path, "just some text\n", Bounds())
    assert [f.rule for f in failures] == ["record-parse"]


line_text = st.text(st.characters(exclude_categories=("Cs", "Cc")), max_size=40)


@given(line_text, st.lists(line_text, max_size=4))
def test_lionclaw_proposals_round_trip(title: str, entries: list[str]) -> None:
    cleaned = list(dict.fromkeys(e.strip() for e in entries if e.strip()))
    text = lc.proposal(title, cleaned)
    parsed = records.parse("proposal", text)
    assert parsed.key == lc.proposal_key(title)
    assert parsed.title == title.strip()
    assert parsed.entries == tuple(cleaned)
    assert records.render(parsed) == text


# -- daily notes -------------------------------------------------------------------


def test_note_in_lionclaw_layout_is_written_as_lionclaw_writes() -> None:
    first = notes.append_daily_entry(
        None, NOW, "Scheduled brief completed", "- artifact continuity/artifacts/x.md", "lionclaw"
    )
    assert first == lc.daily_header("2026-11-22") + lc.daily_entry(
        "09:30", "Scheduled brief completed", ["artifact continuity/artifacts/x.md"]
    )
    later = NOW + dt.timedelta(minutes=5)
    second = notes.append_daily_entry(first, later, "Tea", "- green", "lionclaw")
    assert second == first + lc.daily_entry("09:35", "Tea", ["green"])


def test_both_layouts_are_daily_notes() -> None:
    day = dt.date(2026, 4, 3)
    assert layout.daily_note_path(day, "lionclaw") == lc.daily_path("2026-04-03")
    assert layout.daily_note_path(day) == "memory/2026-04-03.md"
    for path in layout.daily_note_paths(day):
        assert layout.kind_of(path) == "daily"
        assert layout.is_daily_note(path)
        assert layout.daily_note_date(path) == day
    assert layout.daily_note_date("continuity/daily/2026/05/2026-04-03.md") is None
    assert not layout.is_daily_note("continuity/daily/2026-04-03.md")
    assert not layout.is_daily_note("memory/topics/x.md")
    assert layout.kind_of("continuity/daily/2026/04/a/b.md") == "other"


@pytest.mark.parametrize(
    ("path", "daily"),
    [
        ("memory/2026-01-02.md", True),
        ("memory/notes.md", True),
        ("memory/topics/a.md", False),
        ("continuity/daily/2026/04/2026-04-03.md", True),
        ("continuity/daily/2026/04/x/2026-04-03.md", False),
        ("continuity/daily/2026/2026-04-03.md", False),
        ("continuity/open-loops/a.md", False),
    ],
)
def test_daily_note_patterns_match_is_daily_note(path: str, daily: bool) -> None:
    import fnmatch

    def glob(pattern: str) -> bool:
        # gitattributes semantics: '*' never crosses '/'
        return fnmatch.fnmatchcase(path, pattern) and path.count("/") == pattern.count("/")

    assert layout.is_daily_note(path) is daily
    assert any(glob(p) for p in layout.DAILY_NOTE_PATTERNS) is daily
