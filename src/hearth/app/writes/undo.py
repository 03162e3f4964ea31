"""Undoing an agent's change to a persona file or a note of memory: the person's one click
on the review page (``store/agent_changes.py`` lists the changes).

The undo is a new commit of the person's, marked ``Hearth-Undoes: <commit>
<path>``, history kept. When the file is still as the agent left it, it goes
back to what it was before; when it changed since, an entry file gets the
change's entries reversed (the entries the agent added removed, those it
removed or replaced put back), so later work stays; any other file changed
since is refused, to be restored by hand from its history.
"""

from __future__ import annotations

from hearth.app.results import Expected, WriteResult
from hearth.app.writes.writer import Writer, check_expected
from hearth.domain import entries, layout
from hearth.domain.paths import normalize
from hearth.domain.text import decode_text
from hearth.errors import Conflict, InvalidInput, NotFound
from hearth.store.git_cli import run_git
from hearth.store.plans import FileChange, Plan, Snapshot


class UndoWrites(Writer):
    def undo_agent_change(
        self, commit: str, path: str, actor: str, *, expected: Expected | None = None
    ) -> WriteResult:
        """Undo what ``commit`` (an agent's) did to ``path``, as one commit."""
        path = normalize(path)
        listed = (layout.is_persons_file, layout.is_runtime_file, layout.is_memory_note)
        if not any(found(path) for found in listed):
            raise InvalidInput(f"{path} is not a persona, runtime or memory file")
        kind = "persona" if layout.is_persons_file(path) else "memory"
        kind = "runtime" if layout.is_runtime_file(path) else kind
        commit = commit.strip().lower()
        if len(commit) != 40 or not _agents_commit(self, commit):
            raise NotFound(f"{commit[:12]} is no agent's commit in this home")
        after_snap = self.store.snapshot(commit)
        try:
            before = self.store.snapshot(f"{commit}^").read(path)
        except NotFound:
            before = None  # the home's first commit
        after = after_snap.read(path)
        if before == after:
            raise NotFound(f"commit {commit[:12]} did not change {path}")

        def planner(snap: Snapshot) -> Plan:
            check_expected(snap, expected)
            current = snap.read(path)
            restored = before if current == after else _reversed(path, before, after, current)
            return Plan(
                f"{kind}: undo an agent's change to {path} ({commit[:12]})",
                (FileChange(path, restored),),
                body=f"Undoes what commit {commit} did to {path}.",
            )

        result = self._commit(planner, "file.undo", actor, undoes=f"{commit} {path}")
        return WriteResult(result.commit, path, result.changed)


def _agents_commit(writer: Writer, commit: str) -> bool:
    done = run_git(
        writer.root,
        ["log", "-1", "--format=%(trailers:key=Hearth-By,valueonly)", commit, "--"],
        b"",
    )
    return done is not None and done[0] == 0 and done[1].decode().strip() == "agent"


def _reversed(path: str, before: bytes | None, after: bytes | None, current: bytes | None) -> bytes:
    """``current`` with the entry changes from ``before`` to ``after`` reversed."""
    if current is None or before is None or after is None:
        raise Conflict(f"{path} changed since that change; open its history and restore it by hand")
    texts = [decode_text(data, path) for data in (before, after, current)]
    if not all(entries.has_entries_section(t) for t in texts):
        raise Conflict(f"{path} changed since that change; open its history and restore it by hand")
    old, new, text = texts
    had = [e.text for e in entries.list_entries(old)]
    has = [e.text for e in entries.list_entries(new)]
    for added in (e for e in has if e not in had):
        if any(e.text == added for e in entries.list_entries(text)):
            text = entries.remove_entry(text, added)
    missing = [e for e in had if e not in has]
    text, _added = entries.add_entries(text, missing)
    return text.encode()
