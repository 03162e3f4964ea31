"""Runtime configuration files as text: JSON with comments, and TOML tables.

Python reads TOML (``tomllib``) but has no writer, and a person's
``config.toml`` carries comments and an order worth keeping, so hearth edits
it as text, one whole table at a time: it appends a table it owns, or takes
out exactly the lines of a table it owns, and leaves every other line as it
was. The caller parses the result to check that nothing else moved.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_HEADER = re.compile(r"^\s*\[")
_CLOSING = re.compile(r"\s*[}\]]")


def toml_key(part: str) -> str:
    return part if _BARE_KEY.match(part) else json.dumps(part, ensure_ascii=False)


def toml_value(value: object) -> str:
    """A string, number, boolean or list of those as TOML (JSON's string escapes
    are TOML's basic-string escapes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def toml_header(key: Sequence[str]) -> str:
    return "[" + ".".join(toml_key(part) for part in key) + "]"


def _header_key(line: str) -> str:
    """A table header line with the spaces around its dots taken out."""
    return re.sub(r"\s*\.\s*", ".", line.strip())


def without_table(text: str, key: Sequence[str]) -> str:
    """``text`` without the table ``key``: its header line and every line up to
    the next header (its keys, and the blank lines and comments among them)."""
    header = toml_header(key)
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    skipping = False
    for line in lines:
        if _HEADER.match(line):
            skipping = _header_key(line) == header
            if skipping:
                # A blank line hearth put before the table goes with it.
                if out and out[-1].strip() == "":
                    out.pop()
                continue
        if not skipping:
            out.append(line)
    return "".join(out)


def with_table(text: str, key: Sequence[str], values: Mapping[str, object]) -> str:
    """``text`` with the table ``key`` holding exactly ``values``, at the end of
    the file (replacing the table if it was there)."""
    rest = without_table(text, key)
    block = [toml_header(key), *(f"{toml_key(k)} = {toml_value(v)}" for k, v in values.items())]
    if rest and not rest.endswith("\n"):
        rest += "\n"
    return rest + ("\n" if rest.strip() else "") + "\n".join(block) + "\n"


# -- JSON with comments (opencode.jsonc) -----------------------------------------------


def strip_jsonc(text: str) -> tuple[str, bool]:
    """JSON from JSON with comments and trailing commas, and whether it had
    comments (which writing the file back would lose)."""
    plain, commented = _scan(text, drop_commas=False)
    return _scan(plain, drop_commas=True)[0], commented


def _scan(text: str, *, drop_commas: bool) -> tuple[str, bool]:
    """One pass outside strings: take out comments, or commas before a closing bracket."""
    out: list[str] = []
    i, n = 0, len(text)
    commented = False
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif not drop_commas and text.startswith("//", i):
            commented = True
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif not drop_commas and text.startswith("/*", i):
            commented = True
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif drop_commas and c == "," and _CLOSING.match(text, i + 1):
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out), commented
