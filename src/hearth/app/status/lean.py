"""``hearth status`` without opening the index or libgit2, when a pass would change nothing.

The CLI's status runs a reconcile pass first, so that its figures describe the
files as they are. On a home where nothing moved since the last pass, that pass
changes nothing, yet building it costs most of a second of imports (libgit2's
binding, Tantivy, YAML) for a few milliseconds of work. So the CLI glances
first: the files listed with ``lstat`` against the manifest, HEAD and the
changed paths from one ``git status`` (``store/git_cli.py``), the index's
document count from Tantivy's own metadata (``index/ondisk.py``), ACTIVE.md's
bytes against what the last pass rendered. When all of that says a pass would
change nothing, the status comes from there (and ``last_reconcile`` keeps the
time of the last pass that ran). Anything else answers None and the caller
runs the pass and the full status: a file that moved, a new file git does not
ignore, a HEAD the index has not seen, a read being retried, ACTIVE.md not as
rendered, a sync or reflection record newer than the last pass (ACTIVE.md's
Needs attention shows them), ignore rules that changed, a git the CLI cannot
read, a linked work tree.

It reads under the reconcile lock, as a pass does, so it never sees a manifest
half saved. The dict it gives is the one ``report.home_status`` gives after a pass
(tests/app/test_status_lean.py holds the two side by side). This module imports
nothing that loads libgit2, Tantivy, numpy or YAML (``.importlinter``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hearth.app.sync.copies import conflict_copies
from hearth.domain import layout
from hearth.domain.reflection import reflection_status
from hearth.domain.settings import Settings
from hearth.errors import Busy, HearthError
from hearth.index import ondisk
from hearth.reconcile import manifest as manifests
from hearth.reconcile.manifest import Manifest
from hearth.reconcile.reports import IndexStatus
from hearth.reconcile.scan import Listing, scan_tree
from hearth.runtimes.handed import home_rows
from hearth.store import git_cli, state
from hearth.store.ignore import rules_signature
from hearth.store.lock import write_lock
from hearth.store.rooted import RootedFiles
from hearth.store.trust import CommandTrust


@dataclass(frozen=True)
class LeanStatus:
    """The lean status of the home at ``root`` (``semantic``: whether semantic
    ranking is on in this process; ``lock_timeout``: the reconcile lock's wait)."""

    root: Path
    settings: Settings
    semantic: bool
    lock_timeout: float

    def status(self) -> dict[str, Any] | None:
        """As the module-level ``status``, None when a pass would change something."""
        model = None
        if self.semantic:
            from hearth.embedding import model_name  # noqa: PLC0415  (only when it is on)

            model = model_name(self.settings.search.model)
        return status(self.root, self.settings, model, self.lock_timeout)


def status(
    root: Path, settings: Settings, model: str | None, lock_timeout: float
) -> dict[str, Any] | None:
    """The status of the home at ``root`` when a reconcile pass would change nothing
    in it, else None. ``model``: the embedder's name when semantic ranking is on."""
    git_dir = root / ".git"
    folder = git_dir / state.FOLDER / state.INDEX_DIR
    if not git_dir.is_dir() or not folder.is_dir():
        return None  # a linked work tree (its git folder is elsewhere), or no index yet
    git = git_cli.status(root)
    if git is None:
        return None
    try:
        with write_lock(git_dir / state.FOLDER / state.RECONCILE_LOCK, lock_timeout):
            index = _index_status(root, git_dir, git.head, model)
    except Busy:
        return None
    if index is None:
        return None
    files = RootedFiles(root)
    changes = [{"path": path, "state": change} for path, change in git.changes]
    last_sync = state.read_record(git_dir / state.FOLDER / state.SYNC_RECORD)
    reflection = state.read_record(git_dir / state.FOLDER / state.REFLECTION_RECORD)
    return {
        "home": str(root),
        "branch": git.branch,
        "head": git.head,
        "dirty": bool(changes),
        "changes": changes,
        "pending_proposals": record_count(files, "proposal"),
        "open_loops": record_count(files, "loop"),
        "active_decisions": record_count(files, "decision"),
        "index": index.as_dict(),
        "sync": {
            "upstream": git.upstream,
            "ahead": git.ahead,
            "behind": git.behind,
            "last_result": last_sync.get("result"),
            "last_time": last_sync.get("time"),
            "last_error": last_sync.get("error"),
            "last_vectors": last_sync.get("vectors"),
        },
        "conflicts": conflict_copies(root),
        "reflection": reflection_status(
            settings.reflection,
            settings.reflection.enabled
            and CommandTrust(root, git_dir / state.FOLDER).approved(settings.reflection.command),
            reflection,
        ),
        "runtimes": home_rows(files.read, settings.context, root),
    }


def record_count(files: RootedFiles, kind: layout.RecordKind) -> int:
    """Active records of ``kind``: the ones ``active_records.list_records`` lists, broken
    ones included, counted without parsing them."""
    return sum(1 for name in files.list_files(layout.record_dir(kind)) if name.endswith(".md"))


def _index_status(
    root: Path, git_dir: Path, head: str | None, model: str | None
) -> IndexStatus | None:
    folder = git_dir / state.FOLDER / state.INDEX_DIR
    saved = manifests.load(folder)
    if saved is None or head is None or head != saved.indexed_head:
        return None
    documents = ondisk.documents(folder)
    if documents is None or documents != saved.documents():
        return None
    if saved.retries or saved.errors or saved.active_error is not None:
        return None
    listing = scan_tree(root)
    if listing.errors or rules_signature(listing.ignore_files, git_dir) != saved.ignore_signature:
        return None
    on_disk = _settled(root, listing, saved)
    if on_disk is None or not _active_as_rendered(root, saved, head):
        return None
    if _attention_moved(root, git_dir, folder):
        return None
    vectors = None
    if model is not None:
        stored = ondisk.stored_rows(git_dir / state.FOLDER / state.VECTORS_DIR)
        vectors = ondisk.VectorCoverage(model, max(0, min(stored, documents)), documents)
    return IndexStatus(
        fresh=True,
        files_on_disk=on_disk,
        files_indexed=len(saved.files),
        documents=documents,
        stale_files=0,
        head=head,
        indexed_head=saved.indexed_head,
        last_reconcile=saved.last_reconcile,
        parked=[{"path": path, "reason": p.reason} for path, p in sorted(saved.parked.items())],
        errors=[],
        active_error=None,
        active="fresh",
        vectors=vectors,
    )


def _settled(root: Path, listing: Listing, saved: Manifest) -> int | None:
    """How many listed files are indexed, when every one is as the manifest has it
    (indexed, or parked with the same signature and reason) and none is missing;
    else None. Files the manifest does not know must all be ignored by git."""
    known = saved.files.keys() | saved.parked.keys()
    unknown = [p for p in [*listing.files, *listing.refused] if p not in known]
    if unknown:
        ignored = git_cli.ignored(root, unknown)
        if ignored is None or len(ignored) != len(set(unknown)):
            return None
    indexed = 0
    for path, signature in listing.files.items():
        if path in saved.files:
            if not saved.files.matches(path, *signature):  # moved, or read too close to a change
                return None
            indexed += 1
            continue
        parked = saved.parked.get(path)
        if parked is not None and (parked.size, parked.mtime_ns) != signature:
            return None
    for path, (signature, reason) in listing.refused.items():
        parked = saved.parked.get(path)
        if parked is not None and ((parked.size, parked.mtime_ns), parked.reason) != (
            signature,
            reason,
        ):
            return None
    if indexed != len(saved.files):
        return None  # a file the index holds is gone
    if any(p not in listing.files and p not in listing.refused for p in saved.parked):
        return None
    return indexed


def _active_as_rendered(root: Path, saved: Manifest, head: str) -> bool:
    """ACTIVE.md holds the bytes the last pass rendered, at this HEAD."""
    if saved.active_head != head or saved.active_digest is None:
        return False
    try:
        data = RootedFiles(root).read(layout.ACTIVE_PATH)
    except (HearthError, OSError):  # a folder or a symlink in its place: a pass says so
        return False
    return data is not None and hashlib.sha256(data).hexdigest() == saved.active_digest


def _attention_moved(root: Path, git_dir: Path, folder: Path) -> bool:
    """Whether what ACTIVE.md's Needs attention reports beyond the files (the last
    sync and reflection run, this machine's approved commands, ``.gitattributes``)
    changed since the last pass ended."""
    try:
        last_pass = (folder / manifests.PASS_NAME).stat().st_mtime_ns
    except OSError:
        return True
    for path in (
        git_dir / state.FOLDER / state.SYNC_RECORD,
        git_dir / state.FOLDER / state.REFLECTION_RECORD,
        git_dir / state.FOLDER / state.TRUSTED_COMMANDS,
        root / ".gitattributes",
    ):
        try:
            if path.stat().st_mtime_ns >= last_pass:
                return True
        except FileNotFoundError:
            continue
        except OSError:
            return True
    return False
