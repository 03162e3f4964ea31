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

from hearth.domain.text import SPACE
from hearth.errors import PathRefused

MAX_PATH_CHARS = 1024
MAX_COMPONENT_BYTES = 255

#: Prefix of the temporary files hearth writes before renaming into place.
TEMP_PREFIX = ".hearth-tmp-"

#: Unicode category Cc: the C0 and C1 control characters.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

_EDITOR_TEMP_SUFFIXES = (".swp", ".swx", ".swo", "~", ".tmp", ".part", ".crdownload")

# What ``normalize`` accepts, as a regular expression an OpenAPI or JSON Schema
# ``pattern`` can carry (ECMA-262 syntax, which Python's ``re`` reads the same
# way): the schemas of every surface declare it, ``normalize`` enforces it (with
# its 400 ``path_refused``), and tests/domain/test_input_patterns.py checks that what
# the pattern admits ``normalize`` accepts. It admits the canonical spelling only:
# no empty, ``.`` or ``..`` names (``normalize`` also takes ``a/./b`` and ``a/../b``,
# which it rewrites). A name's bound of MAX_COMPONENT_BYTES in UTF-8 is said in
# characters, by length: up to 63 of any character (4 bytes at most each), 85 of
# the Basic Multilingual Plane (3), 127 of U+07FF and below (2), 255 of ASCII. The
# lengths do not overlap, so one name matches one branch at most (no backtracking
# across branches, which grows exponentially with the number of names).
_NAME_CHAR = r"[^\x00-\x1f\x7f-\x9f/\\]"
_BMP_NAME_CHAR = r"[ -.0-\[\]-~\xa0-\ud7ff\ue000-\uffff]"  # '/' and '\\' left out
_TWO_BYTE_NAME_CHAR = r"[ -.0-\[\]-~\xa0-\u07ff]"
_ASCII_NAME_CHAR = r"[ -.0-\[\]-~]"


def _name(most_bytes: int, min_chars: int = 1) -> str:
    """A name of ``min_chars`` characters or more and at most ``most_bytes`` in UTF-8."""
    any_most, bmp_most, two_most = most_bytes // 4, most_bytes // 3, most_bytes // 2
    return (
        rf"(?:{_NAME_CHAR}{{{min_chars},{any_most}}}"
        rf"|{_BMP_NAME_CHAR}{{{any_most + 1},{bmp_most}}}"
        rf"|{_TWO_BYTE_NAME_CHAR}{{{bmp_most + 1},{two_most}}}"
        rf"|{_ASCII_NAME_CHAR}{{{two_most + 1},{most_bytes}}})"
    )


#: Not '.', '..' or '.git' (in any case).
_NOT_SPECIAL = r"(?!\.\.?(?:/|$)|\.[Gg][Ii][Tt](?:/|$))"
_NAME = _NOT_SPECIAL + _name(MAX_COMPONENT_BYTES)
#: Relative (no leading ``/``, no drive letter ``X:``) and not only white space.
_RELATIVE = rf"(?![\s\S]:)(?![{SPACE}]*$)"

#: A home-relative path as ``normalize`` accepts it (see above); with ``maxLength``
#: MAX_PATH_CHARS. Names separated by one ``/``, a trailing ``/`` allowed.
PATH_PATTERN = rf"^{_RELATIVE}{_NAME}(?:/{_NAME})*/?$"


def path_pattern(suffix: str, refused: str = "") -> str:
    """PATH_PATTERN for a file whose name ends with ``suffix`` (plain text, ASCII), and
    that does not start as the regex ``refused`` does (alternatives of prefixes)."""
    last = _name(MAX_COMPONENT_BYTES - len(suffix), 0) + re.escape(suffix)
    not_refused = f"(?!{refused})" if refused else ""
    return rf"^{not_refused}{_RELATIVE}(?:{_NAME}/)*{last}$"


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
