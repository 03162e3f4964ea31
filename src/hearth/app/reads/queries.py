"""Read-only questions about a home: files, history, diffs, records, ACTIVE.md, check."""

from __future__ import annotations

import dataclasses
import shlex
from dataclasses import dataclass

from hearth.app.parts import HomeParts
from hearth.app.results import ActiveView, Diff
from hearth.domain import layout, records, textdiff
from hearth.domain.paths import normalize
from hearth.domain.text import decode_text
from hearth.domain.validation import check_blob, check_path
from hearth.errors import HearthError, InvalidInput, NotFound, PathRefused, RuleFailure
from hearth.reconcile.reports import ActiveState, IndexStatus
from hearth.store import active_records
from hearth.store.active_records import RecordView
from hearth.store.history import CommitInfo, path_history
from hearth.store.repository import (
    blob_id,
    is_ignored,
    worktree_blob_id,
    worktree_changes,
)
from hearth.store.tree_diff import changed_paths


@dataclass(frozen=True)
class FileView:
    path: str
    content: str
    oid: str
    commit: str | None
    dirty: bool
    rev: str | None = None

    def as_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


def get_file(home: HomeParts, path: str, rev: str | None = None) -> FileView:
    """A file's text: from the work tree (the truth), or as of ``rev``.

    ``oid`` is the git blob id of the returned content, so for a clean file it
    is HEAD's blob id: what ``put --expected-oid`` compares against.
    """
    path = normalize(path)
    store = home.store
    if rev is not None:
        snap = store.snapshot(rev)
        data = snap.read(path)
        if data is None:
            raise NotFound(f"{path} does not exist at {rev}")
        return FileView(path, decode_text(data, path), blob_id(data), snap.head, False, rev)
    data = home.files.read(path)
    if data is None:
        raise NotFound(f"{path} does not exist in the home")
    head = store.snapshot()
    oid = blob_id(data)
    if oid != head.oid(path):  # perhaps git wrote it out with CRLF: the same blob
        oid = worktree_blob_id(store.repo, path, data)
    index = store.repo.index
    index.read(False)
    staged = str(index[path].id) if path in index else None
    dirty = not (oid == head.oid(path) == staged)
    last = path_history(store.repo, head.commit, path, 1)
    return FileView(path, decode_text(data, path), oid, last[0].id if last else None, dirty)


def history(home: HomeParts, path: str, limit: int = 20) -> list[CommitInfo]:
    path = normalize(path)
    if limit <= 0:
        raise InvalidInput("--limit must be a positive number")
    return path_history(home.store.repo, home.store.head_commit(), path, limit)


def diff(home: HomeParts, path: str, rev_from: str | None, rev_to: str | None) -> Diff:
    """A unified diff of ``path`` between two revisions; ``to`` None is the work tree.

    ``from`` defaults to HEAD, so with neither given it shows the file's
    uncommitted changes. A side where the file does not exist diffs as empty.
    """
    path = normalize(path)
    old_rev = rev_from or "HEAD"
    old = home.store.snapshot(old_rev).read(path)
    if rev_to is None:
        new = home.files.read(path)
        new_label = "work tree"
    else:
        new = home.store.snapshot(rev_to).read(path)
        new_label = rev_to
    if old is None and new is None:
        raise NotFound(f"{path} exists neither at {old_rev} nor in {new_label}")
    return Diff(path, old_rev, new_label, _unified(path, old, new))


def _unified(path: str, old: bytes | None, new: bytes | None) -> str:
    return textdiff.unified(
        path,
        decode_text(old, path) if old is not None else None,
        decode_text(new, path) if new is not None else None,
    )


def commit_diff(home: HomeParts, path: str, rev: str) -> Diff:
    """What commit ``rev`` changed in ``path``: its first parent's version against its own."""
    path = normalize(path)
    snap = home.store.snapshot(rev)
    commit = snap.commit
    if commit is None:
        raise NotFound(f"no revision {rev!r} in this home")
    parents = commit.parent_ids
    old = home.store.snapshot(str(parents[0])).read(path) if parents else None
    new = snap.read(path)
    if old is None and new is None:
        raise NotFound(f"{path} exists neither at {rev} nor before it")
    parent = str(parents[0]) if parents else ""
    return Diff(path, parent, str(commit.id), _unified(path, old, new))


def head_oids(home: HomeParts, paths: list[str]) -> dict[str, str | None]:
    """HEAD's blob id of each path (None: absent): the version a page is made from."""
    snap = home.store.snapshot()
    return {p: snap.oid(normalize(p)) for p in paths}


#: Files a diff of the whole home shows at most (the rest are listed as skipped).
MAX_DIFF_FILES = 100


def diff_home(home: HomeParts, rev_from: str | None, rev_to: str | None) -> Diff:
    """The unified diffs of every file that differs between two revisions; ``to``
    None is the work tree (so with neither given: the uncommitted changes)."""
    old_rev = rev_from or "HEAD"
    store = home.store
    paths: set[str] = set()
    if rev_to is None:
        head = store.head_commit()
        if rev_from is not None and head is not None:
            between = changed_paths(store.repo, old_rev, str(head.id), MAX_DIFF_FILES)
            if between is None:
                store.snapshot(old_rev)  # an unknown revision is NotFound, not "too many"
            paths.update(between or [])
        paths.update(path for path, _state in worktree_changes(store.repo))
    else:
        store.snapshot(old_rev)  # NotFound for an unknown revision
        store.snapshot(rev_to)
        paths.update(changed_paths(store.repo, old_rev, rev_to, 10 * MAX_DIFF_FILES) or [])
    ordered = sorted(paths)
    diffs = []
    for path in ordered[:MAX_DIFF_FILES]:
        try:
            diffs.append(diff(home, path, rev_from, rev_to).diff)
        except HearthError:
            continue  # gone on both sides, or a path hearth does not read
    return Diff(
        None,
        old_rev,
        rev_to or "work tree",
        "".join(diffs),
        files=ordered[:MAX_DIFF_FILES],
        skipped=ordered[MAX_DIFF_FILES:],
    )


def list_records(home: HomeParts, kind: layout.RecordKind) -> list[RecordView]:
    return active_records.list_records(home.files, kind)


def active_view(home: HomeParts, index: IndexStatus) -> ActiveView:
    """The generated ACTIVE.md as it is on disk, with how fresh it is."""
    state = ActiveState(index.head, index.last_reconcile, index.active, index.active_error)
    return active_view_of(home, state, index.fresh)


def active_view_of(home: HomeParts, state: ActiveState, index_fresh: bool) -> ActiveView:
    """``active_view`` from ACTIVE.md's state and whether the index is fresh."""
    data = home.files.read(layout.ACTIVE_PATH)
    return ActiveView(
        path=layout.ACTIVE_PATH,
        head=state.head,
        refreshed=state.last_reconcile,
        fresh=index_fresh and state.active == "fresh",
        state=state.active,
        error=state.active_error,
        content=data.decode("utf-8", "replace") if data is not None else "",
    )


def check(home: HomeParts) -> list[RuleFailure]:
    """Run the validation rules over every file of the work tree (and HEAD's ACTIVE.md)."""
    repo = home.store.repo
    failures: list[RuleFailure] = []
    for path in home.files.walk():
        if is_ignored(repo, path):
            continue
        target = home.files.symlink_target(path)
        if target is not None:
            failures.append(symlink_failure(path, target))
            continue
        try:
            data = home.files.read(path)
        except PathRefused as exc:
            failures.append(RuleFailure(path, "unreadable", exc.message, _rename_fix(path)))
            continue
        except HearthError as exc:
            failures.append(
                RuleFailure(path, "unreadable", exc.message, "replace it with a regular file")
            )
            continue
        if data is not None:
            failures += check_blob(path, data, home.settings.bounds)
    head = home.store.snapshot()
    if head.entry(layout.ACTIVE_PATH) is not None:
        failures += [f for f in check_path(layout.ACTIVE_PATH) if f.rule == "active-generated"]
    return failures


def _rename_fix(path: str) -> str:
    """The command that renames a file whose name hearth refuses (a control
    character, a backslash, a name too long), to paste into a shell: the old
    name in bash's ``$'...'`` quoting when it holds what a terminal shows
    otherwise than it is, the new one with each such character a ``-``."""
    parts = []
    for name in path.split("/"):
        plain = "".join("-" if ord(c) < 0x20 or c in "\\\x7f" else c for c in name)
        stem, dot, ext = plain.rpartition(".")
        if len(plain.encode()) > 200:
            short = (stem or plain).encode()[:180].decode(errors="ignore")
            plain = short + (dot + ext if stem else "")
        parts.append(plain)
    return f"rename it: git mv -- {_said(path)} {shlex.quote('/'.join(parts))}"


def _said(path: str) -> str:
    """``path`` quoted for bash, in ``$'...'`` with escapes when it holds a control
    character, a backslash or a quote (a raw tab or newline pasted is lost)."""
    if not any(ord(c) < 0x20 or c in "\\'\x7f" for c in path):
        return shlex.quote(path)
    named = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\", "'": "\\'"}
    return (
        "$'"
        + "".join(
            named.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x20 or c == "\x7f" else c)
            for c in path
        )
        + "'"
    )


def symlink_failure(path: str, target: str) -> RuleFailure:
    """A symlink in the home: hearth never follows one, and one that a commit
    brought may point anywhere (``.git/config``, a folder outside the home)."""
    return RuleFailure(
        path,
        "symlink",
        f"a symlink (to {target!r}); hearth never follows it, and one that came by sync "
        "can point outside the home",
        f"replace it with a regular file, or remove it: git rm {shlex.quote(path)}",
    )


def legacy_key_records(home: HomeParts) -> list[tuple[str, str]]:
    """Record files in the work tree still named with hearth's old key, and the
    name LionClaw's key gives them (what ``hearth check --fix-keys`` renames)."""
    found = []
    for folder in layout.record_folders():
        for name in home.files.list_files(folder):
            path = f"{folder}/{name}"
            if not name.endswith(".md"):
                continue
            try:
                data = home.files.read(path)
            except HearthError:
                continue
            if data is None:
                continue
            fix = records.lionclaw_key_rename(path, data.decode("utf-8", "replace"))
            if fix is not None:
                found.append((path, fix[0]))
    return found
