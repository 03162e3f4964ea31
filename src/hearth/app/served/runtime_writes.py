"""Commit what a runtime's agent writes with its own file tools, once it settles.

OpenClaw's agent writes daily notes, MEMORY.md and USER.md into the home with
generic file tools (and its dreaming writes DREAMS.md). With ``[runtimes.openclaw]
commit_writes = true`` in hearth.toml, the served home commits those files:

- the watcher's events only say "something may have changed" (level, not
  edge): every path they name that the runtime's patterns name becomes a
  candidate, and a full pass (the branch moved, a start, a missed event) looks
  at every file those patterns name;
- a change settles when no event came for ``settle_seconds`` and no candidate
  was modified within that time (by its mtime): then the candidates that
  differ from HEAD become one commit, by ``Hearth-Actor: <runtime>``
  (``Hearth-Op: runtime.write``), built from HEAD's tree plus exactly those
  paths through the store's one commit path;
- a candidate is left out, and named in status and ACTIVE.md's Needs
  attention until it changes, when git's index holds a staged version of it
  (a person's staged work is theirs to commit) or when it fails the checks
  every write passes (the file bound, the validation rules: secrets, control
  characters, the hot files' bounds);
- files are created and changed, never deleted: a file the runtime removes
  stays in HEAD, and ``git status`` shows it deleted.

The settings and the patterns: ``domain/runtime_writes.py``; the whole contract:
docs/runtimes.md.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from hearth.app.parts import HomeParts
from hearth.app.writes.writer import AfterWrite, Writer
from hearth.domain.runtime_writes import RuntimeWrites
from hearth.domain.validation import check_blob
from hearth.errors import Conflict, HearthError
from hearth.store.plans import FileChange, Plan, Snapshot

#: Seconds to wait before trying again after a commit could not be made (a
#: rebase in progress, the lock held): the files are still there.
RETRY_SECONDS = 5.0

Owned = Callable[[], contextlib.AbstractContextManager[object]]


@dataclass
class Settled:
    """What one settle did: the commit (if any), its paths, what it left out."""

    commit: str | None = None
    paths: tuple[str, ...] = ()
    refused: dict[str, str] = field(default_factory=dict)
    waiting: bool = False  # a candidate changed too recently: asked again later


class RuntimeWriteCommits(Writer):
    """One runtime's writes into the home, committed as they settle."""

    def __init__(
        self,
        parts: HomeParts,
        rules: RuntimeWrites,
        after_write: AfterWrite | None = None,
        *,
        owned: Owned | None = None,
        wall: Callable[[], float] = time.time,
        refused: dict[str, str] | None = None,
    ) -> None:
        super().__init__(parts, after_write)
        self.rules = rules
        self._owned = owned or contextlib.nullcontext
        self._wall = wall
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pending: set[str] = set()
        self._full = False
        self._due: float | None = None
        #: Paths left out, with why, until they change (``refused`` given: shared
        #: with the notices that read it, built before this object).
        self.refused: dict[str, str] = {} if refused is None else refused
        self.commits = 0
        self.last_commit: str | None = None
        self.last_error: str | None = None

    # -- what the watcher says -------------------------------------------------------

    def hint(self, paths: set[str] | None) -> None:
        """Files may have changed (None: anything may have); settle them after a quiet spell."""
        with self._lock:
            if paths is None:
                self._full = True
            else:
                named = {p for p in paths if self.rules.names(p)}
                # A folder (a move or removal watchfiles reports as the folder) is scanned.
                folders = {p for p in paths if (self.root / p).is_dir()}
                if not named and not folders:
                    return
                self._pending |= named
                self._full = self._full or bool(folders)
            self._due = self._wall() + self.rules.settle_seconds
        self._wake.set()

    # -- the background thread -------------------------------------------------------

    def start(self) -> None:
        """Start settling in the background, with a look at every named file first."""
        self.hint(None)
        self._thread = threading.Thread(
            target=self._run, name=f"hearth-{self.rules.runtime}-writes", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(10)

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                due = self._due
            if due is None:
                self._wake.wait()
                self._wake.clear()
                continue
            wait = due - self._wall()
            if wait > 0:
                self._wake.wait(wait)
                self._wake.clear()
                continue
            try:
                self.settle()
            except Exception as exc:  # the thread lives on: status shows why, and it retries
                self.last_error = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
                self._again(RETRY_SECONDS)

    def _again(self, seconds: float, paths: set[str] | None = None) -> None:
        with self._lock:
            if paths is None:
                self._full = True
            else:
                self._pending |= paths
            self._due = max(self._due or 0.0, self._wall() + seconds)

    # -- one settle ------------------------------------------------------------------

    def settle(self) -> Settled:
        """Commit the candidates that are quiet and differ from HEAD (one commit)."""
        with self._lock:
            pending, full = self._pending, self._full
            self._pending, self._full, self._due = set(), False, None
        with self._owned():  # the repository object has one user at a time
            candidates = self._differing(pending | (self._scan() if full else set()))
        ages = [a for a in map(self._age, candidates) if a is not None and a >= 0]
        youngest = min(ages, default=None)  # a gone file, or one dated ahead, is not waited for
        if youngest is not None and youngest < self.rules.settle_seconds:
            self._again(self.rules.settle_seconds - youngest, candidates)
            return Settled(waiting=True)
        with self._owned():
            outcome = self._commit_settled(candidates)
        self.last_error = None
        return outcome

    def _commit_settled(self, candidates: set[str]) -> Settled:
        refused: dict[str, str] = {}
        changed: list[str] = []

        def planner(snap: Snapshot) -> Plan:
            refused.clear()
            changed.clear()
            changes = []
            for path in sorted(candidates):
                data = self.files.read(path)
                if data is None or data == snap.read(path):
                    continue
                why = self._refusal(path, data, snap)
                if why is not None:
                    refused[path] = why
                    continue
                changes.append(FileChange(path, data))
                changed.append(path)
            more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
            shown = ", ".join(changed[:3]) + more
            subject = f"memory: {self.rules.runtime} wrote {shown}"
            return Plan(subject, tuple(changes))

        try:
            result = self._commit(planner, "runtime.write", self.rules.actor, agent=True)
        except Conflict as exc:
            # A file changed again between the read and the commit, or a merge or
            # rebase is in progress: nothing was written; look again later.
            self.last_error = exc.message
            self._again(RETRY_SECONDS, candidates)
            return Settled(refused=dict(refused), waiting=True)
        for path in candidates:
            self.refused.pop(path, None)
        self.refused.update(refused)
        if not result.changed:
            return Settled(refused=dict(refused))
        self.commits += 1
        self.last_commit = result.commit
        return Settled(result.commit, tuple(result.paths), dict(refused))

    def _differing(self, paths: set[str]) -> set[str]:
        """The paths whose file on disk is not HEAD's version (a file the runtime
        removed is not one: removals are never committed for it)."""
        snap = self.store.snapshot()
        found = set()
        for path in paths:
            try:
                data = self.files.read(path)
            except HearthError as exc:  # a symlink or a folder where a file was named
                self.refused[path] = exc.message
                continue
            if data is not None and data != snap.read(path):
                found.add(path)
            else:
                self.refused.pop(path, None)
        return found

    def _refusal(self, path: str, data: bytes, snap: Snapshot) -> str | None:
        """Why ``path`` may not be committed for the runtime, or None."""
        if self.store.index_file.staged_oid(path) != snap.oid(path):
            return "git's index holds a staged version (a person's work): commit it yourself"
        if len(data) > self.settings.file_bytes:
            return (
                f"{len(data)} bytes, over the bound of {self.settings.file_bytes} "
                "([bounds] file_bytes in hearth.toml)"
            )
        failures = check_blob(path, data, self.settings.bounds)
        if failures:
            return "; ".join(f"[{f.rule}] {f.message}" for f in failures)
        return None

    def _scan(self) -> set[str]:
        """Every file on disk the patterns name (walking only where they reach)."""
        found: set[str] = set()
        for pattern in self.rules.paths:
            parts = pattern.split("/")
            fixed = []
            for part in parts[:-1]:
                if any(c in part for c in "*?["):
                    break
                fixed.append(part)
            depth = len(parts) - len(fixed)
            found |= {p for p in self._walk("/".join(fixed), depth) if self.rules.names(p)}
        return found

    def _walk(self, folder: str, depth: int) -> Iterator[str]:
        top = self.root / folder if folder else self.root
        for here, dirs, names in os.walk(top):
            rel = os.path.relpath(here, top)
            level = 0 if rel == "." else rel.count(os.sep) + 1
            dirs[:] = [d for d in dirs if not d.startswith(".")] if level + 1 < depth else []
            prefix = "/".join(p for p in (folder, "" if rel == "." else rel) if p)
            prefix = prefix.replace(os.sep, "/")
            for name in names:
                yield f"{prefix}/{name}" if prefix else name

    def _age(self, path: str) -> float | None:
        """Seconds since ``path`` was last modified (None: it is gone)."""
        try:
            return self._wall() - (self.root / path).lstat().st_mtime
        except OSError:
            return None

    # -- what status and ACTIVE.md show ------------------------------------------------

    def as_dict(self) -> dict[str, object]:
        return {
            "runtime": self.rules.runtime,
            "paths": list(self.rules.paths),
            "settle_seconds": self.rules.settle_seconds,
            "commits": self.commits,
            "last_commit": self.last_commit,
            "refused": [{"path": p, "reason": r} for p, r in sorted(self.refused.items())],
            "last_error": self.last_error,
        }

    def attention(self) -> list[str]:
        return refusal_notes(self.rules, self.refused)


def set_up_here(
    wanted: Sequence[RuntimeWrites], approved: Callable[[RuntimeWrites], bool]
) -> tuple[list[RuntimeWrites], list[RuntimeWrites]]:
    """The runtimes whose writes hearth.toml asks to commit, split into those this
    machine set up (committed) and those it did not (waiting). hearth.toml syncs:
    a commit from the remote must not make this machine commit, and push, what
    its person left uncommitted."""
    return [r for r in wanted if approved(r)], [r for r in wanted if not approved(r)]


def waiting_notes(waiting: Sequence[RuntimeWrites]) -> list[str]:
    """Needs attention lines for the runtimes whose writes wait to be set up here."""
    return [
        f"hearth.toml asks to commit what {rules.runtime} writes, but it was not set up on "
        f"this machine, so nothing is committed for it here; if you use {rules.runtime} "
        f"here, run 'hearth setup {rules.runtime}'"
        for rules in waiting
    ]


def refusal_notes(rules: RuntimeWrites, refused: dict[str, str]) -> list[str]:
    """ACTIVE.md's Needs attention lines for a runtime's writes left uncommitted."""
    return [
        f"{path} (written by {rules.runtime}) is not committed: {why}"
        for path, why in sorted(refused.items())
    ]
