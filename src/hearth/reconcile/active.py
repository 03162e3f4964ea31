"""Gathering the inputs of ``continuity/ACTIVE.md`` from a home, and writing it.

Everything read here is a function of the work tree, HEAD and what the
reconciler knows about the files (validation failures, parked files), so two
refreshes of the same home write the same bytes; the file is only written
when those bytes differ from what is on disk.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable

import pygit2
from pygit2.enums import SortMode

from hearth import catalog
from hearth.domain import layout, records
from hearth.domain.active import ActiveInputs, LoopLine, PersonaChange, ProposalLine, render_active
from hearth.reconcile.manifest import Manifest
from hearth.store.rooted import RootedFiles

HISTORY_DEPTH = 300
_DAILY = re.compile(r"^memory/\d{4}-\d{2}-\d{2}\.md$")
_DAILY_LENGTH = len("memory/2026-11-22.md")


def gather(
    files: RootedFiles,
    repo: pygit2.Repository,
    manifest: Manifest,
    head: str | None,
    attention: Iterable[str] = (),
) -> ActiveInputs:
    notes = list(attention)
    # One cheap sweep over the manifest: this runs after every write.
    conflicts_dir = layout.CONFLICTS_DIR + "/"
    output_dirs = (layout.ARTIFACTS_DIR + "/", layout.ROLLUPS_DIR + "/")
    daily: str | None = None
    outputs: list[str] = []
    for path, entry in manifest.files.items():
        if entry.failures:
            notes += [f.describe() for f in entry.failures]
        prefix = path[:7]
        if prefix == "continu":
            if path.startswith(conflicts_dir):
                notes.append(
                    f"sync conflict: the other machine's version is kept at {path}; "
                    "merge what you want into the file, then delete the copy and commit"
                )
            elif path.startswith(output_dirs):
                outputs.append(path)
        elif (
            prefix == "memory/"
            and len(path) == _DAILY_LENGTH
            and _DAILY.match(path)
            and (daily is None or path > daily)
        ):
            daily = path
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
    if daily is not None:
        data = files.read(daily)
        daily_text = data.decode("utf-8", "replace") if data is not None else ""
    return ActiveInputs(
        head=head,
        attention=notes,
        loops=loops,
        proposals=proposals,
        daily_path=daily,
        daily_text=daily_text,
        persona_changes=persona_changes(repo, head),
        outputs=outputs,
    )


def persona_changes(
    repo: pygit2.Repository, head: str | None, limit: int = 10
) -> list[PersonaChange]:
    """The newest commits (within ``HISTORY_DEPTH``) that changed a hot persona file."""
    if head is None:
        return []
    found: list[PersonaChange] = []
    walker = repo.walk(pygit2.Oid(hex=head), SortMode.TOPOLOGICAL | SortMode.TIME)
    for depth, commit in enumerate(walker):
        if depth >= HISTORY_DEPTH or len(found) >= limit:
            break
        parent = commit.parents[0].tree if commit.parents else None
        changed = tuple(
            p for p in layout.HOT_FILES if _blob_id(commit.tree, p) != _blob_id(parent, p)
        )
        if changed:
            when = dt.datetime.fromtimestamp(commit.commit_time, dt.UTC).date().isoformat()
            subject = commit.message.split("\n", 1)[0]
            found.append(PersonaChange(str(commit.id), when, subject, changed))
    return found


def _blob_id(tree: pygit2.Tree | None, path: str) -> str | None:
    if tree is None:
        return None
    try:
        return str(tree[path].id)
    except KeyError:
        return None


def write_if_changed(files: RootedFiles, inputs: ActiveInputs) -> bool:
    """Render ACTIVE.md and write it when its bytes differ; True when written."""
    data = render_active(inputs).encode("utf-8")
    if files.read(layout.ACTIVE_PATH) == data:
        return False
    files.write(layout.ACTIVE_PATH, data)
    return True
