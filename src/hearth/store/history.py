"""Reading history: the commits that touched a path, with hearth's trailers."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from dataclasses import dataclass

import pygit2
from pygit2.enums import SortMode

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
    return CommitInfo(
        id=str(commit.id),
        time=when.isoformat(),
        author=commit.author.name,
        email=commit.author.email,
        subject=message.split("\n", 1)[0],
        message=message,
        trailers=parse_trailers(message),
    )


def _entry_id(commit: pygit2.Commit, path: str) -> pygit2.Oid | None:
    try:
        return commit.tree[path].id
    except KeyError:
        return None


def path_history(
    repo: pygit2.Repository, head: pygit2.Commit | None, path: str, limit: int
) -> list[CommitInfo]:
    """Newest first: commits whose version of ``path`` differs from every parent's."""
    if head is None or limit <= 0:
        return []
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
