"""What the reconciler last applied to the index, file by file.

The manifest lives in the index folder, so a rebuilt index and its manifest
are swapped in together and can never disagree about which index they
describe. Each file's entry holds the ``lstat`` signature (size, mtime) it
was read with and a hash of its content: a pass hashes only files whose
signature moved, and re-indexes only files whose hash moved.

Crash safety: the manifest is saved *after* the index commit, and every
index update deletes a path's documents before adding its new ones. A crash
between the two therefore leaves a manifest that is behind the index, which
the next pass repairs: a changed or new file is re-read (its documents are
replaced, not doubled) and a deleted one is still listed and gets deleted.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from hearth.domain.validation import RuleFailure

MANIFEST_NAME = "manifest.json"
PASS_NAME = "pass.json"
FORMAT = 1


@dataclass
class FileEntry:
    size: int
    mtime_ns: int
    digest: str
    documents: int = 0
    racy: bool = False  # read too close to its last change: hash again next pass
    failures: tuple[RuleFailure, ...] = ()

    def matches(self, size: int, mtime_ns: int) -> bool:
        return not self.racy and self.size == size and self.mtime_ns == mtime_ns


@dataclass(frozen=True)
class ParkedFile:
    """A file the reconciler will not try again until its signature changes."""

    size: int
    mtime_ns: int
    reason: str


@dataclass
class Manifest:
    files: dict[str, FileEntry] = field(default_factory=dict)
    parked: dict[str, ParkedFile] = field(default_factory=dict)
    #: Failed reads per path since its last success; parked at a threshold.
    retries: dict[str, int] = field(default_factory=dict)
    indexed_head: str | None = None
    last_reconcile: str | None = None
    ignore_signature: str = ""
    #: Problems of the last pass that are not about one file's content.
    errors: list[str] = field(default_factory=list)
    active_error: str | None = None

    def documents(self) -> int:
        return sum(entry.documents for entry in self.files.values())


def load(folder: Path) -> Manifest | None:
    """The manifest in ``folder``; None when it is missing or unreadable."""
    try:
        data = json.loads((folder / MANIFEST_NAME).read_bytes())
        if data.get("format") != FORMAT:
            return None
        files = {
            path: FileEntry(
                size, mtime, digest, docs, bool(racy), tuple(RuleFailure(path, *f) for f in fails)
            )
            for path, (size, mtime, digest, docs, racy, fails) in data["files"].items()
        }
        parked = {
            path: ParkedFile(size, mtime, reason)
            for path, (size, mtime, reason) in data["parked"].items()
        }
        state = Manifest(
            files,
            parked,
            {str(k): int(v) for k, v in data.get("retries", {}).items()},
            ignore_signature=data.get("ignore_signature", ""),
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    load_pass(folder, state)
    return state


def load_pass(folder: Path, state: Manifest) -> None:
    """Read the small per-pass record (last reconcile, indexed HEAD, errors) into ``state``."""
    try:
        data = json.loads((folder / PASS_NAME).read_bytes())
        state.indexed_head = data.get("indexed_head")
        state.last_reconcile = data.get("last_reconcile")
        state.errors = [str(e) for e in data.get("errors", [])]
        state.active_error = data.get("active_error")
    except (OSError, ValueError, TypeError, AttributeError):
        return


def save(folder: Path, manifest: Manifest, *, files: bool = True) -> None:
    """Write the per-pass record and, when ``files``, the file map (each atomically).

    The file map is the big part (a line per file): a pass that changed no
    entry skips it, which keeps a no-change pass over a large home cheap.
    """
    if files:
        data = {
            "format": FORMAT,
            "ignore_signature": manifest.ignore_signature,
            "retries": manifest.retries,
            "files": {
                path: [
                    e.size,
                    e.mtime_ns,
                    e.digest,
                    e.documents,
                    int(e.racy),
                    [[f.rule, f.message, f.fix] for f in e.failures],
                ]
                for path, e in manifest.files.items()
            },
            "parked": {path: [p.size, p.mtime_ns, p.reason] for path, p in manifest.parked.items()},
        }
        _write_atomic(folder / MANIFEST_NAME, data)
    summary = {
        "indexed_head": manifest.indexed_head,
        "last_reconcile": manifest.last_reconcile,
        "errors": manifest.errors,
        "active_error": manifest.active_error,
    }
    _write_atomic(folder / PASS_NAME, summary)


def _write_atomic(target: Path, data: object) -> None:
    temp = target.with_name(f".{target.name}.tmp")
    with temp.open("wb") as handle:
        handle.write(json.dumps(data, separators=(",", ":")).encode())
        handle.flush()
        os.fsync(handle.fileno())
    temp.replace(target)


def signature(folder: Path) -> tuple[int, int, int] | None:
    """Identity of the manifest file on disk, to notice another process's save."""
    try:
        st = (folder / MANIFEST_NAME).stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns
