"""What agents changed in the persona and memory files, for the person to see.

An agent's write is a commit marked ``Hearth-By: agent`` (hearth adds it for a
write-scoped caller, and for a runtime's own writes it commits): the review
page lists each such change to ``layout.PERSONS_FILES`` and ``users/<id>.md``
made since the person last said they had seen them, with one click to undo it.
An undo is the person's commit marked ``Hearth-Undoes: <commit> <path>``, so a
change once undone is listed as undone. "Last seen" is this clone's own
(``.git/hearth/agent-changes-seen``): the newest commit the person marked as
seen.

Read through the git CLI (one ``git log`` over those paths), as the history a
person reads with git.
"""

from __future__ import annotations

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
#: The persona and memory files, as git pathspecs.
PATHSPECS = (*layout.PERSONS_FILES, ":(glob)users/*.md")


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
    """Agents' changes to the persona and memory files after ``since`` (all when
    None), newest first, each file of a commit its own change."""
    span = f"{since}..HEAD" if since else "HEAD"
    args = ["-c", "core.quotePath=false", "log", "-n", str(LIMIT * 4), "--name-only", _FORMAT]
    done = run_git(root, [*args, span, "--", *PATHSPECS], b"")
    if done is None or done[0] != 0:
        return []
    found: list[AgentChange] = []
    undone: set[tuple[str, str]] = set()
    for record in done[1].decode("utf-8", "replace").split("\x1e")[1:]:
        head, _, names = record.partition("\n")
        parts = head.split("\x00")
        if len(parts) != len(_FIELDS):
            continue
        commit, when, by, actor, op, undoes, subject = parts
        for item in undoes.split("\x1f"):
            target, _, path = item.strip().partition(" ")
            if target and path:
                undone.add((target, path))
        if by.strip() != "agent":
            continue
        for path in (n for n in names.splitlines() if n.strip()):
            if layout.is_persons_file(path):
                found.append(AgentChange(commit, path, when, actor.strip(), op.strip(), subject))
    listed = [
        AgentChange(
            c.commit, c.path, c.time, c.actor, c.op, c.subject, (c.commit, c.path) in undone
        )
        for c in found
    ]
    return listed[:LIMIT]
