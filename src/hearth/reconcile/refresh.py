"""``continuity/ACTIVE.md``: gathering its inputs from a home, writing it, and
the one object that refreshes it after every reconcile pass.

Everything read here is a function of the work tree, HEAD, what the
reconciler knows about the files (validation failures, parked files) and the
merge driver's notes of what a plain ``git pull`` left
(``store/pulled_conflicts.py``), so two refreshes of the same home write the
same bytes; the file is only written
when those bytes differ from what is on disk.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

from hearth.domain import layout, records, validation
from hearth.domain.active import (
    ActiveInputs,
    DecisionLine,
    LoopLine,
    ProposalLine,
    render_active,
)
from hearth.domain.clock import Clock, utc_now
from hearth.domain.entry_merge import conflict_note, record_note
from hearth.errors import HearthError
from hearth.reconcile.manifest import Manifest
from hearth.store import active_records, conflict_origin, pulled_conflicts
from hearth.store.history import PersonaHistory
from hearth.store.repository import GitError, Repository
from hearth.store.rooted import RootedFiles

#: What ACTIVE.md says of a file under continuity/conflicts/ that hearth's sync
#: did not write: named, never offered for settling.
FORGED_NOTE = (
    "forged or unverified conflict file: hearth's sync did not write it, so it is "
    "no conflict to settle; look at it, then delete it"
)


def gather(
    files: RootedFiles,
    repo: Repository,
    manifest: Manifest,
    head: str | None,
    attention: Iterable[str] = (),
    history: PersonaHistory | None = None,
    now: dt.datetime | None = None,
) -> ActiveInputs:
    """ACTIVE.md's inputs. ``now`` (hearth's clock) picks Today: the note of its day,
    else the newest before it, never a note dated later (a ``memory/2099-01-01.md``
    is no one's today)."""
    notes = list(attention)
    # Only the entries ACTIVE.md reads (``Manifest.notable``, ``newest_daily``):
    # this runs after every write, and a sweep over every file would make each
    # write pay for the home's size.
    conflicts_dir = layout.CONFLICTS_DIR + "/"
    entry_conflicts = layout.ENTRY_CONFLICTS_DIR + "/"
    output_dirs = (layout.ARTIFACTS_DIR + "/", layout.ROLLUPS_DIR + "/")
    outputs: list[str] = []
    failures = manifest.files.failures
    for path in sorted(manifest.notable):
        notes += [f.describe() for f in failures.get(path, ())]
        if path.startswith(conflicts_dir):
            if not conflict_origin.written_by_sync(files.root, path):
                notes.append(f"{path}: {FORGED_NOTE}")
                continue
            record = files.read(path) if path.startswith(entry_conflicts) else None
            notes.append(conflict_note(path, record.decode("utf-8", "replace") if record else None))
        elif path.startswith(output_dirs):
            outputs.append(path)
    # What a plain git pull left: the merge driver's notes, while both versions stand.
    notes += [record_note(record) for _note, record in pulled_conflicts.open_notes(files.root)]
    notes += [f"not indexed: {path}: {p.reason}" for path, p in sorted(manifest.parked.items())]
    notes += _settings_notes(files.read(layout.SETTINGS_PATH))
    loops: list[LoopLine] = []
    for view in active_records.list_records(files, "loop"):
        if isinstance(view.record, records.OpenLoop):
            rec = view.record
            loops.append(
                LoopLine(
                    view.key,
                    rec.title,
                    rec.next_step,
                    rec.created,
                    rec.source,
                    records.is_agents(rec),
                )
            )
        else:
            notes.append(f"{view.path}: broken open loop ({view.error})")
    proposals: list[ProposalLine] = []
    for view in active_records.list_records(files, "proposal"):
        if isinstance(view.record, records.Proposal):
            p = view.record
            proposals.append(
                ProposalLine(view.key, p.title, p.target, len(p.entries), p.created, p.source)
            )
        else:
            notes.append(f"{view.path}: broken proposal ({view.error})")
    decisions: list[DecisionLine] = []
    for view in active_records.list_records(files, "decision"):
        if isinstance(view.record, records.Decision):
            d = view.record
            decisions.append(
                DecisionLine(
                    view.key,
                    d.title,
                    d.decision,
                    d.updated or d.created,
                    d.source,
                    records.is_agents(d),
                )
            )
        else:
            notes.append(f"{view.path}: broken decision ({view.error})")
    daily_text = ""
    daily_path = manifest.newest_daily(now.date() if now is not None else None)
    if daily_path is not None:
        data = files.read(daily_path)
        daily_text = data.decode("utf-8", "replace") if data is not None else ""
    return ActiveInputs(
        head=head,
        attention=notes,
        loops=loops,
        proposals=proposals,
        decisions=decisions,
        daily_path=daily_path,
        daily_text=daily_text,
        persona_changes=(history or PersonaHistory()).changes(repo, head),
        outputs=outputs,
        now=records.timestamp(now) if now is not None else "",
    )


@functools.lru_cache(maxsize=4)
def _settings_notes(data: bytes | None) -> tuple[str, ...]:
    """hearth.toml's failure, if it has one. hearth.toml is no markdown, so
    the passes never judge it; a home keeps the settings it read at its start,
    and a synced hearth.toml it cannot read (a rebase's conflict markers: git
    runs no pre-commit hook for a rebase) stops every command once it
    restarts. Remembered by content: most refreshes read the same bytes."""
    if data is None:
        return ()
    failures = validation.check_settings(data.decode("utf-8", "replace"))
    return tuple(failure.describe() for failure in failures)


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


class AttentionSource(Protocol):
    """Something outside the files that ACTIVE.md's Needs attention reports
    (sync, reflection runs, a served home's jobs and recovery)."""

    def attention(self) -> list[str]: ...


class ActiveRefresher:
    """The owner of ACTIVE.md: renders it after a pass, and says how the file on
    disk compares with what it rendered. The state it keeps (digest, HEAD,
    error) lives in the manifest the reconciler saves."""

    def __init__(
        self,
        root: Path,
        files: RootedFiles,
        repo: Repository,
        attention: Sequence[AttentionSource] = (),
        clock: Clock = utc_now,
    ) -> None:
        self.root = root
        self.clock = clock
        self.files = files
        self.repo = repo
        self.attention = attention
        self._history = PersonaHistory()
        #: What the last render of this process depended on (see ``refresh``).
        self._key: tuple[object, ...] | None = None

    def refresh(
        self, state: Manifest, head: str | None, settled: bool, check_bytes: bool = False
    ) -> bool:
        """Render and write ACTIVE.md; a failure is recorded in ``state``, never raised.

        When the pass changed nothing (``settled``) and HEAD, the attention
        list and the file itself are as this process last left them, the
        render would give the same bytes, so it is skipped. With
        ``check_bytes`` the file's bytes must also still be the ones last
        rendered (a small read).
        """
        attention = tuple(note for source in self.attention for note in source.attention())
        now = self.clock()
        # The day is part of what the page shows (Today), so a new day renders anew.
        key = (
            (head, now.date()),
            attention,
            tuple(state.errors),
            _identity(self.root / layout.ACTIVE_PATH),
        )
        if (
            settled
            and key == self._key
            and state.active_error is None
            and not (check_bytes and state_on_disk(self.files, state.active_digest) != "written")
        ):
            return False
        try:
            inputs = gather(self.files, self.repo, state, head, attention, self._history, now)
            written, digest = write_if_changed(self.files, inputs)
        except (HearthError, OSError, GitError) as exc:
            state.active_error = f"ACTIVE.md could not be refreshed: {exc}"
            self._key = None
            return False
        state.active_error = None
        state.active_digest, state.active_head = digest, head
        self._key = (*key[:3], _identity(self.root / layout.ACTIVE_PATH))
        return written

    def is_ours(self, state: Manifest) -> bool:
        """ACTIVE.md is the file this process last wrote, with the bytes it rendered."""
        return (
            self._key is not None
            and self._key[3] == _identity(self.root / layout.ACTIVE_PATH)
            and state.active_error is None
            and state_on_disk(self.files, state.active_digest) == "written"
        )

    def describe(self, state: Manifest, head: str | None) -> str:
        """How ACTIVE.md on disk compares with what hearth last rendered."""
        if state.active_error is not None:
            return "error"
        on_disk = state_on_disk(self.files, state.active_digest)
        if on_disk != "written":
            return on_disk
        return "fresh" if state.active_head == head else "behind"


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.lstat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns
