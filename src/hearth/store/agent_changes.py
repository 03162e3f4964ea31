"""What agents changed in the persona and memory files, for the person to see.

An agent's write is a commit marked ``Hearth-By: agent`` (hearth adds it for a
write-scoped caller, and for a runtime's own writes it commits): the review
page lists each such change to ``layout.PERSONS_FILES``, ``users/<id>.md`` and
the markdown runtimes load as their own instructions (``layout.is_runtime_file``:
OpenClaw's workspace skills, CLAUDE.md, hidden folders such as ``.claude/``)
made since the person last said they had seen them, with one click to undo it.
In the notes of memory (``layout.is_memory_note``: daily notes, topics), which
agents add to all day, it lists what is more than an addition: a change that
takes out or rewrites lines, and any change to the daily note of a day before
yesterday (the commit's own date), where an agent would be rewriting the past.
An undo is the person's commit marked ``Hearth-Undoes: <commit> <path>``, so a
change once undone is listed as undone. "Last seen" is this clone's own
(``.git/hearth/agent-changes-seen``): the newest commit the person marked as
seen.

Read through the git CLI (``git log`` of the agents' commits, the oldest
first), as the history a person reads with git. No count of commits bounds
what is read: an agent that makes thousands of commits of its own after a
change (each an addition nobody lists) would push it out of any such window,
and marking the rest as seen would bury it. A long listing is cut after
``LIMIT`` changes instead, the newer ones waiting until those are marked.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from hearth.domain import layout
from hearth.store.git_cli import run_git

#: The file in ``.git/hearth/`` that holds the commit the person last marked as seen.
SEEN_FILE = "agent-changes-seen"
#: The most changes listed at once (the newer ones wait until these are marked as seen).
LIMIT = 100

_FIELDS = (
    "%H",
    "%cI",
    "%(trailers:key=Hearth-By,valueonly,separator=%x2C)",
    "%(trailers:key=Hearth-Actor,valueonly,separator=%x2C)",
    "%(trailers:key=Hearth-Op,valueonly,separator=%x2C)",
    "%s",
)
_FORMAT = "--format=%x1e" + "%x00".join(_FIELDS)


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


@dataclass(frozen=True)
class Listing:
    """The agents' changes the page lists, and up to which commit marking them as
    seen hides nothing the page did not show."""

    #: Newest first.
    changes: list[AgentChange]
    #: The commit to mark as seen with these: every change it holds is listed.
    upto: str | None
    #: Newer changes wait, listed once these are marked as seen.
    more: bool = False


def agent_changes(root: Path, since: str | None, head: str | None = None) -> Listing:
    """Agents' changes to the persona files and the notes of memory after
    ``since`` (all when None) up to ``head`` (HEAD), each file of a commit its
    own change.

    Every agent commit of that span is read, the oldest first, however many
    others an agent made since (no window a flood of its own commits could push
    a change out of); past ``LIMIT`` changes the listing stops after a whole
    commit, ``upto`` is that commit (not ``head``) and ``more`` says newer ones
    wait. Marking ``upto`` as seen then hides only what was listed: the older
    changes come first, and a commit's ancestors before it (``--topo-order``).
    Only the agents' commits (``--grep``) are diffed, and only as far as read."""
    head = head or _head(root)
    if head is None:
        return Listing([], None)
    span = f"{since}..{head}" if since else head
    undone = _undone(root, span)
    shown: list[AgentChange] = []
    args = ["-c", "core.quotePath=false", "log", "-z", "--no-renames", "--numstat"]
    args += ["--topo-order", "--reverse", "-i", "-E", f"--grep={_BY_AGENT}", _FORMAT, span, "--"]
    for commit_changes in _commits(root, args, undone):
        if shown and len(shown) + len(commit_changes) > LIMIT:
            return Listing(shown[::-1], shown[-1].commit, more=True)
        shown += commit_changes
    return Listing(shown[::-1], head)


#: An agent's commit, as ``git log --grep -i -E`` finds it (its trailer, checked again).
_BY_AGENT = "^Hearth-By: *agent *$"


def _head(root: Path) -> str | None:
    done = run_git(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], b"")
    if done is None or done[0] != 0:
        return None
    return done[1].decode().strip() or None


def _undone(root: Path, span: str) -> set[tuple[str, str]]:
    """(commit, path) of every change the person's commits in ``span`` undo: read
    from their messages alone (no diff), so an undo newer than the changes
    listed still marks them undone."""
    fields = "%(trailers:key=Hearth-Undoes,valueonly,separator=%x1f)"
    args = ["log", "-z", "-i", "-E", "--grep=^Hearth-Undoes: ", f"--format={fields}", span]
    done = run_git(root, args, b"")
    found: set[tuple[str, str]] = set()
    if done is None or done[0] != 0:
        return found
    for record in done[1].decode("utf-8", "replace").split("\x00"):
        for item in record.split("\x1f"):
            target, _, path = item.strip().partition(" ")
            if target and path:
                found.add((target, path))
    return found


def _commits(
    root: Path, args: list[str], undone: set[tuple[str, str]]
) -> Iterator[list[AgentChange]]:
    """The listed changes of each commit ``git log ARGS`` prints (``_FORMAT``, one
    record a commit), read as git writes them; git is stopped when the caller
    stops reading."""
    import subprocess  # noqa: PLC0415

    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["LC_ALL"] = "C"
    proc = subprocess.Popen(
        ["git", *args], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    assert proc.stdout is not None
    try:
        buffer = b""
        while chunk := os.read(proc.stdout.fileno(), 1 << 16):
            buffer += chunk
            *records, buffer = buffer.split(b"\x1e")
            for record in records:
                if record:
                    yield _changes(record.decode("utf-8", "replace"), undone)
        if buffer:
            yield _changes(buffer.decode("utf-8", "replace"), undone)
    finally:
        proc.kill()
        proc.stdout.close()
        proc.wait()


def _changes(record: str, undone: set[tuple[str, str]]) -> list[AgentChange]:
    """The changes one commit's record (``git log -z --numstat`` in ``_FORMAT``)
    lists for the person: none when it is no agent's commit."""
    # -z: the fields, each ended by NUL, then "\n" and one "added\tdeleted\tpath"
    # ended by NUL for every file (a path may hold a tab or a newline).
    parts = record.split("\x00")
    if len(parts) <= len(_FIELDS):
        return []
    commit, when, by, actor, op, subject = parts[: len(_FIELDS)]
    if by.strip().lower() != "agent":
        return []
    found = []
    for stat in parts[len(_FIELDS) :]:
        _added, _, rest = stat.lstrip("\n").partition("\t")
        deleted, _, path = rest.partition("\t")
        if path and _listed(path, deleted, when):
            change = AgentChange(
                commit, path, when, actor.strip(), op.strip(), subject, (commit, path) in undone
            )
            found.append(change)
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
    if layout.is_persons_file(path) or layout.is_runtime_file(path):
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
