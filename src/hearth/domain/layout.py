"""Where things live in a home, and what kind of thing a path is."""

from __future__ import annotations

import datetime as dt
import re
import typing
from dataclasses import dataclass
from typing import Literal

from hearth.domain.paths import path_pattern

HOT_FILES = (
    "AGENTS.md",
    "SOUL.md",
    "IDENTITY.md",
    "USER.md",
    "MEMORY.md",
    "TOOLS.md",
    "HEARTBEAT.md",
    "BOOTSTRAP.md",
)
SETTINGS_PATH = "hearth.toml"
CONTINUITY_DIR = "continuity"
ACTIVE_PATH = "continuity/ACTIVE.md"
DAILY_DIR = "memory"
LIONCLAW_DAILY_DIR = "continuity/daily"
TOPICS_DIR = "memory/topics"
LOOPS_DIR = "continuity/open-loops"
PROPOSALS_DIR = "continuity/proposals/memory"
DECISIONS_DIR = "continuity/decisions"
CONFLICTS_DIR = "continuity/conflicts"
#: Entry-sized conflicts of the entry-by-entry merge (``domain/entry_merge.py``).
ENTRY_CONFLICTS_DIR = "continuity/conflicts/entries"
ARTIFACTS_DIR = "continuity/artifacts"
ROLLUPS_DIR = "continuity/rollups"
#: Entries replaced by a newer version of the same fact, one record each
#: (``domain/facts.py``): history, set aside from search as archives are.
SUPERSEDED_DIR = "continuity/superseded"
DEFAULT_PROPOSAL_TARGET = "MEMORY.md"

# Local state in .git/hearth/ that separate programs meet at (the hook shims in
# hooks/ spell the same names in shell).
#: A running server's address and pid; the git hooks read it.
SERVER_FILE = "server.json"
#: The git hooks hearth installs (their shims call the server or ``hearth hook NAME``).
HOOK_NAMES = ("pre-commit", "post-commit", "post-merge", "post-checkout", "post-rewrite")
#: Touched by the git hooks that may change many files (merge, checkout,
#: rewrite); a running server's watcher answers with a full pass.
NUDGE_PATH = ".git/hearth/nudge"
#: Touched by the post-commit hook: a commit changes no file in the work tree,
#: so the watcher answers with a pass over the files the commit changed.
COMMIT_NUDGE_PATH = ".git/hearth/nudge-commit"

GITIGNORE = f"""\
# Written by hearth init. Generated state never enters history.
/{ACTIVE_PATH}
.hearth-tmp-*
*.swp
*~
"""

RecordKind = Literal["proposal", "loop", "decision"]
Kind = Literal[
    "persona",
    "daily",
    "topic",
    "proposal",
    "loop",
    "decision",
    "archive",
    "rollup",
    "artifact",
    "other",
]
KINDS: tuple[Kind, ...] = typing.get_args(Kind)


# -- daily notes -----------------------------------------------------------------
#
# Two layouts, both daily notes wherever they are found (kind ``daily``, ACTIVE.md's
# Today, rollups, the entry-by-entry merge on sync); ``hearth.toml``'s
# ``[daily] layout`` says where ``note`` appends, and init picks ``lionclaw`` for a
# folder that already has LionClaw's ``continuity/daily/``.
#   hearth:   memory/YYYY-MM-DD.md                      entries "## HH:MM UTC — title"
#   lionclaw: continuity/daily/YYYY/MM/YYYY-MM-DD.md    entries "## HH:MM UTC - title"

DailyLayout = Literal["hearth", "lionclaw"]
DAILY_LAYOUTS: tuple[DailyLayout, ...] = typing.get_args(DailyLayout)

#: gitattributes-style patterns (``*`` never crosses ``/``) of the files that are
#: daily notes, in either layout: what ``is_daily_note`` accepts, for a merge driver.
DAILY_NOTE_PATTERNS = (f"{DAILY_DIR}/*.md", f"{LIONCLAW_DAILY_DIR}/*/*/*.md")

_DAILY_NOTE = re.compile(
    rf"^(?:{re.escape(DAILY_DIR)}|{re.escape(LIONCLAW_DAILY_DIR)}/[^/]+/[^/]+)/[^/]+\.md$"
)
_DATED_NOTE = re.compile(
    rf"^(?:{re.escape(DAILY_DIR)}|{re.escape(LIONCLAW_DAILY_DIR)}/(\d{{4}})/(\d{{2}}))/"
    r"(\d{4})-(\d{2})-(\d{2})\.md$"
)


def is_daily_note(path: str) -> bool:
    """True for a daily note in either layout (a file matching DAILY_NOTE_PATTERNS)."""
    return bool(_DAILY_NOTE.match(path))


#: The persona and memory files that are the person's word about themselves and
#: the assistant (with ``users/<id>.md``): restoring one is the person's act, and
#: every agent's change to one is listed for the person to see and undo. Every
#: hot file is one: a runtime loads each at session start (TOOLS.md even into a
#: subagent's bundle), so an agent's line there steers every later session.
PERSONS_FILES = HOT_FILES


def is_persons_file(path: str) -> bool:
    """Whether the normalized ``path`` is a persona or memory file (``PERSONS_FILES``
    or a person note ``users/<id>.md``)."""
    return path in PERSONS_FILES or (
        path.startswith("users/") and path.endswith(".md") and path.count("/") == 1
    )


#: Markdown that agent runtimes load as their own instructions when the home is
#: their workspace or project, beside the persona files: OpenClaw's workspace
#: skills (``skills/**/SKILL.md``, over its bundled ones of the same name) and
#: Claude Code's and Gemini CLI's project instructions.
RUNTIME_FILES = ("CLAUDE.md", "CLAUDE.local.md", "GEMINI.md")
RUNTIME_DIRS = ("skills",)


def is_runtime_file(path: str) -> bool:
    """Whether the normalized ``path`` is markdown a runtime loads as instructions
    or settings (``RUNTIME_FILES``, under ``RUNTIME_DIRS``, or in a hidden folder
    such as ``.agents/skills/``, ``.claude/commands/`` or ``.cursor/rules/``): a
    write token may write it as any markdown, and every agent change to it is
    listed for the person as a persona file's is (``store/agent_changes.py``)."""
    if not path.endswith(".md"):
        return False
    folders = path.split("/")[:-1]
    return (
        path in RUNTIME_FILES
        or (bool(folders) and folders[0] in RUNTIME_DIRS)
        or any(name.startswith(".") for name in folders)
    )


def is_memory_note(path: str) -> bool:
    """Whether the normalized ``path`` is a note of memory: a markdown file under
    memory/ (daily notes, topics) or a daily note in LionClaw's layout. An agent
    writes these as it works; what it takes back or rewrites in one is listed
    for the person (``store/agent_changes.py``)."""
    return path.endswith(".md") and (path.startswith(DAILY_DIR + "/") or is_daily_note(path))


#: Files that never take memory entries (nor a proposal's): the persona's core.
NO_ENTRY_FILES = ("SOUL.md", "IDENTITY.md")


def takes_entries(path: str) -> bool:
    """Whether memory entries (and a proposal's) may go to the normalized ``path``:
    a markdown file outside continuity/, not a daily note, not in NO_ENTRY_FILES.
    Judged with case folded: on a file system that folds case (macOS, Windows)
    ``Continuity/open-loops/x.md`` is the person's loop and ``soul.md`` is SOUL.md."""
    folded = path.casefold()
    return (
        path.endswith(".md")
        and not folded.startswith(CONTINUITY_DIR + "/")
        and not is_daily_note(folded)
        and folded not in {name.casefold() for name in NO_ENTRY_FILES}
    )


def _any_case(text: str) -> str:
    """A regex for ``text`` in any case of its ASCII letters (JSON Schema's
    patterns take no flags)."""
    return "".join(
        f"[{c.upper()}{c.lower()}]" if c.isascii() and c.isalpha() else re.escape(c) for c in text
    )


#: What ``takes_entries`` accepts, for the schemas (``paths.PATH_PATTERN`` ending
#: in ``.md``; continuity/daily/ is under continuity/).
ENTRIES_FILE_PATTERN = path_pattern(
    ".md",
    refused="|".join(
        (
            _any_case(CONTINUITY_DIR + "/"),
            rf"{_any_case(DAILY_DIR)}/[^/]+$",
            *(rf"{_any_case(name)}$" for name in NO_ENTRY_FILES),
        )
    ),
)


def daily_note_date(path: str) -> dt.date | None:
    """The day a dated daily note is for (its name, and for LionClaw its folders), else None."""
    match = _DATED_NOTE.match(path)
    if match is None:
        return None
    folder_year, folder_month, year, month, day = match.groups()
    if folder_year is not None and (folder_year, folder_month) != (year, month):
        return None
    try:
        return dt.date(int(year), int(month), int(day))
    except ValueError:
        return None


def daily_note_path(day: dt.date, daily_layout: DailyLayout = "hearth") -> str:
    """Where the note for ``day`` lives in ``daily_layout``."""
    if daily_layout == "lionclaw":
        return f"{LIONCLAW_DAILY_DIR}/{day:%Y}/{day:%m}/{day.isoformat()}.md"
    return f"{DAILY_DIR}/{day.isoformat()}.md"


def topic_path(slug: str) -> str:
    return f"{TOPICS_DIR}/{slug}.md"


USERS_DIR = "users"
#: Every folder hearth makes (``hearths_folders_in``).
_HEARTHS_FOLDERS = (
    DAILY_DIR,
    TOPICS_DIR,
    USERS_DIR,
    CONTINUITY_DIR,
    LIONCLAW_DAILY_DIR,
    LOOPS_DIR,
    PROPOSALS_DIR.rpartition("/")[0],
    PROPOSALS_DIR,
    DECISIONS_DIR,
    CONFLICTS_DIR,
    ENTRY_CONFLICTS_DIR,
    ARTIFACTS_DIR,
    ROLLUPS_DIR,
    SUPERSEDED_DIR,
)


def hearths_folders_in(folder: str) -> tuple[str, ...]:
    """The names of the folders hearth makes directly inside ``folder`` (``""``:
    the top): ``memory``, ``continuity``, ``users``, ``memory/topics``... A
    home holds them once hearth first writes there, so until then a name that
    reads as one of them (``memоry`` with a Cyrillic о, ``Memory``) would
    otherwise claim the place: hearth's own write would then read as a
    look-alike of it and be refused (``validation.check_new_path``)."""
    prefix = f"{folder}/" if folder else ""
    return tuple(
        made[len(prefix) :]
        for made in _HEARTHS_FOLDERS
        if made.startswith(prefix) and "/" not in made[len(prefix) :]
    )


#: The longest person id.
MAX_USER_ID_CHARS = 100
#: A person id (the schemas declare it; ``user_path`` enforces it): ASCII letters,
#: digits, ``.``, ``_`` and ``-``, starting with a letter or digit, no ``..``.
USER_ID_PATTERN = rf"^(?![\s\S]*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{{0,{MAX_USER_ID_CHARS - 1}}}$"
_USER_ID = re.compile(USER_ID_PATTERN)


def user_path(user_id: str) -> str | None:
    """``users/<id>.md`` for a plausible person id (letters, digits, ``._-``), else None."""
    if not _USER_ID.fullmatch(user_id):
        return None
    return f"{USERS_DIR}/{user_id}.md"


def user_id_of(path: str) -> str | None:
    """The id of a person note ``users/<id>.md``, else None."""
    if not path.startswith(USERS_DIR + "/") or not path.endswith(".md"):
        return None
    user_id = path[len(USERS_DIR) + 1 : -len(".md")]
    return user_id if user_path(user_id) == path else None


def daily_note_paths(day: dt.date) -> tuple[str, ...]:
    """The note for ``day`` in every layout (a home may hold both)."""
    return tuple(daily_note_path(day, name) for name in DAILY_LAYOUTS)


def rollup_path(week: str) -> str:
    return f"{ROLLUPS_DIR}/{week}.md"


# -- records ----------------------------------------------------------------------
#
# A record kind is data: where its files live, how its archive is laid out, and the
# words every surface uses for it. Adding a kind is one entry here and its fields
# in ``records`` (its dataclass); the folders, paths, listings, archive moves, the
# catalogue, ACTIVE.md's counts and the error messages read this table.


@dataclass(frozen=True)
class RecordKindSpec:
    kind: RecordKind
    #: the folder of its active files
    folder: str
    #: archive outcomes that get their own folder (``archive/<outcome>/``); empty:
    #: one ``archive/`` folder for every outcome
    outcome_folders: tuple[str, ...]
    #: what an active one is called in messages ("pending proposal")
    active_name: str
    #: the commit subjects' area and the CLI/HTTP listing ("proposals")
    plural: str
    #: the commit subject's verb for a new one ("propose")
    create_verb: str

    @property
    def archive_shapes(self) -> tuple[tuple[str, ...], ...]:
        if self.outcome_folders:
            return tuple(("archive", outcome) for outcome in self.outcome_folders)
        return (("archive",),)


RECORD_KINDS: dict[RecordKind, RecordKindSpec] = {
    "proposal": RecordKindSpec(
        "proposal",
        PROPOSALS_DIR,
        ("merged", "rejected"),
        "pending proposal",
        "proposals",
        "propose",
    ),
    "loop": RecordKindSpec("loop", LOOPS_DIR, (), "open loop", "loops", "open"),
    "decision": RecordKindSpec("decision", DECISIONS_DIR, (), "decision", "decisions", "decide"),
}


def record_dir(kind: RecordKind) -> str:
    return RECORD_KINDS[kind].folder


def record_path(kind: RecordKind, key: str) -> str:
    return f"{record_dir(kind)}/{key}.md"


def archive_path(kind: RecordKind, key: str, archive_id: str, outcome: str = "") -> str:
    """Archive file of a record; ``outcome`` picks the folder for a kind that has one
    per outcome (a proposal's ``merged`` or ``rejected``)."""
    spec = RECORD_KINDS[kind]
    folder = f"{spec.folder}/archive"
    if spec.outcome_folders:
        if outcome not in spec.outcome_folders:
            raise ValueError(
                f"a {kind} is archived as one of {spec.outcome_folders}, not {outcome!r}"
            )
        folder = f"{folder}/{outcome}"
    return f"{folder}/{key}--{archive_id}.md"


def record_folders() -> tuple[str, ...]:
    """Every folder that holds record files, active and archived, of every kind."""
    return tuple(
        "/".join((spec.folder, *shape))
        for spec in RECORD_KINDS.values()
        for shape in ((), *spec.archive_shapes)
    )


def record_location(path: str) -> tuple[RecordKind, bool] | None:
    """``(kind, archived)`` when ``path`` is a record file, else None."""
    if not path.endswith(".md"):
        return None
    for kind, spec in RECORD_KINDS.items():
        if not path.startswith(spec.folder + "/"):
            continue
        *middle, _name = path[len(spec.folder) + 1 :].split("/")
        if not middle:
            return kind, False
        if tuple(middle) in spec.archive_shapes:
            return kind, True
    return None


#: The archive folders of records that are not memory: proposals merged
#: (each became the entry it proposed) or rejected, and decisions withdrawn.
#: Search leaves them out unless asked for by kind (``archive``) or path.
SET_ASIDE_FOLDERS = (
    f"{PROPOSALS_DIR}/archive/",
    f"{DECISIONS_DIR}/archive/",
    f"{SUPERSEDED_DIR}/",
)


def record_status(path: str) -> str:
    """What became of an archived record, from its folder: ``merged`` or
    ``rejected`` (proposals), ``withdrawn`` (decisions), ``resolved`` (loops),
    ``superseded`` (a replaced entry's record); "" for any other path."""
    if path.startswith(SUPERSEDED_DIR + "/"):
        return "superseded"
    location = record_location(path)
    if location is None or not location[1]:
        return ""
    kind = location[0]
    if kind == "proposal":
        return path.split("/")[-2]
    return "withdrawn" if kind == "decision" else "resolved"


def asks_for_set_aside(kind: str | None, path_prefix: str | None) -> bool:
    """Whether a search's filters ask for the set-aside archives
    (``SET_ASIDE_FOLDERS``): the ``archive`` kind, or a path inside an archive."""
    if kind == "archive":
        return True
    if not path_prefix:
        return False
    return "/archive" in f"/{path_prefix}" or path_prefix.startswith(SUPERSEDED_DIR)


def kind_of(path: str) -> Kind:
    """The kind of document a home path holds, from the layout alone."""
    if path in HOT_FILES:
        return "persona"
    location = record_location(path)
    if location is not None:
        kind, archived = location
        return "archive" if archived else kind
    if path.startswith(SUPERSEDED_DIR + "/"):
        return "archive"
    if path.startswith(TOPICS_DIR + "/"):
        return "topic"
    if is_daily_note(path):
        return "daily"
    if path.startswith(ROLLUPS_DIR + "/"):
        return "rollup"
    if path.startswith(ARTIFACTS_DIR + "/"):
        return "artifact"
    if path.startswith("users/"):
        return "persona"
    return "other"
