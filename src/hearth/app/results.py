"""What the use cases answer: typed results, each with the ``as_dict`` the
CLI's ``--json`` prints and the HTTP models and MCP tools are built from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hearth.domain import textdiff
from hearth.domain.validation import RuleFailure
from hearth.reconcile.reports import PassReport
from hearth.store.catalog import RecordView


@dataclass(frozen=True)
class WriteResult:
    commit: str | None
    path: str
    changed: bool = True
    key: str | None = None

    def as_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "commit": self.commit,
            "path": self.path,
            "changed": self.changed,
        }
        if self.key is not None:
            data["key"] = self.key
        return data


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

    @property
    def ok(self) -> bool:
        return not self.failures

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ok": self.ok,
            "failures": [f.as_dict() for f in self.failures],
            "legacy_keys": [{"path": old, "lionclaw_path": new} for old, new in self.legacy],
        }
        if self.fixed is not None:
            data["fixed"] = self.fixed.as_dict()
        return data


@dataclass(frozen=True)
class Reindexed:
    report: PassReport
    embedded: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {**self.report.as_dict(), "embedded": self.embedded}


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
