"""What a write is planned with and against: HEAD's tree as a ``Snapshot``, the
``Plan`` a planner makes of it (a subject and ``FileChange``s), the commit's
``Trailers``, and what the store answers (``CommitResult``). The store that
lands a plan as one commit is ``git.py``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pygit2


@dataclass(frozen=True)
class FileChange:
    """New content for one path (``data=None`` deletes it).

    ``rebase``, when given, re-applies the same edit to another copy of the
    file (a person's uncommitted or staged version) instead of refusing.
    """

    path: str
    data: bytes | None
    rebase: Callable[[bytes | None], bytes] | None = None


@dataclass(frozen=True)
class Plan:
    subject: str
    changes: tuple[FileChange, ...]
    body: str = ""


@dataclass(frozen=True)
class Trailers:
    op: str
    actor: str
    record: str | None = None
    #: More records the write changed (a batch of proposals): one trailer each.
    more_records: tuple[str, ...] = ()
    #: ``agent`` when a write-scoped caller (an agent) made the write: the review
    #: page lists such changes to persona and memory files for the person to undo.
    by: str = ""
    #: ``<commit> <path>``: the agent's change this commit undoes.
    undoes: str = ""

    def render(self) -> str:
        lines = [f"Hearth-Op: {self.op}", f"Hearth-Actor: {self.actor}"]
        if self.by:
            lines.append(f"Hearth-By: {self.by}")
        if self.undoes:
            lines.append(f"Hearth-Undoes: {self.undoes}")
        if self.record:
            lines.append(f"Hearth-Record: {self.record}")
        lines += [f"Hearth-Record: {key}" for key in self.more_records]
        return "\n".join(lines)


@dataclass(frozen=True)
class CommitResult:
    commit: str | None
    paths: tuple[str, ...] = ()
    changed: bool = True


class Snapshot:
    """Read-only view of one commit's tree (or of an unborn branch)."""

    def __init__(self, repo: pygit2.Repository, commit: pygit2.Commit | None) -> None:
        self._repo = repo
        self.commit = commit
        self.tree: pygit2.Tree | None = commit.tree if commit is not None else None

    @property
    def head(self) -> str | None:
        return str(self.commit.id) if self.commit is not None else None

    def entry(self, path: str) -> pygit2.Object | None:
        if self.tree is None:
            return None
        try:
            obj = self.tree[path]
        except KeyError:
            return None
        return obj if obj.type == pygit2.enums.ObjectType.BLOB else None

    def oid(self, path: str) -> str | None:
        obj = self.entry(path)
        return str(obj.id) if obj is not None else None

    def read(self, path: str) -> bytes | None:
        obj = self.entry(path)
        if obj is None:
            return None
        blob = self._repo[obj.id]
        assert isinstance(blob, pygit2.Blob)
        return blob.data

    def line_since(self, path: str, line: int) -> tuple[int, str] | None:
        """When and by which commit ``line`` (1-based) of ``path`` got its present
        text: the commit time (seconds since the epoch) and message of the commit
        that last changed it, as ``git blame`` says; None when the path or line is
        not in this commit."""
        if self.commit is None or self.entry(path) is None or line < 1:
            return None
        try:
            blame = self._repo.blame(
                path, newest_commit=self.commit.id, min_line=line, max_line=line
            )
            hunk = blame.for_line(line)
        except (KeyError, IndexError, ValueError, pygit2.GitError):
            return None
        commit = self._repo.get(hunk.final_commit_id)
        if not isinstance(commit, pygit2.Commit):
            return None
        return commit.commit_time, commit.message

    def _folder(self, folder: str) -> pygit2.Tree | None:
        """The tree of ``folder`` (``""``: the top), or None when it is not one."""
        if self.tree is None:
            return None
        try:
            sub = self.tree[folder] if folder else self.tree
        except KeyError:
            return None
        return sub if isinstance(sub, pygit2.Tree) else None

    def children(self, folder: str) -> list[str]:
        """Names of everything directly inside ``folder`` (``""``: the top),
        files and folders alike."""
        sub = self._folder(folder)
        return [e.name for e in sub if e.name] if sub is not None else []

    def folders(self) -> Iterator[tuple[str, list[str]]]:
        """Every folder of the tree (``""``: the top) with the names it holds."""
        pending = [("", self.tree)] if self.tree is not None else []
        while pending:
            folder, tree = pending.pop()
            names = []
            for entry in tree:
                if not entry.name:
                    continue
                names.append(entry.name)
                if isinstance(entry, pygit2.Tree):
                    pending.append((f"{folder}/{entry.name}" if folder else entry.name, entry))
            yield folder, names

    def names(self, folder: str) -> list[str]:
        """Names of the files directly inside ``folder``."""
        sub = self._folder(folder)
        if sub is None:
            return []
        return sorted(e.name for e in sub if e.type == pygit2.enums.ObjectType.BLOB and e.name)
