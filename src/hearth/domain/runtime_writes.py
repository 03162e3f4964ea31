"""Committing what a runtime's agent writes with its own file tools: the setting
(``[runtimes.<name>]`` in hearth.toml) and which paths it names.

OpenClaw's agent writes its daily notes, MEMORY.md and USER.md into its
workspace with generic file tools, and its dreaming writes DREAMS.md. With
``commit_writes = true`` the served home commits those files once they have
been quiet for ``settle_seconds`` (``app/served/runtime_writes.py``); only files the
patterns name, and never a file the patterns could not name (hearth's settings,
git's files, ACTIVE.md, anything but markdown). docs/runtimes.md has the exact
semantics.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any

from hearth.domain import layout
from hearth.errors import InvalidInput

#: The runtimes whose own writes a home can commit, and who those commits are by.
RUNTIMES = ("openclaw",)
#: What OpenClaw's agent, its memory flush and its dreaming write into the workspace
#: (its docs: concepts/memory.md, concepts/dreaming.md).
OPENCLAW_PATHS = (
    "MEMORY.md",
    "USER.md",
    "DREAMS.md",
    "memory/*.md",
    "memory/dreaming/*/*.md",
)
DEFAULT_SETTLE_SECONDS = 2.0
MAX_SETTLE_SECONDS = 3600.0


@dataclass(frozen=True)
class RuntimeWrites:
    """One runtime's ``[runtimes.<name>]`` table."""

    runtime: str
    commit_writes: bool = False
    #: Glob patterns, one path segment per ``*`` (``memory/*.md`` is not ``memory/a/b.md``).
    paths: tuple[str, ...] = OPENCLAW_PATHS
    settle_seconds: float = DEFAULT_SETTLE_SECONDS

    @property
    def actor(self) -> str:
        return self.runtime

    def names(self, path: str) -> bool:
        """Whether ``path`` (home-relative, ``/``-separated) is one of the runtime's."""
        if not _allowed(path):
            return False
        return any(_matches(pattern, path) for pattern in self.paths)

    def folders(self) -> set[str]:
        """The folders a pattern reaches into (``memory`` for ``memory/*.md``), so a
        scan knows where to look."""
        found = set()
        for pattern in self.paths:
            parts = pattern.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                found.add("/".join(parts[:i]))
        return found


def _matches(pattern: str, path: str) -> bool:
    wanted, parts = pattern.split("/"), path.split("/")
    return len(wanted) == len(parts) and all(
        fnmatch.fnmatchcase(part, glob) for part, glob in zip(parts, wanted, strict=True)
    )


def _allowed(path: str) -> bool:
    """Never hearth's settings or derived files, git's, or anything but markdown."""
    parts = path.split("/")
    return (
        path.endswith(".md")
        and path != layout.ACTIVE_PATH
        and not any(p in ("", ".", "..") or p.startswith(".") for p in parts)
    )


def parse_runtime_writes(table: dict[str, Any]) -> tuple[RuntimeWrites, ...]:
    """The ``[runtimes]`` table of hearth.toml: one table per runtime."""
    found = []
    for name, values in table.items():
        where = f"hearth.toml: [runtimes.{name}]"
        if name not in RUNTIMES:
            raise InvalidInput(
                f"hearth.toml: [runtimes] names {name!r}; hearth commits the writes of "
                f"{', '.join(RUNTIMES)} only"
            )
        if not isinstance(values, dict):
            raise InvalidInput(f"{where} must be a table")
        unknown = set(values) - {"commit_writes", "paths", "settle_seconds"}
        if unknown:
            raise InvalidInput(f"{where} has unknown keys: {', '.join(sorted(unknown))}")
        commit = values.get("commit_writes", False)
        if not isinstance(commit, bool):
            raise InvalidInput(f"{where} commit_writes must be true or false")
        paths = values.get("paths", list(OPENCLAW_PATHS))
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise InvalidInput(f"{where} paths must be a list of path patterns")
        for pattern in paths:
            if not _allowed(pattern.replace("*", "x").replace("?", "x")):
                raise InvalidInput(
                    f"{where} paths: {pattern!r} is not a markdown path of the home "
                    "(relative, no hidden or parent folders, not continuity/ACTIVE.md)"
                )
        settle = values.get("settle_seconds", DEFAULT_SETTLE_SECONDS)
        if (
            isinstance(settle, bool)
            or not isinstance(settle, int | float)
            or not 0 < settle <= MAX_SETTLE_SECONDS
        ):
            raise InvalidInput(
                f"{where} settle_seconds must be a number of seconds above 0 and at most "
                f"{MAX_SETTLE_SECONDS:.0f}"
            )
        found.append(RuntimeWrites(name, commit, tuple(paths), float(settle)))
    return tuple(found)
