"""What a reconcile pass did, and how the index compares with the files."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from hearth.index.ondisk import VectorCoverage


@dataclass(frozen=True)
class PassReport:
    """What one pass did."""

    full: bool
    scanned: int = 0
    hashed: int = 0
    indexed: int = 0
    removed: int = 0
    parked: int = 0
    errors: tuple[str, ...] = ()
    rebuilt: bool = False
    active_written: bool = False
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return bool(self.indexed or self.removed or self.parked)

    def as_dict(self) -> dict[str, object]:
        return {**dataclasses.asdict(self), "errors": list(self.errors)}


@dataclass(frozen=True)
class ActiveState:
    """What ACTIVE.md's view needs of the index, without comparing every file."""

    head: str | None
    last_reconcile: str | None
    #: As ``IndexStatus.active``.
    active: str
    active_error: str | None


@dataclass(frozen=True)
class IndexStatus:
    """How the index compares with the files right now (read-only: nothing is applied)."""

    fresh: bool
    files_on_disk: int
    files_indexed: int
    documents: int
    stale_files: int
    head: str | None
    indexed_head: str | None
    last_reconcile: str | None
    parked: list[dict[str, str]]
    errors: list[str]
    active_error: str | None
    #: ACTIVE.md on disk: ``fresh`` (what hearth rendered at this HEAD),
    #: ``behind`` (rendered at an older HEAD; a pass is due), ``missing``,
    #: ``foreign`` (other bytes: edited by hand, or not a file) or ``error``.
    active: str = "fresh"
    #: Semantic ranking's vectors (None when it is off).
    vectors: VectorCoverage | None = None
    #: Why the index is not fresh, one sentence each (empty when it is).
    stale_reasons: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "fresh": self.fresh,
            "stale_reasons": list(self.stale_reasons),
            "files_on_disk": self.files_on_disk,
            "files_indexed": self.files_indexed,
            "documents": self.documents,
            "stale_files": self.stale_files,
            "head": self.head,
            "indexed_head": self.indexed_head,
            "last_reconcile": self.last_reconcile,
            "parked": self.parked,
            "errors": self.errors,
            "active_error": self.active_error,
            "active": self.active,
            "ranking": "keyword" if self.vectors is None else "hybrid",
            "vectors": self.vectors.as_dict() if self.vectors is not None else None,
        }
