"""Reading history: the commits that touched a path, with hearth's trailers."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass

import pygit2
from pygit2.enums import SortMode

from hearth.domain import layout
from hearth.domain.active import PersonaChange

_TRAILER = re.compile(r"^([A-Za-z][A-Za-z0-9-]*): (.+)$")


@dataclass(frozen=True)
class CommitInfo:
    id: str
    time: str
    author: str
    email: str
    subject: str
    message: str
    trailers: dict[str, str]
    #: Who made the change through hearth and which operation (its trailers);
    #: None for a commit hearth did not write (a person's own git, a merge).
    actor: str | None = None
    op: str | None = None

    def as_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


def parse_trailers(message: str) -> dict[str, str]:
    """The ``Key: value`` lines of the message's last paragraph."""
    paragraphs = message.strip().split("\n\n")
    if len(paragraphs) < 2:
        return {}
    found: dict[str, str] = {}
    for line in paragraphs[-1].splitlines():
        match = _TRAILER.match(line)
        if not match:
            return {}
        found[match.group(1)] = match.group(2)
    return found


def describe(commit: pygit2.Commit) -> CommitInfo:
    tz = dt.timezone(dt.timedelta(minutes=commit.commit_time_offset))
    when = dt.datetime.fromtimestamp(commit.commit_time, tz)
    message = commit.message
    trailers = parse_trailers(message)
    return CommitInfo(
        id=str(commit.id),
        time=when.isoformat(),
        author=commit.author.name,
        email=commit.author.email,
        subject=message.split("\n", 1)[0],
        message=message,
        trailers=trailers,
        actor=trailers.get("Hearth-Actor"),
        op=trailers.get("Hearth-Op"),
    )


def _entry_id(commit: pygit2.Commit, path: str) -> pygit2.Oid | None:
    try:
        return commit.tree[path].id
    except KeyError:
        return None


#: How far down from a new HEAD the HEAD of a remembered answer is looked for.
_INCREMENTAL_STEPS = 50
#: Answers remembered (per path and limit).
_REMEMBERED = 256
_answers: OrderedDict[tuple[str, int], tuple[str, list[CommitInfo]]] = OrderedDict()
_answers_lock = threading.Lock()


def path_history(
    repo: pygit2.Repository, head: pygit2.Commit | None, path: str, limit: int
) -> list[CommitInfo]:
    """Newest first: commits whose version of ``path`` differs from every parent's.

    A walk down to a file that rarely changes looks at every commit, so
    answers are remembered. A commit id fixes all of its
    history, so an answer for one HEAD stays exact; when HEAD has moved by a
    few single-parent commits on top of a remembered one (the usual case after
    a write), only those are looked at and put in front of it, which is what
    a full walk would give.
    """
    if head is None or limit <= 0:
        return []
    key, head_id = (path, limit), str(head.id)
    with _answers_lock:
        known = _answers.get(key)
    found = None if known is None else _on_top(head, path, limit, *known)
    if found is None:
        found = _walk(repo, head, path, limit)
    with _answers_lock:
        _answers[key] = (head_id, found)
        _answers.move_to_end(key)
        while len(_answers) > _REMEMBERED:
            _answers.popitem(last=False)
    return list(found)


def _on_top(
    head: pygit2.Commit, path: str, limit: int, old_head: str, old: list[CommitInfo]
) -> list[CommitInfo] | None:
    """The answer for ``head`` from the one for ``old_head`` below it; None when
    ``old_head`` is not a few single-parent commits down."""
    fresh: list[CommitInfo] = []
    commit = head
    for _ in range(_INCREMENTAL_STEPS):
        if str(commit.id) == old_head:
            return (fresh + old)[:limit]
        parents = commit.parents
        if len(parents) != 1:
            return None
        if _entry_id(commit, path) != _entry_id(parents[0], path):
            fresh.append(describe(commit))
        commit = parents[0]
    return None


def _walk(repo: pygit2.Repository, head: pygit2.Commit, path: str, limit: int) -> list[CommitInfo]:
    found: list[CommitInfo] = []
    for commit in repo.walk(head.id, SortMode.TOPOLOGICAL | SortMode.TIME):
        mine = _entry_id(commit, path)
        parents = commit.parents
        if not parents:
            changed = mine is not None
        else:
            changed = all(_entry_id(p, path) != mine for p in parents)
        if changed:
            found.append(describe(commit))
            if len(found) >= limit:
                break
    return found


HISTORY_DEPTH = 300


class PersonaHistory:
    """The newest commits that changed a hot persona file, kept up to date cheaply.

    A full walk looks at up to ``HISTORY_DEPTH`` commits from HEAD. After a
    write, HEAD has usually moved by a few single-parent commits on top of the
    one seen last; then only those are examined and put in front of what was
    found before, with every depth shifted, so the result is exactly what a
    full walk would give (ACTIVE.md must not depend on what came before).
    """

    def __init__(self, limit: int = 10) -> None:
        self.limit = limit
        self._head: str | None = None
        self._found: list[tuple[int, PersonaChange]] = []  # (depth from HEAD, change)

    def changes(self, repo: pygit2.Repository, head: str | None) -> list[PersonaChange]:
        if head != self._head:
            self._found = [] if head is None else self._walk(repo, head)
            self._head = head
        return [change for _depth, change in self._found]

    def _walk(self, repo: pygit2.Repository, head: str) -> list[tuple[int, PersonaChange]]:
        fresh: list[tuple[int, PersonaChange]] = []
        commit = repo.revparse_single(head).peel(pygit2.Commit)
        for depth in range(_INCREMENTAL_STEPS):
            if self._head is not None and str(commit.id) == self._head:
                shifted = [(d + depth, c) for d, c in self._found if d + depth < HISTORY_DEPTH]
                return (fresh + shifted)[: self.limit]
            if len(commit.parents) != 1:
                break
            change = _persona_change(commit)
            if change is not None:
                fresh.append((depth, change))
            commit = commit.parents[0]
        return self._full_walk(repo, head)

    def _full_walk(self, repo: pygit2.Repository, head: str) -> list[tuple[int, PersonaChange]]:
        found: list[tuple[int, PersonaChange]] = []
        walker = repo.walk(pygit2.Oid(hex=head), SortMode.TOPOLOGICAL | SortMode.TIME)
        for depth, commit in enumerate(walker):
            if depth >= HISTORY_DEPTH or len(found) >= self.limit:
                break
            change = _persona_change(commit)
            if change is not None:
                found.append((depth, change))
        return found


#: How far back from a new HEAD the last seen HEAD is looked for.
_INCREMENTAL_STEPS = 50


def _persona_change(commit: pygit2.Commit) -> PersonaChange | None:
    parent = commit.parents[0].tree if commit.parents else None
    changed = tuple(p for p in layout.HOT_FILES if _blob_id(commit.tree, p) != _blob_id(parent, p))
    if not changed:
        return None
    when = dt.datetime.fromtimestamp(commit.commit_time, dt.UTC).date().isoformat()
    trailers = parse_trailers(commit.message)
    who = trailers.get("Hearth-Actor") or f"git ({commit.author.name})"
    op = trailers.get("Hearth-Op")
    return PersonaChange(
        str(commit.id),
        when,
        commit.message.split("\n", 1)[0],
        changed,
        f"{who} [{op}]" if op else who,
    )


def _blob_id(tree: pygit2.Tree | None, path: str) -> str | None:
    if tree is None:
        return None
    try:
        return str(tree[path].id)
    except KeyError:
        return None
