"""Gathering the inputs of ``continuity/ACTIVE.md`` from a home, and writing it.

Everything read here is a function of the work tree, HEAD and what the
reconciler knows about the files (validation failures, parked files), so two
refreshes of the same home write the same bytes; the file is only written
when those bytes differ from what is on disk.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable

from hearth.domain import layout, records
from hearth.domain.active import ActiveInputs, LoopLine, ProposalLine, render_active
from hearth.errors import HearthError
from hearth.reconcile.manifest import Manifest
from hearth.store import catalog
from hearth.store.history import PersonaHistory
from hearth.store.repository import Repository
from hearth.store.rooted import RootedFiles

_LIONCLAW_DAILY = layout.LIONCLAW_DAILY_DIR + "/"


def gather(
    files: RootedFiles,
    repo: Repository,
    manifest: Manifest,
    head: str | None,
    attention: Iterable[str] = (),
    history: PersonaHistory | None = None,
) -> ActiveInputs:
    notes = list(attention)
    # One cheap sweep over the manifest: this runs after every write.
    conflicts_dir = layout.CONFLICTS_DIR + "/"
    output_dirs = (layout.ARTIFACTS_DIR + "/", layout.ROLLUPS_DIR + "/")
    # Today: the newest dated daily note of either layout; on the same day, the
    # hearth layout's (the larger path), so the choice never depends on listing order.
    daily: tuple[dt.date, str] | None = None
    outputs: list[str] = []
    for path, entry in manifest.files.items():
        if entry.failures:
            notes += [f.describe() for f in entry.failures]
        prefix = path[:7]
        if prefix == "memory/" or (prefix == "continu" and path.startswith(_LIONCLAW_DAILY)):
            day = layout.daily_note_date(path)
            if day is not None and (daily is None or (day, path) > daily):
                daily = (day, path)
        elif prefix == "continu":
            if path.startswith(conflicts_dir):
                notes.append(
                    f"sync conflict: the other machine's version is kept at {path}; "
                    "merge what you want into the file, then delete the copy and commit"
                )
            elif path.startswith(output_dirs):
                outputs.append(path)
    notes += [f"not indexed: {path}: {p.reason}" for path, p in sorted(manifest.parked.items())]
    loops: list[LoopLine] = []
    for view in catalog.list_records(files, "loop"):
        if isinstance(view.record, records.OpenLoop):
            rec = view.record
            loops.append(LoopLine(view.key, rec.title, rec.next_step, rec.created))
        else:
            notes.append(f"{view.path}: broken open loop ({view.error})")
    proposals: list[ProposalLine] = []
    for view in catalog.list_records(files, "proposal"):
        if isinstance(view.record, records.Proposal):
            p = view.record
            proposals.append(ProposalLine(view.key, p.title, p.target, len(p.entries), p.created))
        else:
            notes.append(f"{view.path}: broken proposal ({view.error})")
    daily_text = ""
    daily_path = daily[1] if daily is not None else None
    if daily_path is not None:
        data = files.read(daily_path)
        daily_text = data.decode("utf-8", "replace") if data is not None else ""
    return ActiveInputs(
        head=head,
        attention=notes,
        loops=loops,
        proposals=proposals,
        daily_path=daily_path,
        daily_text=daily_text,
        persona_changes=(history or PersonaHistory()).changes(repo, head),
        outputs=outputs,
    )


def write_if_changed(files: RootedFiles, inputs: ActiveInputs) -> tuple[bool, str]:
    """Render ACTIVE.md and write it when its bytes differ from the file's.

    Returns whether it was written and the SHA-256 of the rendered bytes.
    """
    data = render_active(inputs).encode("utf-8")
    digest = hashlib.sha256(data).hexdigest()
    if files.read(layout.ACTIVE_PATH) == data:
        return False, digest
    files.write(layout.ACTIVE_PATH, data)
    return True, digest


def state_on_disk(files: RootedFiles, digest: str | None) -> str:
    """``missing``, ``foreign`` (bytes hearth did not write) or ``written``."""
    try:
        data = files.read(layout.ACTIVE_PATH)
    except (HearthError, OSError):
        return "foreign"  # a folder or a symlink in its place
    if data is None:
        return "missing"
    return "written" if hashlib.sha256(data).hexdigest() == digest else "foreign"
