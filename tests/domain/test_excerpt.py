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


def test_a_long_note_hands_the_entry_the_prompt_is_about_first() -> None:
    """A name every entry holds weighs little: the one entry that says
    ``adoption`` comes first, with its wrapped line; an entry that holds none
    of the prompt's words is not handed at all."""
    found = excerpt.answering(NOTE, 4, {"sam", "adoption", "agencie"}, words)
    assert found is not None
    assert (found[0].unit.start, found[0].unit.end) == (4 + 21, 4 + 22)
    assert found[0].unit.text.endswith("and wrote to two of them.")
    assert all(a.weight < found[0].weight / 2 for a in found[1:])
    only = excerpt.answering(NOTE, 4, {"adoption", "agencie"}, words)
    assert only is not None and [a.unit.start for a in only] == [4 + 21]


def test_a_short_section_or_one_that_holds_no_word_of_the_prompt_is_whole() -> None:
    assert excerpt.answering("## 10:00 — Sam\n\nShort turn.", 1, {"turn"}, words) is None
    assert excerpt.answering(NOTE, 1, {"otter"}, words) is None


def test_the_recall_takes_each_hits_best_lines_in_turns() -> None:
    """Every hit's best lines first, in the hits' order, then the next ones:
    a budget that runs out drops the weakest lines, not the later hits. The
    walks with the dog (``dog`` only, held by half the note) come after every
    hit's best line."""
    other = "\n".join(f"- Ana bakes bread number {n}." for n in range(40)) + "\n- Ana's dog Rex"
    passages = [
        Passage("users/sam.md", 1, 100, "Entries", NOTE + "\n- Sam's dog Rex is old"),
        Passage("users/ana.md", 1, 41, "Entries", other),
        Passage("memory/2026-01-02.md", 5, 7, "10:00 — Sam", "## 10:00 — Sam\n\nRex barked."),
    ]
    got = answering_passages(passages, {"dog", "rex"}, words)
    assert [(p.path, p.start_line, p.end_line) for p in got][:3] == [
        ("users/sam.md", 44, 44),
        ("users/ana.md", 41, 41),
        ("memory/2026-01-02.md", 5, 7),
    ]
    assert got[0].text == "- Sam's dog Rex is old"
    walks = [p.text for p in got[3:]]
    assert len(walks) == 20 and all("walked the dog" in w for w in walks)
    two = answering_passages(passages[:2], {"sam", "ana", "bread"}, words)
    assert [p.path for p in two][:3] == ["users/sam.md", "users/ana.md", "users/sam.md"]


def test_a_named_persons_note_hands_its_answering_entries_then_the_rest() -> None:
    """Issue 53: a person note reached the runtime only as a search hit. The
    note of a person the prompt names now hands, after the hits, the entries
    that hold a word of the prompt besides the name, then its other entries in
    file order (never its headings); nothing at all when nothing answers."""
    pointer = "- Garden (Sam): see memory/topics/garden-sam.md"
    note = Passage("users/sam.md", 1, 44, "", "# Sam\n\n" + NOTE + "\n" + pointer)
    hit = Passage("memory/2026-01-02.md", 5, 7, "10:00 — Sam", "## 10:00 — Sam\n\nAdoption day.")
    got = answering_passages([hit], {"sam", "adoption"}, words, [note], {"sam"})
    assert [(p.path, p.start_line) for p in got][:2] == [
        ("memory/2026-01-02.md", 5),
        ("users/sam.md", 24),
    ]
    rest = [p.start_line for p in got[2:]]
    assert rest == sorted(rest) and len(rest) == 39 and 24 not in rest
    assert all(p.text.startswith("- Sam ") for p in got[2:])  # no heading, no pointer
    assert answering_passages([], {"sam", "otter"}, words, [note], {"sam"}) == []
