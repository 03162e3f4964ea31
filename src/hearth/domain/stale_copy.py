"""A copy of a file in git's index that only a race with ``git commit`` could leave.

``git commit`` (an as-is commit, after ``git add``) reads ``.git/index``
*before* it takes ``index.lock``, then takes the lock, refreshes the entries'
stat data and writes the copy it read back (``builtin/commit.c``,
``prepare_index``; seen with ``strace``: ``openat(".git/index")`` comes before
``openat(".git/index.lock", O_CREAT|O_EXCL)`` and ``rename(index.lock,
index)``). A hearth write that commits and updates the index entry inside that
window, fully under ``index.lock``, is overwritten by git's older copy: HEAD
holds hearth's version, the index the one before it, and the commit that
follows (this one, or the person's next) reverts hearth's write. See
docs/reliability.md.

The sign of it: a staged blob that differs from HEAD's, whose work-tree copy
is HEAD's (so nobody edited and staged it), and that is the version of the
file just before a run of hearth's own commits to it, with no commit of a
person's in between. When the write git raced created the file (the day's
first entry), the older copy is no entry at all: the staged deletion of a
file whose work-tree copy is HEAD's and that a run of hearth's commits created.
Such a copy is hearth's write lost to the race, never a
person's choice, and is put back to HEAD's version: by the pre-commit hook
before git reads the index again to build the commit, and by hearth's next
write to the file (``store/git.py``).

This module reads the answer of one ``git log`` (``LOG_ARGS``), so the store
(through libgit2's repository) and the lean hook (through the git CLI) apply
the same rule.
"""

from __future__ import annotations

#: ``git log`` over one path (``-- PATH``), newest first: each commit's
#: ``Hearth-Op`` trailer (empty for a person's commit), then its raw diff line
#: (``:old_mode new_mode old_oid new_oid status<TAB>path``) for that path.
LOG_ARGS = (
    "-c",
    "core.quotePath=false",
    "log",
    "--first-parent",
    "-n",
    "200",
    "--no-abbrev",
    "--raw",
    "--no-renames",
    "--format=%x1e%(trailers:key=Hearth-Op,valueonly,separator=%x2C)",
)

#: How the log (and ``git diff-index``) names "no file": the old blob of the
#: commit that created the path. A staged copy with no entry, where hearth's
#: commit created the file, is that version.
NO_BLOB = "0" * 40


def replaced_only_by_hearth(log: str, staged_oid: str) -> bool:
    """Whether ``staged_oid`` is a version of the file that, going back from
    HEAD, only hearth's own commits (a ``Hearth-Op`` trailer) replaced.

    ``log`` is the output of ``git LOG_ARGS HEAD -- PATH``. The walk stops at
    the first commit of a person's (that version is theirs to stage) and after
    200 commits.
    """
    for record in log.split("\x1e")[1:]:
        head, _, raw = record.partition("\n")
        hearths = bool(head.strip())
        olds = [line.split()[2] for line in raw.splitlines() if line.startswith(":")]
        if not olds:
            continue
        if not hearths:
            return False
        if staged_oid in olds:
            return True
    return False
