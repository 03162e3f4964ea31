"""The git repository's plain questions, asked of libgit2 here and nowhere else
outside ``store/``: what HEAD and the branch are, what the work tree holds
that is not committed, what a commit would take from git's index, a blob's
id, the repository's own config. The application and the reconciler pass the
repository object around but never reach into it.
"""

from __future__ import annotations

from pathlib import Path

import pygit2

from hearth.store.git_cli import change_state

#: The repository object (opaque to callers outside store/).
Repository = pygit2.Repository
#: What libgit2 raises when a repository operation fails; the edges report it
#: as a refusal, like an OSError.
GitError = pygit2.GitError

_FS = pygit2.enums.FileStatus


def open_repository(root: Path) -> Repository:
    return pygit2.Repository(str(root))


def init_repository(root: Path) -> Repository:
    return pygit2.init_repository(str(root), initial_head="main")


def git_dir(repo: Repository) -> Path:
    return Path(repo.path)


def blob_id(data: bytes) -> str:
    """The id git gives a blob of these bytes."""
    return str(pygit2.hash(data))


def worktree_blob_id(repo: Repository, path: str, data: bytes) -> str:
    """The id git gives ``data`` as the work tree's copy of ``path``: after the
    clean filters that its attributes and the config name (``eol=crlf``,
    ``core.autocrlf``: CRLF back to LF), as ``git status`` and ``git add`` judge
    it. A file git checked out with CRLF is its LF blob, not an edit."""
    raw = pygit2.hash(data)
    try:
        filters = repo.load_filter_list(path)
        if filters is None:
            return str(raw)
        return str(pygit2.hash(filters.apply_to_buffer(data)))
    except (GitError, ValueError, OSError):
        return str(raw)


def head_id(repo: Repository) -> str | None:
    """HEAD's commit id (None on an unborn branch or a broken HEAD)."""
    try:
        return None if repo.head_is_unborn else str(repo.head.target)
    except GitError:
        return None


def parent_ids(repo: Repository, commit: str) -> list[str] | None:
    """The parents of ``commit``; None when it is not a commit here."""
    try:
        found = repo[commit]
    except (KeyError, ValueError):
        return None
    if not isinstance(found, pygit2.Commit):
        return None
    return [str(p) for p in found.parent_ids]


def branch(repo: Repository) -> str | None:
    """The branch HEAD names (None when detached)."""
    ref = repo.lookup_reference("HEAD").target
    return ref.removeprefix("refs/heads/") if isinstance(ref, str) else None


def is_ignored(repo: Repository, path: str) -> bool:
    try:
        return bool(repo.path_is_ignored(path))
    except GitError:
        return False


def worktree_changes(repo: Repository) -> list[tuple[str, str]]:
    """Every path that differs from HEAD, staged or not, with its state
    (``untracked``, ``modified``, ``staged``, ``staged+modified``, ``conflicted``),
    ignored files left out, sorted by path."""
    changes = []
    for path, flags in sorted(repo.status(untracked_files="all").items()):
        if not flags & _FS.IGNORED:
            changes.append((path, _state(flags)))
    return changes


def folder_in_head(repo: Repository, path: str) -> bool:
    """Whether HEAD's tree holds a folder at ``path`` (files git tracks under it)."""
    try:
        tree = repo.revparse_single("HEAD^{tree}")
        return bool(tree[path].type_str == "tree")  # type: ignore[index]
    except (KeyError, ValueError, GitError):
        return False


def untracked(repo: Repository) -> tuple[str, ...]:
    """Files git does not track and does not ignore."""
    found = [
        path
        for path, flags in repo.status(untracked_files="all").items()
        if flags & _FS.WT_NEW and not flags & (_FS.INDEX_NEW | _FS.IGNORED)
    ]
    return tuple(sorted(found))


def _state(flags: int) -> str:
    staged = _FS.INDEX_NEW | _FS.INDEX_MODIFIED | _FS.INDEX_DELETED | _FS.INDEX_RENAMED
    unstaged = _FS.WT_MODIFIED | _FS.WT_DELETED | _FS.WT_RENAMED | _FS.WT_TYPECHANGE
    return change_state(
        conflicted=bool(flags & _FS.CONFLICTED),
        untracked=bool(flags & _FS.WT_NEW and not flags & (_FS.INDEX_NEW | _FS.INDEX_MODIFIED)),
        staged=bool(flags & staged),
        unstaged=bool(flags & unstaged),
    )


def config_value(repo: Repository, key: str) -> str | None:
    try:
        return str(repo.config[key])
    except KeyError:
        return None


def set_config(repo: Repository, key: str, value: str) -> None:
    repo.config[key] = value
