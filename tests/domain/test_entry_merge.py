"""The entry-by-entry merge of USER.md, MEMORY.md and person notes (pure)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hearth.domain.entries import entry_blocks, list_entries
from hearth.domain.entry_merge import (
    EntryConflict,
    conflict_note,
    merge_entry_files,
    parse_record,
    render_record,
)
from tests.conftest import examples

BASE = "# Memory\n\nA preamble a person wrote.\n\n## Entries\n\n- a\n- b\n- c\n"


def entries_of(text: str) -> list[str]:
    return [e.text for e in list_entries(text)]


def with_entries(*texts: str) -> str:
    return "# Memory\n\nA preamble a person wrote.\n\n## Entries\n\n" + "".join(
        f"- {t}\n" for t in texts
    )


def merged(base: str, ours: str, theirs: str) -> list[str]:
    result = merge_entry_files(base, ours, theirs)
    assert result is not None
    return entries_of(result.text)


def test_additions_on_both_sides_are_kept_ours_first_and_the_same_one_once() -> None:
    ours = with_entries("a", "b", "c", "laptop", "both")
    theirs = with_entries("a", "b", "c", "both", "desktop")
    assert merged(BASE, ours, theirs) == ["a", "b", "c", "laptop", "both", "desktop"]


def test_a_removal_or_a_replacement_on_one_side_applies_in_place() -> None:
    assert merged(BASE, with_entries("a", "c"), with_entries("a", "b", "c", "d")) == [
        "a",
        "c",
        "d",
    ]
    assert merged(BASE, with_entries("a", "B!", "c"), with_entries("a", "b", "c")) == [
        "a",
        "B!",
        "c",
    ]


def test_two_different_changes_of_one_entry_keep_both_in_the_file() -> None:
    base = with_entries("a", "Sam lives in Porto", "c")
    ours, theirs = base.replace("Porto", "Braga"), base.replace("Porto", "Lisbon")
    result = merge_entry_files(base, ours, theirs)
    assert entries_of(result.text) == ["a", "Sam lives in Braga", "Sam lives in Lisbon", "c"]
    assert result.conflicts == (
        EntryConflict("Sam lives in Porto", "Sam lives in Braga", "Sam lives in Lisbon", "ours"),
    )
    removed = merge_entry_files(base, with_entries("a", "c"), theirs)
    assert entries_of(removed.text) == ["a", "Sam lives in Lisbon", "c"]
    assert removed.conflicts == (
        EntryConflict("Sam lives in Porto", "Sam lives in Lisbon", None, "theirs"),
    )


def test_the_text_around_the_entries_merges_as_git_merges_lines() -> None:
    ours = BASE.replace("A preamble", "My preamble") + "- mine\n"
    merged_text = merge_entry_files(BASE, ours, BASE + "- theirs\n")
    assert merged_text.text.startswith("# Memory\n\nMy preamble")
    assert entries_of(merged_text.text) == ["a", "b", "c", "mine", "theirs"]
    assert not merged_text.frame_conflict
    both = BASE.replace("A preamble", "Their preamble")
    marked = merge_entry_files(BASE, ours, both)
    assert marked.frame_conflict and "<<<<<<< ours\nMy preamble" in marked.text
    assert "=======\nTheir preamble" in marked.text
    assert entries_of(merge_entry_files(BASE, ours, both, markers=False).text)[-1] == "mine"


def test_adopted_bullets_stay_in_their_sections() -> None:
    base = "# User\n\n## Preferences\n- brief\n\n## Context\n- Lisbon\n\nA closing line.\n"
    ours = base.replace("- brief\n", "- brief\n- tea\n")
    theirs = base.replace("- Lisbon\n", "- Lisbon\n- a cat\n")
    result = merge_entry_files(base, ours, theirs)
    assert result is not None
    assert result.text == (
        "# User\n\n## Preferences\n- brief\n- tea\n\n## Context\n- Lisbon\n- a cat\n\n"
        "A closing line.\n"
    )


def test_a_conflict_record_reads_back_and_is_worded_for_every_machine() -> None:
    conflict = EntryConflict("Sam lives in Porto", "Sam lives in Braga", None, "ours")
    path, text = render_record("users/sam.md", conflict)
    assert path.startswith("continuity/conflicts/entries/users/sam.md--")
    record = parse_record(path, text)
    assert record is not None
    assert (record.path, record.base, record.kept, record.other) == (
        "users/sam.md",
        "Sam lives in Porto",
        "Sam lives in Braga",
        None,
    )
    assert record.id in conflict_note(path, text)
    copy = conflict_note("continuity/conflicts/SOUL.md--1a2b3c4.md", None)
    assert "the version of commit 1a2b3c4" in copy and "other machine" not in copy


_BASE = st.lists(
    st.sampled_from("abcdef").map(lambda c: f"entry {c}: Sam likes the colour {c}"),
    unique=True,
    max_size=5,
)
#: What a side does to each base entry (as hearth's operations do: never a move).
_FATE = st.sampled_from(["keep", "keep", "remove", "replace"])


def _side(base: list[str], fates: list[str], tag: str, added: int) -> list[str]:
    out = []
    for text, fate in zip(base, fates, strict=False):
        if fate == "keep":
            out.append(text)
        elif fate == "replace":
            out.append(f"{text}, said {tag}")
    return out + [f"new {n} by {tag}" for n in range(added)]


@settings(max_examples=examples(300), deadline=None)
@given(
    _BASE,
    st.lists(_FATE, min_size=5, max_size=5),
    st.lists(_FATE, min_size=5, max_size=5),
    st.integers(0, 2),
    st.integers(0, 2),
)
def test_nothing_added_is_lost_and_nothing_removed_comes_back(
    base: list[str], fates_o: list[str], fates_t: list[str], add_o: int, add_t: int
) -> None:
    ours, theirs = _side(base, fates_o, "ours", add_o), _side(base, fates_t, "theirs", add_t)
    b, o, t = with_entries(*base), with_entries(*ours), with_entries(*theirs)
    result = merge_entry_files(b, o, t)
    assert result is not None  # the frame is the same on every side
    held = entries_of(result.text)
    others = {c.other for c in result.conflicts if c.other is not None}
    for text in [*ours, *theirs]:
        if text not in base:
            assert text in held or text in others  # added or changed on a side: kept
    for text, fo, ft in zip(base, fates_o, fates_t, strict=False):
        changed = {fo, ft} - {"keep"}
        if not changed:
            assert text in held
        elif changed == {"remove"}:
            assert text not in held  # removed on one side (or both): gone for good
        else:
            assert text not in held  # replaced on a side: the old text is gone
        two_ways = fo != ft and "keep" not in (fo, ft)
        assert (text in {c.base for c in result.conflicts}) == (two_ways or fo == ft == "replace")
    assert len(held) == len(set(held))  # no duplicate entry
    # Merging a side with the base gives that side back.
    assert entries_of(merge_entry_files(b, o, b).text) == ours  # type: ignore[union-attr]


# -- a person's edits: moves, wraps, sub-bullets, re-indents, CRLF -------------------

_EDIT = st.sampled_from(["keep", "remove", "replace", "move", "wrap", "sub", "indent"])


def _keys(text: str) -> list[str]:
    return [b.key for b in entry_blocks([line.removesuffix("\r") for line in text.split("\n")])]


def _edited(
    base: list[str], edits: list[str], tag: str, added: int, crlf: bool
) -> tuple[str, set[str], set[str]]:
    """A side's MEMORY.md after its edits, with what it removed and wrote (by key)."""
    blocks: list[list[str]] = []
    removed: set[str] = set()
    written: set[str] = set()
    moved: list[list[str]] = []
    for text, edit in zip(base, edits, strict=False):
        if edit == "remove":
            removed.add(text)
        elif edit == "replace":
            removed.add(text)
            written.add(f"{text} said {tag}")
            blocks.append([f"- {text} said {tag}"])
        elif edit == "move":
            moved.append([f"- {text}"])
        elif edit == "wrap":
            head, _, tail = text.rpartition(" ")
            blocks.append([f"- {head}", f"  {tail}"])
        elif edit == "sub":
            removed.add(text)
            written.add(f"{text}\n- note by {tag}")
            blocks.append([f"- {text}", f"  - note by {tag}"])
        elif edit == "indent":  # a re-indent of the whole list (below)
            blocks.append([f"- {text}"])
        else:
            blocks.append([f"- {text}"])
    blocks = moved + blocks if tag == "ours" else blocks + moved
    for n in range(added):
        written.add(f"new {n} by {tag}")
        blocks.append([f"- new {n} by {tag}"])
    lines = [line for block in blocks for line in block]
    if "indent" in edits:
        lines = ["  " + line for line in lines]
    text = with_entries() + "".join(line + "\n" for line in lines)
    return (text.replace("\n", "\r\n") if crlf else text), removed, written


@settings(max_examples=examples(300), deadline=None)
@given(
    _BASE,
    st.lists(_EDIT, min_size=5, max_size=5),
    st.lists(_EDIT, min_size=5, max_size=5),
    st.integers(0, 2),
    st.integers(0, 2),
    st.booleans(),
)
def test_a_persons_edits_lose_nothing_bring_nothing_back_and_double_nothing(
    base: list[str], eo: list[str], et: list[str], add_o: int, add_t: int, crlf: bool
) -> None:
    """Each side removes, replaces, moves, wraps, indents or adds a sub-bullet to
    each base entry, and may add entries (one side in CRLF): every entry written
    and not removed is in the merge once, nothing removed is back, whoever merges."""
    b = with_entries(*base)
    ours, removed_o, written_o = _edited(base, eo, "ours", add_o, crlf)
    theirs, removed_t, written_t = _edited(base, et, "theirs", add_t, False)
    expected = (set(base) | written_o | written_t) - removed_o - removed_t
    for one, two in ((ours, theirs), (theirs, ours)):
        result = merge_entry_files(b, one, two)
        held = _keys(result.text)
        assert not result.frame_conflict
        assert sorted(held) == sorted(expected)  # nothing lost, back, or twice
        text = result.text
        assert text.count("\r\n") in (0, text.count("\n"))  # one line-ending style
