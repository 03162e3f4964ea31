"""YAML front matter, the fields at the head of a record file between ``---``
lines: split from the body when read, written one field a line.

``records.py`` reads and writes records through these; the validation rules and
the sectioning read a file's fields through ``split_front_matter`` too.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import yaml

from hearth.errors import InvalidRecord

#: libyaml's safe loader when PyYAML was built with it: the same documents, about
#: ten times faster than the pure-Python one (the review page parses every record).
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _OneLineDumper(yaml.SafeDumper):
    """Every field on one line: a value with a line break is double-quoted, its
    breaks written ``\\n``, and no line is ever folded. A value's own line can
    then never read as the ``---`` that closes the front matter (YAML's plain or
    single-quoted styles would write an indented ``  ---`` line, which readers that
    strip lines take for the end): text cannot forge a record's fields."""


def _one_line_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = '"' if any(c in value for c in "\n\r") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_OneLineDumper.add_representer(str, _one_line_str)


def front_matter(fields: dict[str, str]) -> str:
    """The fields as front matter, ``---`` lines included."""
    # The title is always written, even empty (keyed item--<uuid>, as in LionClaw).
    kept = {k: v for k, v in fields.items() if v != "" or k == "title"}
    dumped = yaml.dump(
        kept, Dumper=_OneLineDumper, sort_keys=False, allow_unicode=True, width=2**31 - 1
    )
    return f"---\n{dumped}---\n"


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """Split ``---`` YAML front matter from the body; raise InvalidRecord if absent or bad."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise InvalidRecord("no front matter: the file must start with a '---' line")
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            break
    else:
        raise InvalidRecord("front matter is not closed by a '---' line")
    try:
        data = yaml.load("".join(lines[1:end]), Loader=_SAFE_LOADER)
    except yaml.YAMLError as exc:
        raise InvalidRecord(f"front matter is not valid YAML: {exc}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidRecord("front matter must be a mapping of fields")
    return data, "".join(lines[end + 1 :])


def field_text(data: dict[str, Any], name: str) -> str:
    value = data.get(name, "")
    if value is None:
        return ""
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, dict | list):
        raise InvalidRecord(f"front matter field {name!r} must be text")
    return str(value)
