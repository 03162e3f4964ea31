"""Records: memory proposals and open loops, one markdown file each.

A record file is YAML front matter between ``---`` lines followed by a
markdown body. A record's key is its file stem, ``{slug}--{uuid5}``, derived
from its normalized title so the same title always lands in the same file
(an upsert), in hearth and in LionClaw alike.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import unicodedata
import uuid
from dataclasses import dataclass
from typing import Any

import yaml

from hearth.domain.layout import DEFAULT_PROPOSAL_TARGET, RecordKind
from hearth.errors import InvalidRecord

KEY_NAMESPACE = uuid.UUID("5f026ae9-551b-4d3e-a511-f0f2d74cf241")
MAX_TITLE_CHARS = 200
MAX_SLUG_CHARS = 60
_KEY_RE = re.compile(
    rf"^[a-z0-9-]{{1,{MAX_SLUG_CHARS}}}--[0-9a-f]{{8}}(-[0-9a-f]{{4}}){{3}}-[0-9a-f]{{12}}$"
)


def normalize_title(title: str) -> str:
    """Whitespace collapsed and lower-cased: what a key is derived from."""
    return " ".join(title.split()).lower()


def slugify(normalized: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", normalized).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    slug = slug[:MAX_SLUG_CHARS].rstrip("-")
    return slug or "item"


def clean_title(title: str) -> str:
    """The title as stored: one line, trimmed; refused when empty or too long."""
    cleaned = " ".join(title.split())
    if not cleaned:
        raise InvalidRecord("title is empty; give a short title")
    if len(cleaned) > MAX_TITLE_CHARS:
        raise InvalidRecord(f"title is longer than {MAX_TITLE_CHARS} characters")
    return cleaned


def record_key(title: str) -> str:
    normalized = normalize_title(title)
    return f"{slugify(normalized)}--{uuid.uuid5(KEY_NAMESPACE, normalized)}"


def is_key(text: str) -> bool:
    return bool(_KEY_RE.match(text))


def key_of_archive_stem(stem: str) -> str:
    """``{key}--{uuid4}`` -> ``{key}``."""
    return stem.rsplit("--", 1)[0]


def clean_entry(entry: str) -> str:
    cleaned = " ".join(entry.split())
    if cleaned.startswith("- "):
        cleaned = cleaned[2:].strip()
    if not cleaned:
        raise InvalidRecord("an entry is empty; every entry needs text")
    return cleaned


@dataclass(frozen=True)
class Proposal:
    title: str
    entries: tuple[str, ...]
    created: str
    updated: str
    source: str = ""
    target: str = DEFAULT_PROPOSAL_TARGET
    rationale: str = ""
    status: str = "pending"
    reason: str = ""

    @property
    def key(self) -> str:
        return record_key(self.title)


@dataclass(frozen=True)
class OpenLoop:
    title: str
    created: str
    updated: str
    summary: str = ""
    next_step: str = ""
    source: str = ""
    status: str = "open"
    resolution: str = ""

    @property
    def key(self) -> str:
        return record_key(self.title)


Record = Proposal | OpenLoop


def upsert(existing: Record | None, fresh: Record) -> Record:
    """What to store when ``fresh`` arrives for a title that may already have a file.

    Fields ``fresh`` leaves at their default keep the stored value, entries
    accumulate (in order, without repeats) and ``created`` never changes.
    """
    if not isinstance(existing, type(fresh)):
        return fresh
    kept: dict[str, Any] = {"created": existing.created or fresh.created}
    for spec in dataclasses.fields(fresh):
        new = getattr(fresh, spec.name)
        if isinstance(existing, Proposal) and spec.name == "entries":
            kept["entries"] = tuple(dict.fromkeys(existing.entries + new))
        elif spec.default is not dataclasses.MISSING and new == spec.default:
            kept[spec.name] = getattr(existing, spec.name)
    return dataclasses.replace(fresh, **kept)


def timestamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _front_matter(fields: dict[str, str]) -> str:
    kept = {k: v for k, v in fields.items() if v != ""}
    dumped = yaml.safe_dump(kept, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{dumped}---\n"


def render(record: Record) -> str:
    if isinstance(record, Proposal):
        head = _front_matter(
            {
                "title": record.title,
                "status": record.status,
                "created": record.created,
                "updated": record.updated,
                "source": record.source,
                "target": record.target,
                "rationale": record.rationale,
                "reason": record.reason,
            }
        )
        body = "".join(f"- {e}\n" for e in record.entries)
        return f"{head}\n{body}"
    head = _front_matter(
        {
            "title": record.title,
            "status": record.status,
            "created": record.created,
            "updated": record.updated,
            "source": record.source,
            "next_step": record.next_step,
            "resolution": record.resolution,
        }
    )
    body = f"{record.summary.strip()}\n" if record.summary.strip() else ""
    return f"{head}\n{body}"


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """Split ``---`` YAML front matter from the body; raise InvalidRecord if absent or bad."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise InvalidRecord("no front matter: the file must start with a '---' line")
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            break
    else:
        raise InvalidRecord("front matter is not closed by a '---' line")
    try:
        data = yaml.safe_load("".join(lines[1:end]))
    except yaml.YAMLError as exc:
        raise InvalidRecord(f"front matter is not valid YAML: {exc}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidRecord("front matter must be a mapping of fields")
    return data, "".join(lines[end + 1 :])


def _text(data: dict[str, Any], name: str) -> str:
    value = data.get(name, "")
    if value is None:
        return ""
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, dict | list):
        raise InvalidRecord(f"front matter field {name!r} must be text")
    return str(value)


def parse(kind: RecordKind, text: str) -> Record:
    """Parse a record file of ``kind``; raise InvalidRecord with the reason."""
    data, body = split_front_matter(text)
    title = clean_title(_text(data, "title"))
    common = {
        "title": title,
        "created": _text(data, "created"),
        "updated": _text(data, "updated"),
        "source": _text(data, "source"),
    }
    if kind == "proposal":
        entries = tuple(
            clean_entry(line[2:]) for line in body.splitlines() if line.startswith("- ")
        )
        return Proposal(
            entries=entries,
            target=_text(data, "target") or DEFAULT_PROPOSAL_TARGET,
            rationale=_text(data, "rationale"),
            status=_text(data, "status") or "pending",
            reason=_text(data, "reason"),
            **common,
        )
    return OpenLoop(
        summary=body.strip(),
        next_step=_text(data, "next_step"),
        status=_text(data, "status") or "open",
        resolution=_text(data, "resolution"),
        **common,
    )
