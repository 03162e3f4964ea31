"""The validation rules: one implementation for API writes, the CLI, the
pre-commit hook and ``hearth check``.

Each rule looks at one file (path and text) or at a path alone; every
failure names the file, the rule and how to fix it.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import re
from collections.abc import Callable, Iterable

from hearth.domain import bounds as size_bounds
from hearth.domain import layout, secret_text
from hearth.domain.entries import Entry, list_entries
from hearth.domain.lookalike import alike_groups, daily_name_read, looks_like, reads_as
from hearth.domain.text import NotText, first_hiding, is_invisible, with_article
from hearth.errors import InvalidInput, InvalidRecord, RuleFailure

SOUL_MIN_CHARS = 100

#: Size bounds from hearth.toml's ``[bounds]``.
Bounds = size_bounds.Bounds


_SECRET_NAME_PATTERNS = (".env*", "*.pem", "*.key", "*.p12", "*.pfx")
#: The same, as one regex (``fnmatchcase`` is a match of ``fnmatch.translate``).
_SECRET_NAME = re.compile("|".join(fnmatch.translate(p) for p in _SECRET_NAME_PATTERNS))

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
    hiding = first_hiding(path)
    if hiding is not None and is_invisible(hiding):
        failures.append(
            RuleFailure(
                path,
                "hidden-character",
                f"its name holds {hiding.character}, an invisible character that changes "
                "or hides what a reader sees",
                "rename the file without it",
            )
        )
    persona = looks_like(path, layout.HOT_FILES) if "/" not in path else None
    if persona is not None:
        failures.append(
            RuleFailure(
                path,
                "persona-lookalike",
                f"{path!r} reads as {persona} (it differs only by case or look-alike "
                "letters), so a reader would take one file for the other",
                f"write to {persona} itself, or give this file a name of its own",
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


def check_new_path(path: str, names_in: Callable[[str], Iterable[str]]) -> list[RuleFailure]:
    """The rule on a path a write is about to create: no name that reads as a
    file or folder already beside it (``users/sаm.md``, a Cyrillic а, beside
    ``users/sam.md``), which a reader, or an agent reading a listing, would
    take for it. ``names_in(folder)``: what a folder holds now. A persona file
    is never refused for a look-alike beside it (the look-alike is at fault), and
    a look-alike of one is the ``persona-lookalike`` rule's (``check_path``).

    Nor are hearth's own names: the folders it makes (``layout.hearths_folders_in``)
    and a day's daily note stand beside whatever reads as them, and a new name
    that reads as one of them is refused even before hearth made it, so that an
    early ``memоry/`` (a Cyrillic о) or ``memory/2026-12-O9.md`` (a letter O) never
    makes every later note refused as its look-alike."""
    if "/" not in path and (path in layout.HOT_FILES or looks_like(path, layout.HOT_FILES)):
        return []
    if path.isascii() and layout.daily_note_date(path) is not None:
        return []
    twin = reads_as(path, lambda folder: (*names_in(folder), *layout.hearths_folders_in(folder)))
    if twin is None:
        folder, _, name = path.rpartition("/")
        day = daily_name_read(name) if folder == layout.DAILY_DIR else None
        twin = f"{folder}/{day}" if day is not None else None
    if twin is None:
        return []
    return [
        RuleFailure(
            path,
            "lookalike-name",
            f"{path!r} reads as {twin!r}, which exists or is hearth's own (the names differ "
            "only by case, look-alike letters or invisible characters), so a reader would "
            "take one file for the other",
            f"write to {twin} itself, or give this file a name of its own",
        )
    ]


def lookalike_names(folder: str, names: Iterable[str]) -> list[RuleFailure]:
    """A warning for each set of names in ``folder`` that read as one another
    (``lookalike-name``): a reader takes the files for one, and so may an agent."""
    warnings = []
    for group in alike_groups(names):
        if not folder and set(group) & set(layout.HOT_FILES):
            continue  # the others are the persona-lookalike rule's failures
        paths = [f"{folder}/{name}" if folder else name for name in group]
        warnings.append(
            RuleFailure(
                paths[-1],
                "lookalike-name",
                f"{' and '.join(map(repr, paths))} read as one name (they differ only by "
                "case, look-alike letters or invisible characters), so a reader takes "
                "one file for the other",
                "keep one: merge what the others hold into it, then 'git rm' them "
                "(or 'git mv' one to a name of its own)",
            )
        )
    return warnings


def has_conflict_markers(text: str) -> bool:
    """Whether ``text`` holds an unresolved merge conflict: git's opening,
    middle and closing marker lines, in that order."""
    wanted = ("<<<<<<< ", "=======", ">>>>>>> ")
    if wanted[0] not in text:
        return False  # no line can open a conflict (most files: one look, no split)
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
    failures += _character_rules(path, "", first_hiding(text))
    failures += _front_matter_characters(path, text)
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
    failures += _settings_rule(path, text)
    return failures


def check_settings(text: str) -> list[RuleFailure]:
    """hearth.toml's rule alone: what a running home says of the settings on
    disk, which it read once at its start (a pull may bring ones it cannot read)."""
    return _settings_rule(layout.SETTINGS_PATH, text)


def _settings_rule(path: str, text: str) -> list[RuleFailure]:
    """hearth.toml as hearth reads it: a file it cannot read would stop every
    later command of the home (a running server would go on with the old one)."""
    if path != layout.SETTINGS_PATH:
        return []
    # Only for hearth.toml: a commit of ordinary notes loads no settings or TOML.
    from hearth.domain.settings import parse_settings  # noqa: PLC0415

    try:
        parse_settings(text)
    except InvalidInput as exc:
        return [
            RuleFailure(
                path,
                "settings",
                str(exc),
                "fix what it names (docs/formats.md lists every setting and its values)",
            )
        ]
    return []


def _character_rules(path: str, where: str, found: NotText | None) -> list[RuleFailure]:
    """The failure for a character that is not text or hides (none: [])."""
    if found is None:
        return []
    if is_invisible(found):
        return [
            RuleFailure(
                path,
                "hidden-character",
                f"{where}{found.describe()}, an invisible character that changes or hides "
                "what a reader sees (a bidi override, a zero-width or tag character)",
                "delete the character; text in any language is written without it",
            )
        ]
    return [
        RuleFailure(
            path,
            "control-character",
            f"{where}{found.describe()}, a control character; git and other tools then "
            "take the file for binary",
            "delete the character (tab and newline are the only control characters "
            "allowed, a carriage return only before a newline)",
        )
    ]


def _front_matter_characters(path: str, text: str) -> list[RuleFailure]:
    """The characters rules on front matter values as YAML reads them: a double-quoted
    scalar's escapes (``"\\e"``, ``"\\u202e"``) spell characters the file's own text
    does not hold. Only front matter with a backslash can spell one."""
    if not text.startswith("---"):
        return []
    end = text.find("\n---", 3)
    if "\\" not in text[: end if end > 0 else len(text)]:
        return []
    from hearth.domain import front_matter  # noqa: PLC0415  (see _record_rules)

    try:
        data, _body = front_matter.split_front_matter(text)
    except InvalidRecord:
        return []  # the record rules name a front matter that does not parse
    for name, value in _strings(data, ""):
        found = first_hiding(value)
        if found is not None:
            return _character_rules(path, f"front matter field {name!r}, as YAML reads it: ", found)
    return []


def _strings(value: object, name: str) -> list[tuple[str, str]]:
    """Every string (keys too) inside a parsed YAML value, each with its field name."""
    if isinstance(value, str):
        return [(name, value)]
    if isinstance(value, dict):
        found = []
        for key, item in value.items():
            label = str(key) if not name else f"{name}.{key}"
            found += _strings(key, label) + _strings(item, label)
        return found
    if isinstance(value, list | tuple):
        return [pair for item in value for pair in _strings(item, name)]
    return []


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
    return [
        RuleFailure(
            path,
            "secret-text",
            f"line {line} looks like {with_article(what)}",
            "remove the secret (and rotate it if it was ever shared); "
            "keep credentials outside the home",
        )
        for line, what in secret_text.find(text)
    ]


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
    future = records.future_date(record, dt.datetime.now(dt.UTC))
    if future is not None:
        return [
            RuleFailure(
                path,
                "record-date",
                f"its {future} lies in the future",
                "hearth sets a record's dates when it writes it; remove the field "
                "or give the date it was really written",
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
