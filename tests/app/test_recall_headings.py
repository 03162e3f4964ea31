"""Recall never hands a heading alone (a data-trust leftover, (2)): the context
bundle's recall (what the prompt hook and ``hearth context --query`` hand) gave
``## Greenhouse`` with nothing under it when the section was the heading alone
(a subheading followed at once), and ``## Compost heap`` alone when, in a long
section, only the heading held the prompt's words. Through the use case on a
real home (keyword ranking: words are enough), and the pure rules beneath."""

from __future__ import annotations

import re

import pytest

from hearth.domain import context, excerpt
from tests.conftest import Workspace

ACTOR = "test"
ROWS = "\n".join(f"- Sam planted row {i} of beans and peas near the shed wall" for i in range(20))
NOTES = {
    "memory/topics/garden.md": (
        "# Garden\n\n## Greenhouse\n\n### Tomatoes\n\n"
        "The seedlings went in on the fifth, three per pot.\n"
    ),
    "memory/topics/allotment.md": f"# Allotment\n\n## Compost heap\n\n{ROWS}\n",
}
_HEADING = re.compile(r"^#{1,6}\s")


def _recall(workspace: Workspace, query: str) -> list[dict[str, object]]:
    for path, text in NOTES.items():
        workspace.app.put(path, text.encode(), ACTOR)
    recall = workspace.app.context("main", query=query).as_dict()["recall"]
    assert isinstance(recall, list)
    return recall


def _says_something(text: str) -> bool:
    return any(line.strip() and not _HEADING.match(line) for line in text.split("\n"))


@pytest.mark.parametrize(
    ("query", "path", "under"),
    [
        ("greenhouse", "memory/topics/garden.md", "three per pot"),
        ("what is in the compost heap", "memory/topics/allotment.md", "row 0 of beans"),
    ],
)
def test_recall_hands_a_heading_with_what_is_under_it(
    workspace: Workspace, query: str, path: str, under: str
) -> None:
    """Case (2): each recalled passage holds a line that is not a heading, and
    the heading the prompt named comes with what stands under it."""
    recall = _recall(workspace, query)
    assert recall, "nothing recalled"
    alone = [p for p in recall if not _says_something(str(p["text"]))]
    assert alone == [], alone
    ours = [str(p["text"]) for p in recall if p["path"] == path]
    assert any(under in text for text in ours), recall


def test_a_passage_of_headings_alone_takes_what_is_under_its_first() -> None:
    """The rule beneath: the passage's end moves to the end of what stands under
    its first heading; a passage with text keeps its end; headings with nothing
    under them are no passage."""
    lines = NOTES["memory/topics/garden.md"].split("\n")
    assert context.with_what_is_under(lines, 3, 4) == 7
    assert context.with_what_is_under(lines, 5, 7) == 7
    bare = ["# Garden", "", "## Greenhouse", "", "## Shed", ""]
    assert context.with_what_is_under(bare, 3, 4) is None


def test_a_heading_is_never_an_answering_unit() -> None:
    """The rule beneath: in a long section whose heading alone holds the
    prompt's words, no unit answers, so the section is handed from its head."""
    text = NOTES["memory/topics/allotment.md"].split("\n", 2)[2]

    def terms(part: str) -> list[str]:
        return part.lower().replace("#", " ").split()

    assert excerpt.answering(text, 3, ["compost", "heap"], terms) is None
    found = excerpt.answering(text, 3, ["compost", "row"], terms)
    assert found and all(not _HEADING.match(a.unit.text) for a in found)
