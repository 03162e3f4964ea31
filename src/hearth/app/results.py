"""What the use cases answer: typed results, each with the ``as_dict`` the
CLI's ``--json`` prints and the HTTP models and MCP tools are built from."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hearth.domain import textdiff
from hearth.errors import RuleFailure
from hearth.reconcile.reports import IndexStatus, PassReport
from hearth.store.active_records import RecordView


@dataclass(frozen=True)
class WriteResult:
    commit: str | None
    path: str
    changed: bool = True
    key: str | None = None
    #: A record saved by title: True when one of that title was there and was
    #: updated, False when a new one was made (None for other writes).
    updated: bool | None = None
    #: A proposal's merge: each held entry a proposed one replaced (a fact with a
    #: new value, ``Restatement.as_dict``), with ``kept_at``, the record that
    #: keeps the old one; None for other writes.
    replaced: tuple[dict[str, object], ...] | None = None

    def as_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "commit": self.commit,
            "path": self.path,
            "changed": self.changed,
        }
        if self.key is not None:
            data["key"] = self.key
        if self.updated is not None:
            data["updated"] = self.updated
        if self.replaced is not None:
            data["replaced"] = [dict(r) for r in self.replaced]
        return data


@dataclass(frozen=True)
class BatchResult:
    """What a merge or rejection of many proposals in one commit did."""

    commit: str | None
    changed: bool
    keys: tuple[str, ...]
    outcome: str
    #: Entries added to the targets, and skipped as already there (a merge).
    added: int = 0
    skipped: int = 0

    def as_dict(self) -> dict[str, object]:
        return {
            "commit": self.commit,
            "changed": self.changed,
            "keys": list(self.keys),
            "outcome": self.outcome,
            "added": self.added,
            "skipped": self.skipped,
        }


#: The versions a caller's page was made from: path -> HEAD's blob id (None: absent).
Expected = Mapping[str, str | None]


@dataclass(frozen=True)
class MergePreview:
    """What merging a pending proposal would do, computed from HEAD like the merge."""

    key: str
    path: str
    oid: str | None
    target: str
    target_oid: str | None
    before: str
    after: str
    added: tuple[str, ...]
    skipped: tuple[str, ...]

    @property
    def diff(self) -> str:
        return textdiff.unified(
            self.target, self.before if self.target_oid is not None else None, self.after
        )


@dataclass(frozen=True)
class KeyFix:
    """What ``fix_keys`` did: the renames, and the files it had to leave alone."""

    commit: str | None
    renamed: tuple[tuple[str, str], ...]
    blocked: tuple[tuple[str, str], ...]

    def as_dict(self) -> dict[str, object]:
        return {
            "commit": self.commit,
            "renamed": [{"from": old, "to": new} for old, new in self.renamed],
            "blocked": [{"path": path, "reason": why} for path, why in self.blocked],
        }


@dataclass(frozen=True)
class CheckResult:
    """``check``: the rule failures, records still named with old keys, and
    (with ``fix_keys``) the renames made."""

    failures: list[RuleFailure]
    legacy: list[tuple[str, str]]
    fixed: KeyFix | None = None
    #: What is wrong around the files without failing the check (others can read the home).
    warnings: list[RuleFailure] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ok": self.ok,
            "failures": [f.as_dict() for f in self.failures],
            "legacy_keys": [{"path": old, "lionclaw_path": new} for old, new in self.legacy],
            "warnings": [w.as_dict() for w in self.warnings],
        }
        if self.fixed is not None:
            data["fixed"] = self.fixed.as_dict()
        return data


@dataclass(frozen=True)
class Reindexed:
    report: PassReport
    #: Sections embedded before answering (0 from a server: its filler embeds).
    embedded: int = 0
    #: Sections without a vector when it answered, which a server's filler
    #: embeds in the background (None: semantic ranking off).
    to_embed: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {**self.report.as_dict(), "embedded": self.embedded, "to_embed": self.to_embed}


@dataclass(frozen=True)
class Review:
    """What waits for a person: pending proposals, then open loops."""

    proposals: list[RecordView] = field(default_factory=list)
    loops: list[RecordView] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "proposals": [v.as_dict() for v in self.proposals],
            "loops": [v.as_dict() for v in self.loops],
        }


@dataclass(frozen=True)
class Diff:
    """A unified diff between two revisions; ``to_rev`` "work tree" is the files on
    disk. ``path`` None: every file that differs (``files``, and ``skipped`` past
    the per-call maximum)."""

    path: str | None
    from_rev: str
    to_rev: str
    diff: str
    files: list[str] | None = None
    skipped: list[str] | None = None

    def as_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"path": self.path, "from": self.from_rev, "to": self.to_rev}
        if self.files is not None:
            data["files"], data["skipped"] = self.files, self.skipped
        data["diff"] = self.diff
        return data


@dataclass(frozen=True)
class ActiveView:
    """The generated ACTIVE.md as it is on disk, with how fresh it is."""

    path: str
    head: str | None
    refreshed: str | None
    fresh: bool
    #: fresh | behind | missing | foreign | error (see docs/reconciler.md)
    state: str
    error: str | None
    content: str

    def as_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Change:
    """A path git's status shows as changed or untracked in the work tree."""

    path: str
    state: str


@dataclass(frozen=True)
class HomeStatus:
    """The home's branch, HEAD, uncommitted changes and record counts; with the
    index's freshness, the sync state and reflection where the caller has them."""

    home: str
    branch: str | None
    head: str | None
    changes: list[Change]
    pending_proposals: int
    open_loops: int
    active_decisions: int = 0
    index: IndexStatus | None = None
    sync: Mapping[str, object] | None = None
    #: Conflict copies a sync left to resolve (with ``sync``).
    conflicts: list[str] | None = None
    reflection: Mapping[str, object] | None = None
    #: What each runtime is handed at session start (``runtimes/handed.py``).
    runtimes: Sequence[Mapping[str, object]] = ()

    @property
    def dirty(self) -> bool:
        return bool(self.changes)

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "home": self.home,
            "branch": self.branch,
            "head": self.head,
            "dirty": self.dirty,
            "changes": [{"path": c.path, "state": c.state} for c in self.changes],
            "pending_proposals": self.pending_proposals,
            "open_loops": self.open_loops,
            "active_decisions": self.active_decisions,
        }
        if self.index is not None:
            data["index"] = self.index.as_dict()
        if self.sync is not None:
            data["sync"], data["conflicts"] = dict(self.sync), self.conflicts
        if self.reflection is not None:
            data["reflection"] = dict(self.reflection)
        data["runtimes"] = [dict(r) for r in self.runtimes]
        return data


@dataclass(frozen=True)
class SnapshotInfo:
    """When a served home's status snapshot was taken, and whether it is current."""

    as_of: str
    age_seconds: float
    current: bool
    passes: int
    seconds: float
    error: str | None


@dataclass(frozen=True)
class ServedStatus:
    """A served home's status: the snapshot (``home``, its index called fresh only
    while the snapshot is current) and what is read live."""

    home: HomeStatus
    snapshot: SnapshotInfo
    watcher: Mapping[str, object]
    worker: Mapping[str, object]
    scheduler: Mapping[str, object]
    started: str | None
    locks: Mapping[str, object]
    #: The background vector fill (semantic ranking on).
    vector_filler: Mapping[str, object] | None = None
    #: The reconcile pass running now (status' ``index.pass``; None when none runs).
    running_pass: Mapping[str, object] | None = None
    #: Runtimes whose own writes the home commits (``[runtimes.*]``; docs/runtimes.md).
    runtime_writes: list[Mapping[str, object]] = dataclasses.field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        data = self.home.as_dict()
        if "index" in data:
            data["index"]["pass"] = dict(self.running_pass) if self.running_pass else None
        data["snapshot"] = dataclasses.asdict(self.snapshot)
        data["watcher"], data["worker"] = dict(self.watcher), dict(self.worker)
        if self.vector_filler is not None:
            data["vector_filler"] = dict(self.vector_filler)
        data["scheduler"], data["started"] = dict(self.scheduler), self.started
        data["locks"] = dict(self.locks)
        if self.runtime_writes:
            data["runtime_writes"] = [dict(w) for w in self.runtime_writes]
        return data
