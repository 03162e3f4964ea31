"""What agents changed in the persona and memory files, for the person to see.

An agent's write is a commit marked ``Hearth-By: agent`` (hearth adds it for a
write-scoped caller, and for a runtime's own writes it commits): the review
page lists each such change to ``layout.PERSONS_FILES`` and ``users/<id>.md``
made since the person last said they had seen them, with one click to undo it.
In the notes of memory (``layout.is_memory_note``: daily notes, topics), which
agents add to all day, it lists what is more than an addition: a change that
takes out or rewrites lines, and any change to the daily note of a day before
yesterday (the commit's own date), where an agent would be rewriting the past.
An undo is the person's commit marked ``Hearth-Undoes: <commit> <path>``, so a
change once undone is listed as undone. "Last seen" is this clone's own
(``.git/hearth/agent-changes-seen``): the newest commit the person marked as
seen.

Read through the git CLI (one ``git log`` over those paths), as the history a
person reads with git.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass
from pathlib import Path

from hearth.domain import layout
from hearth.store.git_cli import run_git

#: The file in ``.git/hearth/`` that holds the commit the person last marked as seen.
SEEN_FILE = "agent-changes-seen"
#: The most changes listed at once (the oldest are left for the history page).
LIMIT = 100

_FIELDS = (
    "%H",
    "%cI",
    "%(trailers:key=Hearth-By,valueonly,separator=%x2C)",
    "%(trailers:key=Hearth-Actor,valueonly,separator=%x2C)",
    "%(trailers:key=Hearth-Op,valueonly,separator=%x2C)",
    "%(trailers:key=Hearth-Undoes,valueonly,separator=%x1f)",
    "%s",
)
_FORMAT = "--format=%x1e" + "%x00".join(_FIELDS)
#: The persona files, as git pathspecs.
PATHSPECS = (*layout.PERSONS_FILES, ":(glob)users/*.md")
#: The notes of memory, as git pathspecs: read by a log of their own, with a
#: window of their own, so that the many notes agents add never push a change
#: to a persona file out of the persona files' window.
NOTES_PATHSPECS = (
    f":(glob){layout.DAILY_DIR}/**/*.md",
    f":(glob){layout.LIONCLAW_DAILY_DIR}/**/*.md",
)


@dataclass(frozen=True)
class AgentChange:
    commit: str
    path: str
    time: str
    actor: str
    op: str
    subject: str
    #: Undone by the person since (a commit marked ``Hearth-Undoes``).
    undone: bool = False

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def seen(state_dir: Path) -> str | None:
    """The commit the person last marked as seen (None: never)."""
    try:
        value = (state_dir / SEEN_FILE).read_text().strip()
    except OSError:
        return None
    return value if len(value) == 40 and all(c in "0123456789abcdef" for c in value) else None


def in_history(root: Path, commit: str) -> bool:
    """Whether ``commit`` (40 hex digits) is HEAD or one of its ancestors."""
    if len(commit) != 40 or any(c not in "0123456789abcdef" for c in commit):
        return False
    done = run_git(root, ["merge-base", "--is-ancestor", commit, "HEAD"], b"")
    return done is not None and done[0] == 0


def mark_seen(state_dir: Path, commit: str) -> None:
    temp = state_dir / f".{SEEN_FILE}.tmp"
    temp.write_text(commit + "\n")
    temp.replace(state_dir / SEEN_FILE)


def agent_changes(root: Path, since: str | None) -> list[AgentChange]:
    """Agents' changes to the persona files and the notes of memory after
    ``since`` (all when None), newest first, each file of a commit its own change."""
    span = f"{since}..HEAD" if since else "HEAD"
    found: list[AgentChange] = []
    undone: set[tuple[str, str]] = set()
    for pathspecs, window in ((PATHSPECS, LIMIT * 4), (NOTES_PATHSPECS, LIMIT * 20)):
        args = ["-c", "core.quotePath=false", "log", "-z", "--no-renames", "--numstat"]
        done = run_git(root, [*args, "-n", str(window), _FORMAT, span, "--", *pathspecs], b"")
        if done is not None and done[0] == 0:
            found += _changes(done[1].decode("utf-8", "replace"), undone)
    found.sort(key=lambda c: _instant(c.time), reverse=True)
    listed = [
        AgentChange(
            c.commit, c.path, c.time, c.actor, c.op, c.subject, (c.commit, c.path) in undone
        )
        for c in found
    ]
    return listed[:LIMIT]


def _changes(log: str, undone: set[tuple[str, str]]) -> list[AgentChange]:
    """The agents' changes ``log`` (``git log -z --numstat`` in ``_FORMAT``)
    lists, newest first; the changes its commits undo are added to ``undone``."""
    found: list[AgentChange] = []
    for record in log.split("\x1e")[1:]:
        # -z: the fields, each ended by NUL, then "\n" and one "added\tdeleted\tpath"
        # ended by NUL for every file (a path may hold a tab or a newline).
        parts = record.split("\x00")
        if len(parts) <= len(_FIELDS):
            continue
        commit, when, by, actor, op, undoes, subject = parts[: len(_FIELDS)]
        for item in undoes.split("\x1f"):
            target, _, path = item.strip().partition(" ")
            if target and path:
                undone.add((target, path))
        if by.strip() != "agent":
            continue
        for stat in parts[len(_FIELDS) :]:
            _added, _, rest = stat.lstrip("\n").partition("\t")
            deleted, _, path = rest.partition("\t")
            if path and _listed(path, deleted, when):
                found.append(AgentChange(commit, path, when, actor.strip(), op.strip(), subject))
    return found


def _instant(when: str) -> dt.datetime:
    """A commit's ISO 8601 time as an instant (the oldest there is, unreadable)."""
    try:
        return dt.datetime.fromisoformat(when)
    except ValueError:
        return dt.datetime.min.replace(tzinfo=dt.UTC)


def _listed(path: str, deleted: str, when: str) -> bool:
    """Whether an agent's change to ``path`` (``deleted`` lines taken out, "-" for
    a binary file; committed at ``when``, ISO 8601) is one the person sees."""
    if layout.is_persons_file(path):
        return True
    if not layout.is_memory_note(path):
        return False
    if deleted != "0":
        return True
    day = layout.daily_note_date(path)
    try:
        committed = dt.datetime.fromisoformat(when).date()
    except ValueError:
        return True
    return day is not None and day < committed - dt.timedelta(days=1)
