"""The use cases of one home, each one method that takes the home's lock itself.

Every edge (the HTTP routes, MCP tools, the CLI, the review page) calls these
methods and nothing below them: parse, one call, render. The lock is one
re-entrant lock per home, shared with the reconcile worker's passes and the
scheduled jobs, so pygit2's repository object and Tantivy's single writer
only ever have one user at a time; callers never take it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from hearth import queries
from hearth.catalog import RecordView
from hearth.domain import layout
from hearth.domain.entries import Entry
from hearth.home import Expected, Home, MergePreview, WriteResult
from hearth.queries import FileView
from hearth.store.history import CommitInfo


class Hearth:
    def __init__(self, home: Home, owner: threading.RLock | None = None) -> None:
        self.home = home
        self.owner = owner or threading.RLock()

    @contextmanager
    def owned(self) -> Iterator[None]:
        with self.owner:
            yield

    # -- reading ---------------------------------------------------------------

    def get_file(self, path: str, rev: str | None = None) -> FileView:
        with self.owner:
            return queries.get_file(self.home, path, rev)

    def history(self, path: str, limit: int = 20) -> list[CommitInfo]:
        with self.owner:
            return queries.history(self.home, path, limit)

    def diff(self, path: str, rev_from: str | None, rev_to: str | None) -> dict[str, str]:
        with self.owner:
            return queries.diff(self.home, path, rev_from, rev_to)

    def commit_diff(self, path: str, rev: str) -> dict[str, str]:
        with self.owner:
            return queries.commit_diff(self.home, path, rev)

    def head_oids(self, paths: list[str]) -> dict[str, str | None]:
        with self.owner:
            return queries.head_oids(self.home, paths)

    def merge_preview(self, key: str) -> MergePreview:
        with self.owner:
            return self.home.preview_merge(key)

    def diff_home(self, rev_from: str | None, rev_to: str | None) -> dict[str, Any]:
        """Every file that differs between two revisions (``to`` None: the work tree)."""
        with self.owner:
            return queries.diff_home(self.home, rev_from, rev_to)

    def records(self, kind: layout.RecordKind) -> list[RecordView]:
        return queries.list_records(self.home, kind)

    def review(self) -> tuple[list[RecordView], list[RecordView]]:
        """What waits for a person: pending proposals, then open loops."""
        return queries.list_records(self.home, "proposal"), queries.list_records(self.home, "loop")

    def entry_list(self, path: str) -> list[Entry]:
        with self.owner:
            return self.home.entry_list(path)

    def topics(self) -> list[dict[str, str]]:
        with self.owner:
            return self.home.topics()

    # -- writing: every call is one commit -----------------------------------------

    def note(self, text: str, title: str | None, actor: str) -> WriteResult:
        with self.owner:
            return self.home.note(text, title, actor)

    def put(
        self,
        path: str,
        content: bytes,
        actor: str,
        expected_oid: str | None = None,
        message: str | None = None,
    ) -> WriteResult:
        with self.owner:
            return self.home.put(path, content, actor, expected_oid, message)

    def restore(
        self, path: str, rev: str, actor: str, *, expected: Expected | None = None
    ) -> WriteResult:
        with self.owner:
            return self.home.restore(path, rev, actor, expected=expected)

    def propose(
        self,
        title: str,
        entries: Sequence[str],
        actor: str,
        target: str | None = None,
        rationale: str = "",
        source: str = "",
    ) -> WriteResult:
        with self.owner:
            return self.home.propose(title, entries, actor, target, rationale, source)

    def merge(self, key: str, actor: str, *, expected: Expected | None = None) -> WriteResult:
        with self.owner:
            return self.home.merge(key, actor, expected=expected)

    def reject(
        self, key: str, reason: str, actor: str, *, expected: Expected | None = None
    ) -> WriteResult:
        with self.owner:
            return self.home.reject(key, reason, actor, expected=expected)

    def revise_proposal(
        self, key: str, entries: Sequence[str], actor: str, *, expected: Expected | None = None
    ) -> WriteResult:
        with self.owner:
            return self.home.revise_proposal(key, entries, actor, expected=expected)

    def add_loop(
        self, title: str, actor: str, summary: str = "", next_step: str = "", source: str = ""
    ) -> WriteResult:
        with self.owner:
            return self.home.add_loop(title, actor, summary, next_step, source)

    def resolve_loop(
        self, key: str, actor: str, note: str = "", *, expected: Expected | None = None
    ) -> WriteResult:
        with self.owner:
            return self.home.resolve_loop(key, actor, note, expected=expected)

    def entry_add(self, path: str, entry: str, actor: str) -> WriteResult:
        with self.owner:
            return self.home.entry_add(path, entry, actor)

    def entry_replace(self, path: str, old: str, new: str, actor: str) -> WriteResult:
        with self.owner:
            return self.home.entry_replace(path, old, new, actor)

    def entry_remove(self, path: str, old: str, actor: str) -> WriteResult:
        with self.owner:
            return self.home.entry_remove(path, old, actor)

    def topic(
        self, title: str, actor: str, *, content: str | None = None, append: str | None = None
    ) -> WriteResult:
        with self.owner:
            return self.home.topic(title, actor, content=content, append=append)
