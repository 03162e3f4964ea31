"""Files exactly as LionClaw's renderers write them (continuity.rs:
``record_memory_proposal``, ``upsert_open_loop``, ``append_daily_event``,
``archive_memory_proposal``/``resolve_open_loop`` via ``replace_or_insert_metadata``),
spelled out by hand from the Rust so the tests do not depend on hearth's renderer.
Keys come from the independent port, not from hearth.
"""

from __future__ import annotations

from tests.domain import lionclaw_port as port

PROPOSED_AT = "2026-04-03T09:30:00.123456789+00:00 UTC"
UPDATED_AT = "2026-04-03T09:31:00+00:00 UTC"


def proposal_key(title: str) -> str:
    return port.title_file_name(title)[: -len(".md")]


def proposal(
    title: str,
    entries: list[str],
    source: str = "",
    rationale: str = "",
    status: str = "proposed",
) -> str:
    """``format!("# Memory Proposal: {}\\n\\n", title.trim())`` and the bullets after it."""
    text = f"# Memory Proposal: {title.strip()}\n\n"
    text += f"- Status: {status}\n"
    text += f"- Key: {port.title_file_name(title)}\n"
    text += f"- Proposed: {PROPOSED_AT}\n"
    if source.strip():
        text += f"- Source: {source.strip()}\n"
    if rationale.strip():
        text += f"- Rationale: {rationale.strip()}\n"
    text += "\n## Candidate Entries\n"
    for entry in entries:
        text += f"- {entry}\n"
    return text + "\n"


def open_loop(title: str, summary: str = "", next_step: str = "", source: str = "") -> str:
    text = f"# {title.strip()}\n\n"
    text += "- Status: open\n"
    text += f"- Key: {port.title_file_name(title)}\n"
    text += f"- Updated: {UPDATED_AT}\n"
    if source.strip():
        text += f"- Source: {source.strip()}\n"
    if summary.strip():
        text += f"- Summary: {summary.strip()}\n"
    if next_step.strip():
        text += f"- Next Step: {next_step.strip()}\n"
    return text + "\n"


def daily_header(day: str) -> str:
    return f"# Daily Continuity {day}\n\n"


def daily_entry(hhmm: str, title: str, details: list[str]) -> str:
    """``format!("## {} UTC - {}\\n", at.format("%H:%M"), title.trim())``, then the
    detail bullets and a blank line."""
    entry = f"## {hhmm} UTC - {title.strip()}\n"
    for detail in details:
        if detail.strip():
            entry += f"- {detail.strip()}\n"
    return entry + "\n"


def daily_path(day: str) -> str:
    year, month, _ = day.split("-")
    return f"continuity/daily/{year}/{month}/{day}.md"
