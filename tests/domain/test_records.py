from __future__ import annotations

import contextlib
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hearth.domain import keys, layout, records
from hearth.errors import InvalidRecord

titles = st.text(min_size=1, max_size=120).filter(lambda t: t.split())


def _ascii_lower(text: str) -> str:
    return "".join(ch.lower() if "A" <= ch <= "Z" else ch for ch in text)


def test_key_matches_lionclaw_scheme() -> None:
    key = records.record_key("  Likes   Green TEA ")
    normalized = "likes green tea"
    expected_uuid = uuid.uuid5(uuid.UUID("5f026ae9-551b-4d3e-a511-f0f2d74cf241"), normalized)
    assert key == f"likes-green-tea--{expected_uuid}"


def test_empty_slug_becomes_item() -> None:
    assert records.record_key("!!! ???").startswith("item--")
    assert records.record_key("日本語").startswith("item--")


# LionClaw lower-cases ASCII letters only and splits on Unicode White_Space (not
# Python's str.split, which also splits on U+001C..U+001F): the old version of this
# test used .lower() and .split(), the rule of hearth's former, non-LionClaw keys.
@given(titles)
def test_key_depends_only_on_normalized_title(title: str) -> None:
    key = records.record_key(title)
    words = keys.words(title)
    assert key == records.record_key("  " + "  ".join(_ascii_lower(w) for w in words) + "\n")
    assert records.is_key(key)
    assert key == records.record_key(_ascii_lower(" ".join(words)))


@given(titles, titles)
def test_different_normalized_titles_give_different_keys(a: str, b: str) -> None:
    if keys.normalized_title_key(a) != keys.normalized_title_key(b):
        assert records.record_key(a) != records.record_key(b)


entries = st.lists(
    st.text(min_size=1, max_size=40).filter(
        lambda e: " ".join(e.split()).removeprefix("- ").strip()
    ),
    min_size=1,
    max_size=5,
)
plain = st.text(max_size=60)


@given(titles, entries, plain, plain)
def test_proposal_round_trips(title: str, items: list[str], rationale: str, source: str) -> None:
    proposal = records.Proposal(
        title=records.clean_title(title[:200]),
        entries=tuple(records.clean_entry(e) for e in items),
        created="2026-11-22T09:30:00Z",
        updated="2026-11-22T09:31:00Z",
        source=" ".join(source.split()),
        rationale=" ".join(rationale.split()),
    )
    assert records.parse("proposal", records.render(proposal)) == proposal


@given(titles, plain, plain)
def test_loop_round_trips(title: str, summary: str, next_step: str) -> None:
    loop = records.OpenLoop(
        title=records.clean_title(title[:200]),
        created="2026-11-22T09:30:00Z",
        updated="2026-11-22T09:30:00Z",
        summary=summary.strip(),
        next_step=" ".join(next_step.split()),
    )
    parsed = records.parse("loop", records.render(loop))
    assert parsed == loop


@given(titles, plain, plain, plain)
def test_decision_round_trips(title: str, decision: str, why: str, source: str) -> None:
    record = records.Decision(
        title=records.clean_title(title[:200]),
        created="2026-11-22T09:30:00Z",
        updated="2026-11-23T10:00:00Z",
        decision=decision.strip(),
        why=" ".join(why.split()),
        source=" ".join(source.split()),
    )
    assert records.parse("decision", records.render(record)) == record


def test_a_decision_with_the_same_title_replaces_its_text_and_why_and_keeps_created() -> None:
    first = records.Decision(
        "Editor", "2026-11-01T00:00:00Z", "2026-11-01T00:00:00Z", "vim", "habit"
    )
    again = records.Decision("editor", "2026-11-20T00:00:00Z", "2026-11-20T00:00:00Z", "helix")
    merged = records.upsert(first, again)
    assert isinstance(merged, records.Decision)
    assert (merged.decision, merged.why) == ("helix", "")
    assert (merged.created, merged.updated) == ("2026-11-01T00:00:00Z", "2026-11-20T00:00:00Z")
    assert merged.title == "editor"


def test_record_kinds_are_declared_once_and_every_folder_follows() -> None:
    assert set(layout.RECORD_KINDS) == set(records.RECORD_TYPES)
    for kind, spec in layout.RECORD_KINDS.items():
        path = layout.record_path(kind, "a--b")
        assert layout.record_location(path) == (kind, False)
        assert layout.kind_of(path) == kind
        outcome = spec.outcome_folders[0] if spec.outcome_folders else ""
        archived = layout.archive_path(kind, "a--b", "u", outcome)
        assert layout.record_location(archived) == (kind, True)
        assert layout.kind_of(archived) == "archive"
        assert spec.folder in layout.record_folders()
    assert layout.record_location("continuity/decisions/archive/x/y.md") is None
    with pytest.raises(ValueError):
        layout.archive_path("proposal", "a--b", "u", "withdrawn")


def test_a_decision_in_lionclaws_format_is_refused_with_the_reason() -> None:
    with pytest.raises(InvalidRecord, match="front-matter"):
        records.parse("decision", "# Editor\n\n- Status: active\n- Key: editor.md\n")


@given(st.text(max_size=300))
def test_parse_never_raises_anything_but_invalid_record(text: str) -> None:
    for kind in ("proposal", "loop", "decision"):
        with contextlib.suppress(InvalidRecord):
            records.parse(kind, text)  # type: ignore[arg-type]


def test_parse_tolerates_hand_written_dates() -> None:
    text = "---\ntitle: Fix it\ncreated: 2026-11-20\nstatus: open\n---\nSomething\n"
    loop = records.parse("loop", text)
    assert loop.created == "2026-11-20"
    assert isinstance(loop, records.OpenLoop)
    assert loop.summary == "Something"


@pytest.mark.parametrize(
    "text",
    [
        "no front matter",
        "---\ntitle: x\n",
        "---\n- a list\n---\n",
        "---\ntitle: [unclosed\n---\n",
        "---\nstatus: open\n---\n",
        "---\ntitle: {a: 1}\n---\n",
    ],
)
def test_parse_refuses_broken_files(text: str) -> None:
    with pytest.raises(InvalidRecord):
        records.parse("loop", text)


def test_upsert_keeps_what_the_update_leaves_out() -> None:
    old = records.Proposal(
        title="Tea",
        entries=("green", "no sugar"),
        created="2026-11-01T00:00:00Z",
        updated="2026-11-01T00:00:00Z",
        target="USER.md",
        rationale="said so",
    )
    fresh = records.Proposal(title="tea", entries=("oolong", "green"), created="now", updated="now")
    merged = records.upsert(old, fresh)
    assert isinstance(merged, records.Proposal)
    assert merged.entries == ("green", "no sugar", "oolong")
    assert merged.created == "2026-11-01T00:00:00Z"
    assert merged.updated == "now"
    assert merged.target == "USER.md"
    assert merged.rationale == "said so"
    assert merged.title == "tea"
    assert records.upsert(None, fresh) == fresh
