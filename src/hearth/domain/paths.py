"""Home-relative paths: the one normalization every surface goes through.

A path that reaches the store is relative to the home, uses ``/``, has no
empty, ``.`` or ``..`` components, does not enter ``.git`` and carries no
control characters. Symlinks cannot be judged here (that needs the file
system); the rooted file layer refuses them.

Temporary files hearth writes are named here, once, so the reconciler and
the writer agree on them without knowing each other.
"""

from __future__ import annotations

import re

from hearth.errors import PathRefused

MAX_PATH_CHARS = 1024
MAX_COMPONENT_BYTES = 255

#: Prefix of the temporary files hearth writes before renaming into place.
TEMP_PREFIX = ".hearth-tmp-"

#: Unicode category Cc: the C0 and C1 control characters.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

_EDITOR_TEMP_SUFFIXES = (".swp", ".swx", ".swo", "~", ".tmp", ".part", ".crdownload")


def normalize(path: str) -> str:
    """Return the canonical home-relative form of ``path`` or raise PathRefused."""
    if not isinstance(path, str) or not path.strip():
        raise PathRefused("empty path; give a path relative to the home, e.g. MEMORY.md")
    if len(path) > MAX_PATH_CHARS:
        raise PathRefused(f"path longer than {MAX_PATH_CHARS} characters")
    if _CONTROL.search(path):
        raise PathRefused("path contains a control character (NUL, newline, ...)")
    if "\\" in path:
        raise PathRefused(f"{path!r} contains a backslash; use '/' between folders")
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise PathRefused(f"{path!r} is absolute; give a path relative to the home")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise PathRefused(f"{path!r} climbs out of the home with '..'")
            parts.pop()
            continue
        problem = name_problem(part)
        if problem:
            raise PathRefused(f"{path!r}: {problem}")
        parts.append(part)
    if not parts:
        raise PathRefused(f"{path!r} names the home itself, not a file in it")
    return "/".join(parts)


def name_problem(name: str) -> str | None:
    """Why one file or folder name (no ``/``) is refused, or None if it is fine."""
    if len(name) * 4 > MAX_COMPONENT_BYTES and (
        len(name.encode("utf-8", "surrogatepass")) > MAX_COMPONENT_BYTES
    ):
        return f"a component is longer than {MAX_COMPONENT_BYTES} bytes"
    if _CONTROL.search(name):
        return "a name contains a control character (NUL, newline, ...)"
    if "\\" in name:
        return "a name contains a backslash; use '/' between folders"
    if name.casefold() == ".git":
        return "it enters .git, which hearth never reads or writes"
    return None


def is_temporary(name: str) -> bool:
    """True for hearth's own temp files and the usual editor swap/backup files."""
    base = name.rsplit("/", 1)[-1]
    return (
        base.startswith(TEMP_PREFIX)
        or base.startswith(".#")
        or base == "4913"
        or (base.startswith("#") and base.endswith("#"))
        or base.endswith(_EDITOR_TEMP_SUFFIXES)
    )
