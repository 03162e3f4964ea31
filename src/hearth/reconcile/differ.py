"""One pass's comparison of the files on disk with the manifest.

``Differ.diff`` takes a listing (``scan.py``) and the manifest of what was
last applied, decides which files to read (size or mtime moved, not parked
with the same signature, not ignored by git), reads them (``prepare.py``:
in worker processes for a large pass), and records the outcome: sections
streamed into the index batch, manifest entries updated, files parked with
their reason, failed reads counted towards ``PARK_AFTER``. It changes the
manifest it is given and the batch; committing both is the reconciler's job.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from hearth.domain import layout
from hearth.domain.sections import Section
from hearth.domain.validation import Bounds
from hearth.index.search_index import IndexUpdate
from hearth.index.semantic import Progress
from hearth.reconcile.manifest import FileEntry, Manifest, ParkedFile
from hearth.reconcile.prepare import (
    PARALLEL_FROM,
    EarlyWorkers,
    Outcome,
    Readers,
    outcomes,
    read_ahead,
)
from hearth.reconcile.scan import Listing, Signature, is_inside, scan_tree, stat_paths
from hearth.store.ignore import IgnoreRules
from hearth.store.rooted import RootedFiles

#: Failed reads of one file before it is parked.
PARK_AFTER = 3
#: A file changed this recently before it was read may change again within the
#: same mtime tick, unseen: it is hashed again on the next pass (git calls this
#: "racy"). Linux stamps mtimes from a coarse clock (a tick of a few
#: milliseconds), well inside the window; file systems with whole-second mtimes
#: (FAT, ext3, some network mounts) get the coarse window, two such ticks.
RACY_WINDOW_NS = 100_000_000
RACY_WINDOW_COARSE_NS = 2_000_000_000


@dataclass
class Changes:
    """What a pass changes; index updates stream into ``batch`` as they are found."""

    batch: IndexUpdate
    indexed: int = 0
    delete: set[str] = field(default_factory=set)
    hashed: int = 0
    parked: int = 0
    scanned: int = 0
    errors: list[str] = field(default_factory=list)
    #: Paths whose manifest entries may have changed (journaled after the pass).
    touched: set[str] = field(default_factory=set)
    #: The ignore rules changed: the whole manifest is saved anew.
    rules_changed: bool = False
    #: Sections put in the index, for semantic ranking to embed (kept only when
    #: ``keep_sections``, that is with semantic ranking on: they are more than
    #: half of what a build's memory grows by a file, docs/performance.md).
    sections: list[Section] = field(default_factory=list)
    keep_sections: bool = True
    #: Paths re-indexed or removed: what they held before waits for no vector.
    replaced: set[str] = field(default_factory=set)

    def remove(self, path: str) -> None:
        self.touched.add(path)
        self.replaced.add(path)
        self.delete.add(path)
        self.batch.delete(path)

    def put(self, path: str, sections: list[Section], file_digest: bytes) -> None:
        """Index ``sections`` of ``path``, cut from bytes of ``file_digest``."""
        self.touched.add(path)
        self.replaced.add(path)
        self.indexed += 1
        self.batch.replace(path, sections, file_digest)
        if self.keep_sections:
            self.sections += sections


class Differ:
    def __init__(self, root: Path, files: RootedFiles, bounds: Bounds, ignore: IgnoreRules) -> None:
        self.root = root
        self.files = files
        self.bounds = bounds
        self.ignore = ignore

    def listing(self, paths: Iterable[str] | None) -> tuple[Listing, list[str] | None]:
        """The files to compare, and the scope they cover (None: the whole home)."""
        if paths is None:
            return scan_tree(self.root), None
        scope: list[str] = []
        singles: list[str] = []
        listing = Listing()
        for path in dict.fromkeys(paths):
            if path == layout.ACTIVE_PATH:
                continue  # hearth's own output: the refresh after the pass looks at it
            if not is_inside(self.root, path):
                # Gone, or reached through a symlink: whatever was indexed under it
                # goes. A symlink itself in a real folder is looked at, to be parked.
                scope += [path, path + "/"]
                parent = path.rpartition("/")[0]
                if (self.root / path).is_symlink() and (not parent or is_inside(self.root, parent)):
                    singles.append(path)
                continue
            if (self.root / path).is_dir():
                sub = scan_tree(self.root, path)
                listing.files.update(sub.files)
                listing.refused.update(sub.refused)
                listing.errors += sub.errors
                scope.append(path + "/")
            else:
                singles.append(path)
                scope.append(path)
        single = stat_paths(self.root, singles)
        listing.files.update(single.files)
        listing.refused.update(single.refused)
        listing.errors += single.errors
        return listing, scope

    def indexable(self, listing: Listing, state: Manifest, full: bool) -> tuple[set[str], str]:
        """Listed paths git does not ignore, and the ignore signature they were judged by."""
        signature = state.ignore_signature
        if full:
            signature = self.ignore.signature(listing.ignore_files)
        listed = [*listing.files, *listing.refused]
        if signature == state.ignore_signature:
            # Rules unchanged: what is indexed or parked was judged already.
            listed = [p for p in listed if p not in state.files and p not in state.parked]
        ignored = self.ignore.ignored(listed, signature)
        return {p for p in [*listing.files, *listing.refused] if p not in ignored}, signature

    def diff(
        self,
        listing: Listing,
        state: Manifest,
        scope: list[str] | None,
        batch: IndexUpdate,
        progress: Progress | None = None,
        parallel_from: int = PARALLEL_FROM,
        keep_sections: bool = True,
        early: EarlyWorkers | None = None,
    ) -> Changes:
        """Compare ``listing`` with ``state``, read what moved, and update ``state``.

        The index changes go to ``batch`` as they are found, so Tantivy's threads
        index while the next files are read. ``early``: worker processes started
        before, for the reading (``prepare.EarlyWorkers``).
        """
        changes = Changes(batch, keep_sections=keep_sections)
        # Before any file is read (``RACY_WINDOW_NS``).
        pass_start = time.time_ns()
        started = None
        fresh = scope is None and not state.files and not state.parked
        if fresh and len(listing.files) >= parallel_from:
            # A first pass or a rebuild reads every listed file but those git
            # ignores: the workers start on them at once, and start up and read
            # while libgit2 is asked about each file (a CPU cost that grows with the tree).
            started = read_ahead(self.root, self.bounds, listing.files, early)
        try:
            return self._diff(
                listing, state, scope, changes, progress, parallel_from, started, pass_start
            )
        finally:
            if started is not None:
                started.close()  # closed already unless something failed before the reading

    def _diff(
        self,
        listing: Listing,
        state: Manifest,
        scope: list[str] | None,
        changes: Changes,
        progress: Progress | None,
        parallel_from: int,
        started: Readers | None,
        pass_start: int,
    ) -> Changes:
        batch = changes.batch
        before = state.ignore_signature
        present, state.ignore_signature = self.indexable(listing, state, scope is None)
        changes.rules_changed = before != state.ignore_signature
        if scope is None:
            known = [*state.files, *state.parked]
        else:
            known = [p for p in scope if p in state.files or p in state.parked]
            folders = tuple(s for s in scope if s.endswith("/"))
            if folders:
                known += [p for p in [*state.files, *state.parked] if p.startswith(folders)]
        for path in known:
            if path not in present:
                changes.touched.add(path)
                if state.drop(path) is not None:
                    changes.remove(path)
                state.parked.pop(path, None)
                state.retries.pop(path, None)
        for path, (signature, reason) in listing.refused.items():
            if path in present:
                self._park(state, changes, path, signature, reason)
        to_read = []
        for path in sorted(p for p in present if p in listing.files):
            signature = listing.files[path]
            if state.files.matches(path, *signature):
                continue
            parked = state.parked.get(path)
            if parked is not None and (parked.size, parked.mtime_ns) == signature:
                continue
            to_read.append((path, signature))
        batch.expect(len(to_read))
        total = len(to_read)
        digests = {p: e.digest for p, _sig in to_read if (e := state.files.get(p)) is not None}
        found = outcomes(self.files, self.bounds, to_read, digests, parallel_from, started)
        for done, (outcome, signature) in enumerate(found, start=1):
            if state.parked.pop(outcome.path, None) is not None:
                changes.touched.add(outcome.path)
            self._apply(state, changes, outcome, signature, pass_start)
            if progress is not None:
                progress(done, total)
        return changes

    def _apply(
        self,
        state: Manifest,
        changes: Changes,
        outcome: Outcome,
        signature: Signature,
        pass_start: int,
    ) -> None:
        path, mtime_ns = outcome.path, signature[1]
        if outcome.kind == "refused":
            self._park(state, changes, path, signature, outcome.reason)
            return
        if outcome.kind == "failed":
            failures = state.retries.get(path, 0) + 1
            state.retries[path] = failures
            changes.touched.add(path)
            reason = f"cannot be read ({outcome.reason})"
            if failures >= PARK_AFTER:
                self._park(state, changes, path, signature, f"{reason}, {failures} times")
            return
        if state.retries.pop(path, None) is not None:
            changes.touched.add(path)
        if outcome.kind == "gone":  # vanished between listing and reading: gone for this pass
            if state.drop(path) is not None:
                changes.remove(path)
            return
        changes.hashed += 1
        window = RACY_WINDOW_COARSE_NS if mtime_ns % 1_000_000_000 == 0 else RACY_WINDOW_NS
        racy = mtime_ns >= pass_start - window
        entry = state.files.get(path)
        if entry is not None and entry.digest == outcome.digest:
            if (entry.size, entry.mtime_ns, entry.racy) != (outcome.size, mtime_ns, racy):
                moved = dataclasses.replace(entry, size=outcome.size, mtime_ns=mtime_ns, racy=racy)
                state.put(path, moved)
                changes.touched.add(path)
            return
        if outcome.kind == "undecodable":
            self._park(state, changes, path, signature, "not valid UTF-8 text; save it as UTF-8")
            return
        sections = list(outcome.sections)
        changes.put(path, sections, outcome.digest)
        entry = FileEntry(
            outcome.size, mtime_ns, outcome.digest, len(sections), racy, outcome.problems
        )
        state.put(path, entry)

    @staticmethod
    def _park(
        state: Manifest, changes: Changes, path: str, signature: Signature, reason: str
    ) -> None:
        changes.touched.add(path)
        if state.drop(path) is not None:
            changes.remove(path)
        known = state.parked.get(path)
        if known is None or (known.size, known.mtime_ns) != signature or known.reason != reason:
            changes.parked += 1
        state.parked[path] = ParkedFile(signature[0], signature[1], reason)
        state.retries.pop(path, None)
