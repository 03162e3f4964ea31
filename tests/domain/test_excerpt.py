"""The lines of a recalled section that answer the prompt (issue 53: what a
runtime is handed of each hit is the entries that answer, not the section)."""

from __future__ import annotations

import re

from hearth.domain import excerpt
from hearth.domain.context import Passage, answering_passages


def words(text: str) -> list[str]:
    """A stand-in for the search analyzer: lower-case words, a plural's ``s`` off."""
    return [w.removesuffix("s") for w in re.findall(r"\w+", text.lower())]


NOTE = "\n".join(
    [
        "## Entries",
        "",
        *(f"- Sam went to the market on day {n} and bought bread." for n in range(1, 20)),
        "- Sam researched adoption agencies in Porto",
        "  and wrote to two of them.",
        *(f"- Sam walked the dog on day {n} by the river." for n in range(20, 40)),
    ]
)


def test_units_are_entries_with_their_wrapped_lines_paragraphs_and_headings() -> None:
    text = (
        "## Trip\n\nWe left early.\nThe road was wet.\n\n- Sam drove\n  the whole way\n- Ana slept"
    )
    found = excerpt.units(text, 10)
    assert [(u.start, u.end) for u in found] == [(10, 10), (12, 13), (15, 16), (17, 17)]
    assert found[2].text == "- Sam drove\n  the whole way"


def test_a_long_note_hands_only_the_entry_the_prompt_is_about() -> None:
    """A name every entry holds weighs little: the one entry that says
    ``adoption`` is handed, with its wrapped line, and not the other 39."""
    found = excerpt.answering(NOTE, 4, {"sam", "adoption", "agencie"}, words)
    assert found is not None
    assert [(a.unit.start, a.unit.end) for a in found] == [(4 + 21, 4 + 22)]
    assert found[0].unit.text.endswith("and wrote to two of them.")


def test_a_short_section_or_one_that_holds_no_word_of_the_prompt_is_whole() -> None:
    assert excerpt.answering("## 10:00 — Sam\n\nShort turn.", 1, {"turn"}, words) is None
    assert excerpt.answering(NOTE, 1, {"otter"}, words) is None


def test_the_recall_takes_each_hits_best_lines_in_turns() -> None:
    """Every hit's best lines first, in the hits' order, then the next ones:
    a budget that runs out drops the weakest lines, not the later hits. The
    walks with the dog (``dog`` only, held by half the note) weigh under half
    of the entry that names Rex, and are not handed."""
    other = "\n".join(f"- Ana bakes bread number {n}." for n in range(40)) + "\n- Ana's dog Rex"
    passages = [
        Passage("users/sam.md", 1, 100, "Entries", NOTE + "\n- Sam's dog Rex is old"),
        Passage("users/ana.md", 1, 41, "Entries", other),
        Passage("memory/2026-01-02.md", 5, 7, "10:00 — Sam", "## 10:00 — Sam\n\nRex barked."),
    ]
    got = answering_passages(passages, {"dog", "rex"}, words)
    assert [(p.path, p.start_line, p.end_line) for p in got] == [
        ("users/sam.md", 44, 44),
        ("users/ana.md", 41, 41),
        ("memory/2026-01-02.md", 5, 7),
    ]
    assert got[0].text == "- Sam's dog Rex is old"
    two = answering_passages(passages[:2], {"sam", "ana", "bread"}, words)
    assert [p.path for p in two][:3] == ["users/sam.md", "users/ana.md", "users/sam.md"]
