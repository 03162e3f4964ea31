"""The context bundle: the hot files a runtime loads every turn, bounded.

Principle 4 (small hot path): what is loaded every turn is bounded, and when
it is cut the runtime is told so. Each file is capped; a cut keeps the head
and the tail (where the newest entries of a memory file are) with a marker in
the middle that names the file and how much was left out. The whole bundle is
capped too; files late in the order get what is left, and a file that gets
nothing is still listed, marked truncated.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from hearth.domain import excerpt, layout

Session = Literal["main", "subagent"]

MAIN_FILES = (
    "AGENTS.md",
    "SOUL.md",
    "TOOLS.md",
    "IDENTITY.md",
    "USER.md",
    "MEMORY.md",
    layout.ACTIVE_PATH,
)
SUBAGENT_FILES = ("AGENTS.md", "TOOLS.md")


#: Characters of the bundle the recall section may use at most, and per passage.
RECALL_CHARS = 12_000
PASSAGE_CHARS = 3_000


def hot_files(session: Session, user_note: str | None = None) -> tuple[str, ...]:
    """The files of a session's bundle; a person's note ``users/<id>.md`` comes
    right after USER.md in the main session."""
    if session != "main":
        return SUBAGENT_FILES
    if user_note is None:
        return MAIN_FILES
    at = MAIN_FILES.index("USER.md") + 1
    return (*MAIN_FILES[:at], user_note, *MAIN_FILES[at:])


@dataclass(frozen=True)
class Passage:
    """A search hit for the turn's message: where it is and its text."""

    path: str
    start_line: int
    end_line: int
    heading: str
    text: str
    truncated: bool = False


@dataclass(frozen=True)
class ContextFile:
    path: str
    content: str
    chars: int  # characters of the file on disk (before any cut)
    truncated: bool
    missing: bool


@dataclass(frozen=True)
class ContextBundle:
    session: Session
    files: tuple[ContextFile, ...]
    truncated: bool
    total_chars: int  # characters handed out, markers included
    query: str | None = None
    recall: tuple[Passage, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "session": self.session,
            "truncated": self.truncated,
            "total_chars": self.total_chars,
            "files": [f.__dict__.copy() for f in self.files],
            "query": self.query,
            "recall": [p.__dict__.copy() for p in self.recall],
        }


@dataclass(frozen=True)
class Cut:
    """What ``cut`` kept of a text: its first ``head`` and last ``tail`` characters
    (the whole text when nothing was cut; nothing when it did not fit at all)."""

    shown: str
    cut: bool
    head: int
    tail: int


def cut(path: str, text: str, limit: int) -> tuple[str, bool]:
    """``text`` within ``limit`` characters, keeping head and tail around a marker."""
    done = cut_kept(path, text, limit)
    return done.shown, done.cut


def cut_kept(path: str, text: str, limit: int) -> Cut:
    """``cut``, saying how much of the head and of the tail it kept."""
    if len(text) <= limit:
        return Cut(text, False, len(text), 0)
    marker = _MARKER.format(count="{}", path=path)
    # The marker's own length depends on the number it carries; size it for the worst case.
    room = limit - len(marker.format(len(text)))
    if room <= 0:
        return Cut("", True, 0, 0)
    head = room * 2 // 3
    tail = room - head
    left_out = len(text) - head - tail
    return Cut(text[:head] + marker.format(left_out) + text[len(text) - tail :], True, head, tail)


_MARKER = "\n\n[… hearth cut {count} characters of {path} here …]\n\n"


def marker_span(text: str) -> tuple[int, int] | None:
    """Where the marker of an earlier ``cut`` stands in ``text`` (start, end), or
    None: a text cut twice (the bundle's cap, then a runtime's limit) counts what
    it keeps of the file without the first marker."""
    start = text.find("\n\n[… hearth cut ")
    if start < 0:
        return None
    end = text.find(" here …]\n\n", start)
    return None if end < 0 else (start, end + len(" here …]\n\n"))


_POINTED = re.compile(r"^\s*[-*+]\s.*:\s+see\s+((?:memory/topics|users)/\S+\.md)\s*$", re.M)


def pointed(note: str) -> list[str]:
    """The notes a person note's pointer lines name (``- Garden (Sam): see
    memory/topics/garden-sam.md``, what a consolidation leaves), in order."""
    return list(dict.fromkeys(m.group(1) for m in _POINTED.finditer(note)))


def with_what_is_under(lines: Sequence[str], start: int, end: int) -> int | None:
    """The last line of a recalled passage (lines ``start``..``end``, 1-based,
    of a file's ``lines``): ``end`` when it holds text; for one of headings
    alone (``## Greenhouse`` right before ``### Tomatoes``), the last line of
    what stands under its first heading (its subsections, up to the next
    heading of its level or higher); None when nothing but headings does.
    A heading handed alone says nothing of what the home holds."""
    held = lines[start - 1 : end]
    if any(line.strip() and not _HEADING.match(line) for line in held):
        return end
    first = next((line for line in held if line.strip()), "")
    if not _HEADING.match(first):
        return None
    level = len(first) - len(first.lstrip("#"))
    at = end
    while at < len(lines):
        line = lines[at]
        if _HEADING.match(line) and len(line) - len(line.lstrip("#")) <= level:
            break
        at += 1
    under = lines[end:at]
    if not any(line.strip() and not _HEADING.match(line) for line in under):
        return None
    while at > end and not lines[at - 1].strip():
        at -= 1
    return at


_HEADING = re.compile(r"^#{1,6}\s")


def answering_passages(
    passages: Sequence[Passage],
    wanted: Collection[str],
    terms: excerpt.Terms,
    named: Sequence[Passage] = (),
    names: Collection[str] = (),
) -> list[Passage]:
    """The recall's passages as what a runtime is handed of them: of each hit,
    the lines that answer the prompt (``excerpt``: the whole section when it is
    short or no line holds the prompt's words), each run with its own line
    range, in turns across the hits (``excerpt.in_turns``), best first.

    ``named``: the person notes of the people the prompt names (``names``, as
    terms) and the topic notes their pointer lines name (``pointed``) that no
    hit came from, after the hits: of each, the entries that hold a word of
    the prompt besides the names (``What does Sam do to relax?`` hands
    ``- Sam relaxes by painting`` from ``users/sam.md``), then, once anything
    answered, their other entries in file order, last of all. Nothing is
    handed when no hit and no entry answers.
    """
    per_hit: list[list[excerpt.Unit]] = []
    for passage in passages:
        found = excerpt.answering(passage.text, passage.start_line, wanted, terms)
        if found is None:
            per_hit.append([excerpt.Unit(passage.start_line, passage.end_line, passage.text)])
        else:
            per_hit.append([a.unit for a in found])
    besides = set(wanted) - set(names)
    rest: list[tuple[int, excerpt.Unit]] = []
    for note in named:
        got = excerpt.answering(note.text, note.start_line, besides, terms, named=True) or []
        per_hit.append([a.unit for a in got])
        rest += [
            (len(per_hit) - 1, u) for u in excerpt.entries_besides(note.text, note.start_line, got)
        ]
    every = [*passages, *named]
    order = excerpt.in_turns(per_hit)
    # The rest of what the home holds of the people named, once something
    # answered: after every line that answers, so it only fills what is left.
    return [
        Passage(every[i].path, u.start, u.end, every[i].heading, u.text)
        for i, u in (order + rest if order else [])
    ]


def bundle(
    session: Session,
    texts: Sequence[tuple[str, str | None]],
    file_chars: int,
    total_chars: int,
    query: str | None = None,
    passages: Sequence[Passage] = (),
) -> ContextBundle:
    """Cap each file and the total; ``texts`` are (path, text or None when missing).

    With ``query``, the recall ``passages`` (best first) get a share of the
    budget set aside before the files (at most ``RECALL_CHARS``, and what the
    files leave of it goes back to them): each passage is cut to
    ``PASSAGE_CHARS``, and passages that do not fit are left out, flagged.
    """
    reserve = min(RECALL_CHARS, total_chars // 4) if query else 0
    remaining = total_chars - reserve
    files: list[ContextFile] = []
    for path, text in texts:
        if text is None:
            files.append(ContextFile(path, "", 0, False, True))
            continue
        content, truncated = cut(path, text, min(file_chars, remaining))
        remaining -= len(content)
        files.append(ContextFile(path, content, len(text), truncated, False))
    remaining += reserve
    recall: list[Passage] = []
    left_out = False
    for passage in passages:
        text, cut_here = cut(passage.path, passage.text, min(PASSAGE_CHARS, remaining))
        if not text:
            left_out = True
            break
        remaining -= len(text)
        recall.append(
            Passage(
                passage.path, passage.start_line, passage.end_line, passage.heading, text, cut_here
            )
        )
    return ContextBundle(
        session,
        tuple(files),
        any(f.truncated for f in files) or any(p.truncated for p in recall) or left_out,
        total_chars - remaining,
        query,
        tuple(recall),
    )
