"""The validation rules: one implementation for API writes, the CLI, the
pre-commit hook and ``hearth check``.

Each rule looks at one file (path and text) or at a path alone; every
failure names the file, the rule and how to fix it.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from hearth.domain import layout
from hearth.domain.entries import Entry, list_entries
from hearth.domain.text import first_not_text, with_article
from hearth.errors import InvalidRecord, RuleFailure

SOUL_MIN_CHARS = 100


@dataclass(frozen=True)
class Bounds:
    """Size bounds, in characters, from hearth.toml's ``[bounds]``."""

    user_md: int = 8_000
    memory_md: int = 20_000
    #: Person notes ``users/<id>.md``; hearth.toml's default is ``user_md``.
    user_note: int = 8_000


_SECRET_NAME_PATTERNS = (".env*", "*.pem", "*.key", "*.p12", "*.pfx")
#: The same, as one regex (``fnmatchcase`` is a match of ``fnmatch.translate``).
_SECRET_NAME = re.compile("|".join(fnmatch.translate(p) for p in _SECRET_NAME_PATTERNS))

# (what it is, a character every match contains, literals one of which every match
# contains, pattern). Kept specific so ordinary prose never matches. The character
# and the literals are cheap prefilters: most text holds none of the literals, and
# ``in`` on a str is far faster than a regex scan; the three characters are looked
# for first (a search for one character stops at its first hit), so a text without
# ``_`` (say) is not searched for the seven literals that hold one.
_SECRET_TEXT_PATTERNS = (
    (
        "private key block",
        "-",
        ("-----BEGIN ",),
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
    ),
    ("AWS access key id", "A", ("AKIA", "ASIA"), re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    (
        "GitHub token",
        "_",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})"),
    ),
    ("GitLab token", "-", ("glpat-",), re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("Slack token", "-", ("xox",), re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("Google API key", "A", ("AIza",), re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    (
        "OpenAI/Anthropic API key",
        "-",
        ("sk-",),
        re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{32,}"),
    ),
    ("Stripe secret key", "_", ("k_live_",), re.compile(r"\b[rs]k_live_[A-Za-z0-9]{20,}")),
)
#: Every pattern's character, each looked for once a text.
_SECRET_CHARACTERS = "".join(dict.fromkeys(c for _w, c, _l, _p in _SECRET_TEXT_PATTERNS))
# ``**Name:** X`` or ``**Name**: X``, optionally as a list item, with the value on
# the same line: only spaces and tabs may come between the label and the value.
_IDENTITY_NAME = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?\*\*Name(?::\*\*|\*\*:)[ \t]*[^\s]", re.MULTILINE
)


def has_identity_name(text: str) -> bool:
    """True when IDENTITY.md's text names the assistant (the identity rule)."""
    return bool(_IDENTITY_NAME.search(text.removeprefix("\ufeff")))


def check_path(path: str) -> list[RuleFailure]:
    """Rules that depend on the path alone."""
    failures = []
    name = path.rsplit("/", 1)[-1]
    if _SECRET_NAME.match(name.lower()):
        failures.append(
            RuleFailure(
                path,
                "secret-file",
                f"files named like {name!r} hold credentials and must never enter history",
                "remove it from the home (or from the commit with 'git rm --cached')",
            )
        )
    if path == layout.ACTIVE_PATH:
        failures.append(
            RuleFailure(
                path,
                "active-generated",
                "continuity/ACTIVE.md is generated and never committed",
                "unstage it with 'git rm --cached continuity/ACTIVE.md'",
            )
        )
    return failures


def has_conflict_markers(text: str) -> bool:
    """Whether ``text`` holds an unresolved merge conflict: git's opening,
    middle and closing marker lines, in that order."""
    wanted = ("<<<<<<< ", "=======", ">>>>>>> ")
    at = 0
    for raw in text.split("\n"):
        line = raw.rstrip("\r")
        if line.startswith(wanted[at]) and (at != 1 or line == wanted[1]):
            at += 1
            if at == len(wanted):
                return True
    return False


def check_text(path: str, text: str, bounds: Bounds) -> list[RuleFailure]:
    """Rules on one file's content (path rules included)."""
    # A byte-order mark is an encoding detail, never content a rule should see.
    text = text.removeprefix("\ufeff")
    failures = check_path(path)
    failures += _secret_text(path, text)
    found = first_not_text(text)
    if found is not None:
        failures.append(
            RuleFailure(
                path,
                "control-character",
                f"{found.describe()}, a control character; git and other tools then "
                "take the file for binary",
                "delete the character (tab and newline are the only control characters "
                "allowed, a carriage return only before a newline)",
            )
        )
    if has_conflict_markers(text):
        failures.append(
            RuleFailure(
                path,
                "conflict-markers",
                "the file holds a merge's conflict markers ('<<<<<<<', '=======', "
                "'>>>>>>>'): two versions of its text are still side by side",
                "keep what you want from each version, delete the marker lines, "
                "then 'git add' the file",
            )
        )
    if path == "SOUL.md" and len(text.strip()) < SOUL_MIN_CHARS:
        failures.append(
            RuleFailure(
                path,
                "soul-length",
                f"SOUL.md has {len(text.strip())} characters; it needs at least {SOUL_MIN_CHARS}",
                "describe the assistant's character, values and voice in a few sentences",
            )
        )
    if path == "IDENTITY.md" and not has_identity_name(text):
        failures.append(
            RuleFailure(
                path,
                "identity-name",
                "IDENTITY.md has no name: no '**Name:**' line with a value on the same line",
                "write the name right after the label, e.g. '**Name:** Ember' or "
                "'- **Name**: Ember'",
            )
        )
    limit = _bound(path, bounds)
    if limit is not None and len(text) > limit:
        failures.append(
            RuleFailure(
                path,
                "size-bound",
                f"{path} has {len(text)} characters, over its bound of {limit}",
                "move older material to memory/topics/ or raise [bounds] in hearth.toml"
                + _movable(text, len(text) - limit),
            )
        )
    failures += _record_rules(path, text)
    return failures


#: What a moved entry leaves behind: a one-line pointer to its topic note.
POINTER_CHARS = 60


def _movable(text: str, excess: int) -> str:
    """Which entries could go to a topic note to bring the file within its bound:
    repeated ones first, then the oldest (entries are appended, so first is oldest),
    counting the pointer each leaves. "" when moving entries would not do it."""
    held = list_entries(text)
    seen: set[str] = set()
    repeated: list[Entry] = []
    rest: list[Entry] = []
    for entry in held:
        (repeated if entry.text in seen else rest).append(entry)
        seen.add(entry.text)
    chosen: list[Entry] = []
    freed = 0
    for entry in (*repeated, *rest):
        if freed >= excess:
            break
        kept = 0 if entry in repeated else POINTER_CHARS
        if len(entry.text) + 3 > kept:
            chosen.append(entry)
            freed += len(entry.text) + 3 - kept
    if freed < excess or not chosen:
        return ""
    numbers = ", ".join(f"#{e.number}" for e in chosen[:6])
    more = f" and {len(chosen) - 6} more" if len(chosen) > 6 else ""
    return f"; entries that could move (repeated, then oldest): {numbers}{more}"


def _bound(path: str, bounds: Bounds) -> int | None:
    if path == "USER.md":
        return bounds.user_md
    if path == "MEMORY.md":
        return bounds.memory_md
    return bounds.user_note if layout.user_id_of(path) is not None else None


def bound_of(path: str, bounds: Bounds) -> int | None:
    """The size bound of ``path`` in characters (USER.md, MEMORY.md, person notes), or None."""
    return _bound(path, bounds)


def uses_bounds(path: str) -> bool:
    """Whether the rules for ``path`` read hearth.toml's ``[bounds]`` at all."""
    return _bound(path, Bounds()) is not None


def check_blob(path: str, data: bytes, bounds: Bounds) -> list[RuleFailure]:
    """Rules on raw bytes: text files are checked as text, others by path."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        failures = check_path(path)
        if path.endswith(".md") or path in layout.HOT_FILES:
            failures.append(
                RuleFailure(path, "utf-8", "the file is not valid UTF-8", "save it as UTF-8")
            )
        return failures
    return check_text(path, text, bounds)


def _secret_text(path: str, text: str) -> list[RuleFailure]:
    failures: list[RuleFailure] = []
    present = [c for c in _SECRET_CHARACTERS if c in text]
    if not present:
        return failures
    for what, character, literals, pattern in _SECRET_TEXT_PATTERNS:
        if character not in present:
            continue
        for literal in literals:
            if literal in text:
                break
        else:
            continue
        match = pattern.search(text)
        if match:
            line = text.count("\n", 0, match.start()) + 1
            failures.append(
                RuleFailure(
                    path,
                    "secret-text",
                    f"line {line} looks like {with_article(what)}",
                    "remove the secret (and rotate it if it was ever shared); "
                    "keep credentials outside the home",
                )
            )
    return failures


def _record_rules(path: str, text: str) -> list[RuleFailure]:
    location = layout.record_location(path)
    if location is None:
        return []
    kind, archived = location
    # Imported here, not at the top: the pre-commit hook starts Python for every
    # commit, and most commits hold no record.
    from hearth.domain import lionclaw, records  # noqa: PLC0415

    try:
        record = records.parse(kind, text)
    except InvalidRecord as exc:
        return [
            RuleFailure(
                path,
                "record-parse",
                exc.message,
                "fix the front matter (or LionClaw's '# Title' and '- Key:' lines)",
            )
        ]
    stem = path.rsplit("/", 1)[-1][: -len(".md")]
    key = records.key_of_archive_stem(stem) if archived else stem
    # A key from an older hearth release is accepted ('hearth check --fix-keys'
    # renames it); see domain/keys.py.
    if key not in (record.key, records.legacy_record_key(record.title)):
        return [
            RuleFailure(
                path,
                "record-key",
                f"the file name does not match its title (expected {record.key}.md)",
                "rename the file to match the title, or restore the original title",
            )
        ]
    if record.style == "lionclaw":
        named = lionclaw.metadata_value(text, "Key")
        if named != f"{key}.md":
            return [
                RuleFailure(
                    path,
                    "record-key",
                    f"its '- Key:' line says {named or 'nothing'}, not {key}.md "
                    "(LionClaw manages a record only when they agree)",
                    f"set the line to '- Key: {key}.md'",
                )
            ]
    return []
