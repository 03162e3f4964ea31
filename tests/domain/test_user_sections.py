"""USER.md's named sections (issue 50, case 8): an entry goes under the section
named, and the template's placeholders are not entries, in today's template
and in a home made by an older one."""

from __future__ import annotations

from pathlib import Path

import pytest

from hearth.domain import entries
from hearth.errors import Conflict

TEMPLATE = (Path(__file__).resolve().parents[2] / "home_template" / "USER.md").read_text()
#: USER.md as hearth's template wrote it before (2d32b4d).
OLDER = """# USER.md — the person you work with

Facts about the person that help you help them.

**Name:**

## Preferences
- (how they like answers: brief or detailed, formal or casual)

## Context
- (work, projects, people and places that come up often)

Add to this file through memory proposals, so the person sees each change.
"""


@pytest.mark.parametrize("text", [TEMPLATE, OLDER], ids=["today", "older"])
def test_the_templates_placeholders_are_not_entries(text: str) -> None:
    """Case 8: on 2d32b4d the placeholders were entries #1 and #2."""
    assert entries.list_entries(text) == []


@pytest.mark.parametrize("text", [TEMPLATE, OLDER], ids=["today", "older"])
def test_an_entry_goes_under_the_section_named(text: str) -> None:
    """Case 8: ``--section Preferences`` (on 2d32b4d every add went under Context)."""
    once = entries.add_entry(text, "Likes short answers", "Preferences")
    twice = entries.add_entry(once, "Works on the Kestrel project", "context")
    assert [e.text for e in entries.list_entries(twice)] == [
        "Likes short answers",
        "Works on the Kestrel project",
    ]
    lines = twice.split("\n")
    prefs, context = lines.index("## Preferences"), lines.index("## Context")
    assert prefs < lines.index("- Likes short answers") < context
    assert context < lines.index("- Works on the Kestrel project")
    assert "(how they like answers" not in twice  # an older placeholder gives way
    with pytest.raises(Conflict, match="no '## Hobbies' section"):
        entries.add_entry(twice, "Climbs", "Hobbies")
