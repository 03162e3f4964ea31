"""The context bundle: the hot files a runtime loads every turn, bounded.

Principle 4 (small hot path): what is loaded every turn is bounded, and when
it is cut the runtime is told so. Each file is capped; a cut keeps the head
and the tail (where the newest entries of a memory file are) with a marker in
the middle that names the file and how much was left out. The whole bundle is
capped too; files late in the order get what is left, and a file that gets
nothing is still listed, marked truncated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from hearth.domain import layout

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


def hot_files(session: Session) -> tuple[str, ...]:
    return MAIN_FILES if session == "main" else SUBAGENT_FILES


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

    def as_dict(self) -> dict[str, object]:
        return {
            "session": self.session,
            "truncated": self.truncated,
            "total_chars": self.total_chars,
            "files": [f.__dict__.copy() for f in self.files],
        }


def cut(path: str, text: str, limit: int) -> tuple[str, bool]:
    """``text`` within ``limit`` characters, keeping head and tail around a marker."""
    if len(text) <= limit:
        return text, False
    marker = f"\n\n[… hearth cut {{}} characters of {path} here …]\n\n"
    # The marker's own length depends on the number it carries; size it for the worst case.
    room = limit - len(marker.format(len(text)))
    if room <= 0:
        return "", True
    head = room * 2 // 3
    tail = room - head
    left_out = len(text) - head - tail
    return text[:head] + marker.format(left_out) + text[len(text) - tail :], True


def bundle(
    session: Session,
    texts: Sequence[tuple[str, str | None]],
    file_chars: int,
    total_chars: int,
) -> ContextBundle:
    """Cap each file and the total; ``texts`` are (path, text or None when missing)."""
    remaining = total_chars
    files: list[ContextFile] = []
    for path, text in texts:
        if text is None:
            files.append(ContextFile(path, "", 0, False, True))
            continue
        content, truncated = cut(path, text, min(file_chars, remaining))
        remaining -= len(content)
        files.append(ContextFile(path, content, len(text), truncated, False))
    return ContextBundle(
        session,
        tuple(files),
        any(f.truncated for f in files),
        total_chars - remaining,
    )
