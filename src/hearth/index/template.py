"""Template text: the sections a new home starts with, until a person changes them.

``hearth init`` copies ``home_template/`` into the home: persona files whose
text is instructions and placeholders (``(work, projects, people and places
that come up often)``). Their words are the words of every question about
work, projects or people, so template text matched questions that a note
answered, and was near them in meaning too: "when is the project review
meeting?" ranked USER.md's placeholder list and AGENTS.md above the note that
says 明天下午三点开项目评审会议. A section whose passage is exactly a template
section's (by its digest, ``schema.digest``) still matches, at
``Weights.template`` of its score, as an archived record does; once a person
edits it, it is their text and weighs fully.
"""

from __future__ import annotations

from pathlib import Path

from hearth.domain.sections import split_sections
from hearth.index.schema import digest, passage


def template_digests(folder: Path | None) -> frozenset[str]:
    """The passage digests of the sections of the template's markdown files."""
    if folder is None or not folder.is_dir():
        return frozenset()
    found: set[str] = set()
    for path in sorted(folder.rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for section in split_sections(path.relative_to(folder).as_posix(), text):
            text_of = passage(section.heading, section.body)
            if text_of:
                found.add(digest(text_of))
    return frozenset(found)
