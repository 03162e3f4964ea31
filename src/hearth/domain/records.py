"""Records: memory proposals, open loops and decisions, one markdown file each.

A record file is YAML front matter between ``---`` lines followed by a
markdown body, or LionClaw's own format (an H1 and ``- Name: value`` bullets,
see ``lionclaw``), which is read and edited as it is. A record's key is its
file stem, ``{slug}--{uuid5}``, derived from its title exactly as LionClaw
derives it (see ``keys``), so the same title always lands in the same file
(an upsert), in hearth and in LionClaw alike.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from hearth.domain import keys, lionclaw
from hearth.domain.entries import entry_blocks
from hearth.domain.front_matter import field_text, front_matter, split_front_matter
from hearth.domain.keys import is_key, key_of_archive_stem, legacy_record_key, record_key
from hearth.domain.layout import DEFAULT_PROPOSAL_TARGET, RecordKind, record_location
from hearth.errors import InvalidRecord

__all__ = [
    "RECORD_TYPES",
    "Decision",
    "OpenLoop",
    "Proposal",
    "Record",
    "RecordStyle",
    "archived_text",
    "clean_entry",
    "clean_title",
    "future_date",
    "is_agents",
    "is_key",
    "key_of_archive_stem",
    "legacy_record_key",
    "lionclaw_key_rename",
    "parse",
    "record_key",
    "render",
    "timestamp",
    "upsert",
]

MAX_TITLE_CHARS = keys.MAX_TITLE_CHARS

#: ``front-matter`` (hearth's, the default for new records) or ``lionclaw``.
RecordStyle = Literal["front-matter", "lionclaw"]


def _one_line(text: str) -> str:
    """Words (split as the key algorithm splits them) joined by one space."""
    return " ".join(keys.words(text))


def clean_title(title: str) -> str:
    """The title as stored: one line, trimmed; refused when too long or not Unicode text.

    An empty title is allowed, as in LionClaw: its key is ``item--<uuid5>``.
    """
    cleaned = _one_line(title)
    try:
        cleaned.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidRecord("the title is not valid Unicode text") from exc
    if len(cleaned) > MAX_TITLE_CHARS:
        raise InvalidRecord(f"title is longer than {MAX_TITLE_CHARS} characters")
    return cleaned


def clean_entry(entry: str) -> str:
    cleaned = " ".join(entry.split())
    if cleaned.startswith("- "):
        cleaned = cleaned[2:].strip()
    if not cleaned:
        raise InvalidRecord("an entry is empty; every entry needs text")
    return cleaned


#: The fields that say who wrote a record, set by hearth on every write (never
#: taken from the caller): ``source``, the actor of the write (a token's name,
#: ``cli``, ``reflection``); ``stated_source``, what the caller said its source
#: was, kept as said; ``by``, ``agent`` when a write-scoped caller (an agent)
#: wrote it, empty when the person did. Agents cannot write record files
#: directly (``catalogue.put_operation``), so ``by`` is hearth's word: a record
#: without it is the person's.
WHO: tuple[str, ...] = ("source", "stated_source", "by")

#: ``by`` of a record an agent wrote.
AGENT = "agent"


def is_agents(record: Record) -> bool:
    """Whether an agent (a write-scoped caller) wrote ``record`` last; else it is
    the person's (theirs to resolve, withdraw or supersede)."""
    return record.by == AGENT


#: How far past now a record's ``created`` or ``updated`` may lie (two clocks'
#: skew); later is refused, so a date cannot keep a record on top of a list.
FUTURE_SLACK = dt.timedelta(days=1)


def future_date(record: Record, now: dt.datetime) -> str | None:
    """The first of ``created``/``updated`` that lies in the future (past the
    slack), as ``field value``; None when both are sane or unreadable."""
    for name in ("created", "updated"):
        value = getattr(record, name)
        try:
            moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None
        except ValueError:
            continue
        if moment is None:
            continue
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.UTC)
        if moment > now + FUTURE_SLACK:
            return f"{name} {value}"
    return None


# Each record type declares, as data, what its file holds: the front-matter fields
# in the order they are written (``FIELDS``), the field its body holds (``BODY``),
# the field an archive's note goes to (``NOTE``), and the fields a same-title write
# always replaces rather than keeps when left at their default (``REPLACED``).
# Reading and writing front matter is generic over these.


@dataclass(frozen=True)
class Proposal:
    FIELDS: ClassVar[tuple[str, ...]] = (
        "status",
        "created",
        "updated",
        "source",
        "stated_source",
        "by",
        "target",
        "rationale",
        "reason",
        "consolidate",
        "destination",
        "leaves",
    )
    BODY: ClassVar[str] = "entries"
    NOTE: ClassVar[str] = "reason"
    REPLACED: ClassVar[tuple[str, ...]] = WHO

    title: str
    entries: tuple[str, ...]
    created: str
    updated: str
    source: str = ""
    stated_source: str = ""
    by: str = ""
    target: str = DEFAULT_PROPOSAL_TARGET
    rationale: str = ""
    status: str = "pending"
    reason: str = ""
    #: A consolidation hearth proposes (``domain/consolidation.py``): ``move`` or
    #: ``fold``, a move's ``destination`` note, and the line it ``leaves``.
    consolidate: str = ""
    destination: str = ""
    leaves: str = ""
    style: RecordStyle = "front-matter"

    @property
    def key(self) -> str:
        return record_key(self.title)


@dataclass(frozen=True)
class OpenLoop:
    FIELDS: ClassVar[tuple[str, ...]] = (
        "status",
        "created",
        "updated",
        "source",
        "stated_source",
        "by",
        "next_step",
        "resolution",
    )
    BODY: ClassVar[str] = "summary"
    NOTE: ClassVar[str] = "resolution"
    REPLACED: ClassVar[tuple[str, ...]] = WHO

    title: str
    created: str
    updated: str
    summary: str = ""
    next_step: str = ""
    source: str = ""
    stated_source: str = ""
    by: str = ""
    status: str = "open"
    resolution: str = ""
    style: RecordStyle = "front-matter"

    @property
    def key(self) -> str:
        return record_key(self.title)


@dataclass(frozen=True)
class Decision:
    """What the person and the assistant settled; active until withdrawn, and
    superseded by a decision with the same title (its text and why replaced)."""

    FIELDS: ClassVar[tuple[str, ...]] = (
        "status",
        "created",
        "updated",
        "source",
        "stated_source",
        "by",
        "why",
        "reason",
    )
    BODY: ClassVar[str] = "decision"
    NOTE: ClassVar[str] = "reason"
    REPLACED: ClassVar[tuple[str, ...]] = ("decision", "why", *WHO)

    title: str
    created: str
    updated: str
    decision: str = ""
    why: str = ""
    source: str = ""
    stated_source: str = ""
    by: str = ""
    status: str = "active"
    reason: str = ""
    style: RecordStyle = "front-matter"

    @property
    def key(self) -> str:
        return record_key(self.title)


Record = Proposal | OpenLoop | Decision

#: The dataclass of each record kind (``layout.RECORD_KINDS`` holds the rest).
RECORD_TYPES: dict[RecordKind, type[Proposal] | type[OpenLoop] | type[Decision]] = {
    "proposal": Proposal,
    "loop": OpenLoop,
    "decision": Decision,
}


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
        elif spec.name in fresh.REPLACED:
            continue
        elif spec.default is not dataclasses.MISSING and new == spec.default:
            kept[spec.name] = getattr(existing, spec.name)
    return dataclasses.replace(fresh, **kept)


def timestamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def render(record: Record, key: str | None = None) -> str:
    """The record's file, in its style; ``key`` (default: from the title) is what a
    LionClaw record's ``- Key:`` line names."""
    if record.style == "lionclaw":
        return _render_lionclaw(record, key or record.key)
    head = front_matter(
        {"title": record.title, **{name: getattr(record, name) for name in record.FIELDS}}
    )
    if isinstance(record, Proposal):
        body = "".join(f"- {e}\n" for e in record.entries)
    else:
        text = str(getattr(record, record.BODY)).strip()
        body = f"{text}\n" if text else ""
    return f"{head}\n{body}"


def parse(kind: RecordKind, text: str) -> Record:
    """Parse a record file of ``kind`` (either style); raise InvalidRecord with the reason."""
    if text.startswith("\ufeff"):
        text = text[1:]
    first = text.lstrip("\r\n").split("\n", 1)[0].strip()
    if first != "---" and lionclaw.looks_like_record(text):
        return _parse_lionclaw(kind, text)
    data, body = split_front_matter(text)
    if "title" not in data:
        raise InvalidRecord("front matter has no 'title' field")
    cls = RECORD_TYPES[kind]
    fields: dict[str, Any] = {"title": _one_line(field_text(data, "title"))}
    for name in cls.FIELDS:
        value = field_text(data, name)
        if value:
            fields[name] = value
        elif name in ("created", "updated"):
            fields[name] = ""
    if cls is Proposal:
        # Its ``- `` lines, each with the lines a person wrapped it onto.
        lines = body.replace("\r\n", "\n").split("\n")
        wrapped = {block.start: block.text for block in entry_blocks(lines, adopted=True)}
        fields["entries"] = tuple(
            clean_entry(wrapped.get(i, line[2:]))
            for i, line in enumerate(lines)
            if line[:2] == "- "
        )
    else:
        fields[cls.BODY] = body.strip()
    return cls(**fields)


def _meta(text: str, name: str) -> str:
    return lionclaw.metadata_value(text, name) or ""


def _parse_lionclaw(kind: RecordKind, text: str) -> Record:
    if kind == "decision":
        raise InvalidRecord("a decision is a front-matter record: the file must start with '---'")
    if kind == "proposal":
        title = lionclaw.proposal_title(text)
        if title is None:
            raise InvalidRecord("no '# Memory Proposal: <title>' heading")
        status = _meta(text, "Status") or lionclaw.PROPOSED
        proposed = _meta(text, "Proposed")
        # The title stays as LionClaw wrote it (trimmed): its key is the same
        # either way, and an upsert then rewrites the heading unchanged.
        return Proposal(
            title=title,
            entries=tuple(lionclaw.bullet_section(text, lionclaw.CANDIDATE_ENTRIES)),
            created=proposed,
            updated=proposed,
            source=_meta(text, "Source"),
            target=_meta(text, "Target") or DEFAULT_PROPOSAL_TARGET,
            rationale=_meta(text, "Rationale"),
            status="pending" if status == lionclaw.PROPOSED else status,
            reason=_meta(text, "Reason"),
            style="lionclaw",
        )
    title = lionclaw.heading(text)
    if title is None:
        raise InvalidRecord("no '# <title>' heading")
    updated = _meta(text, "Updated")
    return OpenLoop(
        title=title,
        created=updated,
        updated=updated,
        summary=_meta(text, "Summary"),
        next_step=_meta(text, "Next Step"),
        source=_meta(text, "Source"),
        status=_meta(text, "Status") or "open",
        resolution=_meta(text, "Resolution"),
        style="lionclaw",
    )


def _render_lionclaw(record: Record, key: str) -> str:
    if isinstance(record, Decision):
        raise InvalidRecord("LionClaw has no decision records")
    if isinstance(record, Proposal):
        target = "" if record.target == DEFAULT_PROPOSAL_TARGET else record.target
        return lionclaw.render_proposal(
            record.title,
            key,
            lionclaw.PROPOSED if record.status == "pending" else record.status,
            lionclaw.as_lionclaw_time(record.updated),
            record.entries,
            [
                ("Source", record.source),
                ("Rationale", record.rationale),
                ("Target", target),
                ("Reason", record.reason),
            ],
        )
    return lionclaw.render_loop(
        record.title,
        key,
        record.status,
        lionclaw.as_lionclaw_time(record.updated),
        [
            ("Source", record.source),
            ("Summary", " ".join(record.summary.split())),
            ("Next Step", record.next_step),
            ("Resolution", record.resolution),
        ],
    )


def archived_text(
    record: Record, original: str, key: str, now: dt.datetime, status: str, note: str = ""
) -> str:
    """The archive copy of a record: ``status`` set (``merged``, ``rejected``,
    ``resolved``, ``withdrawn``), the time updated, and ``note`` kept in the
    record's note field (a rejection's or withdrawal's reason, a resolution). A
    LionClaw record is edited as LionClaw archives it (see ``lionclaw.archive``);
    a front-matter record is rendered again."""
    if record.style == "lionclaw" and not isinstance(record, Decision):
        if isinstance(record, Proposal):
            return lionclaw.archive(
                original, status, "Proposed", lionclaw.timestamp(now), [("Reason", note)]
            )
        return lionclaw.archive(
            original, status, "Updated", lionclaw.timestamp(now), [("Resolution", note)]
        )
    changes: dict[str, Any] = {"status": status, "updated": timestamp(now)}
    if note:
        changes[record.NOTE] = note
    return render(dataclasses.replace(record, **changes), key)


def lionclaw_key_rename(path: str, text: str) -> tuple[str, str] | None:
    """For a record file named with a legacy key: its path under LionClaw's key and
    its text (a LionClaw record's ``- Key:`` line follows the name); else None.

    An archive keeps its own ``--<uuid4>`` suffix. Files that do not parse, or
    whose name is neither key of their title, are left to ``hearth check``.
    """
    location = record_location(path)
    if location is None:
        return None
    kind, archived = location
    try:
        record = parse(kind, text)
    except InvalidRecord:
        return None
    folder, name = path.rsplit("/", 1)
    stem = name[: -len(".md")]
    key = key_of_archive_stem(stem) if archived else stem
    wanted = record.key
    if key == wanted or key != legacy_record_key(record.title):
        return None
    new_stem = wanted + stem[len(key) :]
    if record.style == "lionclaw":
        text = lionclaw.set_key_line(text, f"{key}.md", f"{wanted}.md")
    return f"{folder}/{new_stem}.md", text
