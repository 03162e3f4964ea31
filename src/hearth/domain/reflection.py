"""Reflection: what a configured command is given, and what hearth accepts back.

A person may name a command in ``hearth.toml`` (``[reflection] command``) that
distils recent daily entries into proposed long-term memory: a local LLM CLI,
an agent runtime, a script. hearth hands it a JSON bundle on standard input
and reads JSON from its standard output::

    in:  {"since", "entries": [{"path", "heading", "text"}],
          "memory": {"path", "text", "entries"}, "user": {...},
          "pending": [{"key", "title", "entries"}]}
    out: {"proposals": [{"title", "entries": [...], "rationale"?, "target"?}]}

The output is checked whole before anything is written: unknown keys (an
attempt to remove or replace entries, say), the wrong types, too many
proposals or entries, or overlong text refuse the run. What survives becomes
ordinary proposals for a person to review (source ``reflection``): reflection
never edits a memory file. Entries the home already holds, or a pending
proposal holds, the same or nearly the same are dropped (``app/reflection.py``
asks review's matcher), so running it twice proposes nothing new.

Pure: settings, bundles and outputs in; dataclasses out.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from typing import Any

from hearth.domain import keys
from hearth.errors import InvalidInput

MAX_PROPOSALS = 20
MAX_ENTRIES = 20
MAX_TITLE_CHARS = keys.MAX_TITLE_CHARS
MAX_ENTRY_CHARS = 2000
MAX_RATIONALE_CHARS = 2000
#: Largest output read from the command, in bytes.
MAX_OUTPUT_BYTES = 256 * 1024
_DURATION = re.compile(r"^\s*(\d+)\s*(s|m|h|d)?\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class ReflectionSettings:
    command: tuple[str, ...] = ()
    every_seconds: int = 4 * 3600
    timeout_seconds: int = 120

    @property
    def enabled(self) -> bool:
        return bool(self.command)


#: How a person approves the command on this machine (``store/trust.py``).
APPROVE_COMMAND = "hearth reflect --approve"


def shown_command(argv: tuple[str, ...]) -> str:
    """``argv`` as one line a person can read: shell-quoted, control characters
    escaped (it came from a file a remote may have written)."""
    text = shlex.join(argv)
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def waiting_note(argv: tuple[str, ...]) -> str:
    """What status says while the command waits for this machine's approval."""
    return (
        f"the [reflection] command in hearth.toml ({shown_command(argv)}) has not been approved "
        f"on this machine, so it does not run; if you trust it, run '{APPROVE_COMMAND}'"
    )


#: ACTIVE.md's line: the command itself stays out (agents read ACTIVE.md, and a
#: remote wrote the command).
WAITING_ATTENTION = (
    "the [reflection] command in hearth.toml has not been approved on this machine and "
    f"does not run ('hearth status' shows it; '{APPROVE_COMMAND}' approves it)"
)


def reflection_status(
    settings: ReflectionSettings, approved: bool, last: dict[str, object]
) -> dict[str, object]:
    """``status``'s ``reflection``: whether a command is set, whether this machine
    approved it (``approved``; while not, what to do), and the last run."""
    return {
        "enabled": settings.enabled,
        "command": list(settings.command) or None,
        "approved": approved,
        "waiting": waiting_note(settings.command) if settings.enabled and not approved else None,
        "last": last or None,
    }


@dataclass(frozen=True)
class ProposedMemory:
    title: str
    entries: tuple[str, ...]
    rationale: str = ""
    target: str | None = None


def parse_duration(value: object, name: str) -> int:
    """``"4h"``, ``"90m"``, ``"120s"``, ``"1d"`` or a number of seconds."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    match = _DURATION.match(value) if isinstance(value, str) else None
    if match is None or int(match.group(1)) <= 0:
        raise InvalidInput(
            f"hearth.toml: [reflection] {name} must be a duration like '4h', '30m' or '120s'"
        )
    return int(match.group(1)) * _UNITS[match.group(2) or "s"]


def parse_reflection_settings(table: dict[str, Any]) -> ReflectionSettings:
    unknown = set(table) - {"command", "every", "timeout"}
    if unknown:
        raise InvalidInput(
            f"hearth.toml: [reflection] has unknown keys: {', '.join(sorted(unknown))}"
        )
    command = table.get("command", "")
    if not isinstance(command, str):
        raise InvalidInput("hearth.toml: [reflection] command must be a string")
    try:
        argv = tuple(shlex.split(command))
    except ValueError as exc:
        raise InvalidInput(f"hearth.toml: [reflection] command does not parse: {exc}") from exc
    defaults = ReflectionSettings()
    return ReflectionSettings(
        command=argv,
        every_seconds=parse_duration(table.get("every", defaults.every_seconds), "every"),
        timeout_seconds=parse_duration(table.get("timeout", defaults.timeout_seconds), "timeout"),
    )


def _text(item: dict[str, Any], name: str, limit: int, where: str, *, required: bool) -> str:
    value = item.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise InvalidInput(f"{where}: '{name}' must be a non-empty string")
    if len(value) > limit:
        raise InvalidInput(f"{where}: '{name}' is over {limit} characters")
    return " ".join(value.split())


def parse_output(raw: bytes) -> list[ProposedMemory]:
    """The command's answer, checked whole; InvalidInput names what is wrong."""
    if len(raw) > MAX_OUTPUT_BYTES:
        raise InvalidInput(f"the output is over {MAX_OUTPUT_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidInput(f"the output is not JSON: {exc}") from exc
    if not isinstance(data, dict) or set(data) != {"proposals"}:
        raise InvalidInput(
            "the output must be one JSON object with only 'proposals' "
            "(reflection proposes entries; it never removes or replaces them)"
        )
    items = data["proposals"]
    if not isinstance(items, list) or len(items) > MAX_PROPOSALS:
        raise InvalidInput(f"'proposals' must be a list of at most {MAX_PROPOSALS}")
    found = []
    for n, item in enumerate(items, 1):
        where = f"proposal {n}"
        if not isinstance(item, dict):
            raise InvalidInput(f"{where} is not an object")
        unknown = set(item) - {"title", "entries", "rationale", "target"}
        if unknown:
            raise InvalidInput(
                f"{where} has unknown keys ({', '.join(sorted(unknown))}); "
                "reflection only proposes entries"
            )
        entries = item.get("entries")
        if not isinstance(entries, list) or not entries or len(entries) > MAX_ENTRIES:
            raise InvalidInput(f"{where}: 'entries' must be a list of 1 to {MAX_ENTRIES} strings")
        cleaned = []
        for entry in entries:
            if not isinstance(entry, str) or not entry.strip() or len(entry) > MAX_ENTRY_CHARS:
                raise InvalidInput(f"{where}: every entry must be a string of 1 to 2000 characters")
            cleaned.append(" ".join(entry.split()))
        target = item.get("target")
        if target is not None and not isinstance(target, str):
            raise InvalidInput(f"{where}: 'target' must be a path")
        found.append(
            ProposedMemory(
                title=_text(item, "title", MAX_TITLE_CHARS, where, required=True),
                entries=tuple(dict.fromkeys(cleaned)),
                rationale=_text(item, "rationale", MAX_RATIONALE_CHARS, where, required=False),
                target=target or None,
            )
        )
    return found
