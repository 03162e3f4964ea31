"""How the index compares with the files, and what the status snapshot asks of
the passes: read-only questions, each under the reconcile lock, answered from
the reconciler's manifest session (``session.py``) without applying anything.

``status`` lists the home and compares every file's signature with the
manifest; ``status_of`` compares only the paths a listing kept as its
differences from the manifest names (``listed.py``), which is how the served
status snapshot stays cheap; ``active_state`` lists nothing.
"""

from __future__ import annotations

from hearth.domain.text import counted
from hearth.reconcile import listed
from hearth.reconcile.listed import ListingDelta
from hearth.reconcile.manifest import ParkedFile
from hearth.reconcile.reconciler import Reconciler
from hearth.reconcile.reports import ActiveState, IndexStatus
from hearth.reconcile.scan import Listing, Signature, scan_tree
from hearth.store.repository import head_id


def status(reconciler: Reconciler, listing: Listing | None = None) -> IndexStatus:
    """Compare the files on disk with the manifest by signature, reading nothing
    (``listing``: a ``scan_tree`` of the home taken just before, without the lock)."""
    with reconciler.session.locked():
        reconciler.open()
        return _compare(reconciler, scan_tree(reconciler.root) if listing is None else listing)


def status_of(reconciler: Reconciler, delta: ListingDelta) -> IndexStatus:
    """``status`` of the listing ``delta`` stands for (``listing_delta``),
    comparing only the paths it names: the manifest's other files are
    listed with the manifest's own signatures, so none of them moved."""
    with reconciler.session.locked():
        reconciler.open()
        state = reconciler.session.manifest
        named = Listing(delta.files, delta.refused, delta.errors, delta.ignore_files)
        present, signature = reconciler.differ.indexable(named, state, full=True)
        if signature != state.ignore_signature:
            relisted = listed.relisted(delta, state.files)  # the rules changed
            return _compare(reconciler, relisted)
        moved, on_disk = listed.compare(delta, state.files, state.parked, present)
        return _index_status(reconciler, moved, on_disk, delta.errors)


def active_state(reconciler: Reconciler) -> ActiveState:
    """HEAD, the last pass and ACTIVE.md's state, without listing the tree
    (``status`` compares every file)."""
    with reconciler.session.locked():
        reconciler.open()
        state = reconciler.session.manifest
        head = head_id(reconciler.repo)
        return ActiveState(
            head, state.last_reconcile, reconciler.active.describe(state, head), state.active_error
        )


# -- what the status snapshot asks -------------------------------------------------


def take_touched(reconciler: Reconciler) -> set[str] | None:
    """The paths the passes (and writes) since the last call looked at (a folder
    as ``name/``), and start counting again; None when one of them (or another
    process's) looked at everything, or before the first call. For the status
    snapshot, which re-reads only those paths when it can."""
    with reconciler.session.locked():
        reconciler.open()  # another process's pass since: everything
        return reconciler.session.take_touched()


def listing_delta(reconciler: Reconciler, listing: Listing) -> ListingDelta:
    """``listing`` kept as what differs from the manifest (``reconcile/listed.py``)."""
    return listed.differences(listing, reconciler.session.manifest.files)


def patch_listing(reconciler: Reconciler, delta: ListingDelta, touched: set[str]) -> bool:
    """``listed.patch`` against the manifest (False: list everything again)."""
    return listed.patch(delta, reconciler.session.manifest.files, reconciler.root, touched)


# -- comparing -------------------------------------------------------------------


def _compare(reconciler: Reconciler, listing: Listing) -> IndexStatus:
    state = reconciler.session.manifest
    present, _signature = reconciler.differ.indexable(listing, state, full=True)
    on_disk = {p: sig for p, sig in listing.files.items() if p in present and p not in state.parked}
    refused = {p: sig for p, (sig, _) in listing.refused.items() if p in present}
    moved = [p for p, sig in on_disk.items() if state.files.signature(p) != sig]
    moved += [p for p in state.files if p not in on_disk]
    moved += [p for p, sig in refused.items() if not _same(state.parked.get(p), sig)]
    return _index_status(reconciler, moved, len(on_disk), listing.errors)


def _index_status(
    reconciler: Reconciler, moved: list[str], on_disk: int, errors: list[str]
) -> IndexStatus:
    state = reconciler.session.manifest
    index = reconciler.index
    documents = index.documents()
    head = head_id(reconciler.repo)
    reasons = _stale_reasons(
        sorted(moved), documents, state.documents(), head, state.indexed_head, errors
    )
    return IndexStatus(
        fresh=not reasons,
        stale_reasons=reasons,
        files_on_disk=on_disk,
        files_indexed=len(state.files),
        documents=documents,
        stale_files=len(moved),
        head=head,
        indexed_head=state.indexed_head,
        last_reconcile=state.last_reconcile,
        parked=[{"path": path, "reason": p.reason} for path, p in sorted(state.parked.items())],
        errors=sorted(set(errors) | set(state.errors)),
        active_error=state.active_error,
        active=reconciler.active.describe(state, head),
        vectors=index.vector_coverage(),
    )


def _same(entry: ParkedFile | None, signature: Signature) -> bool:
    return entry is not None and (entry.size, entry.mtime_ns) == signature


def _stale_reasons(
    moved: list[str],
    documents: int,
    recorded: int,
    head: str | None,
    indexed_head: str | None,
    errors: list[str],
) -> tuple[str, ...]:
    """Why the index does not describe the files as they are, one sentence each."""
    reasons = []
    if moved:
        shown = ", ".join(moved[:3]) + (f" and {len(moved) - 3} more" if len(moved) > 3 else "")
        files = "file differs" if len(moved) == 1 else "files differ"
        reasons.append(
            f"{len(moved)} {files} from what the last pass saw ({shown}); the next pass "
            "picks them up"
        )
    if documents != recorded:
        reasons.append(
            f"the index holds {counted(documents, 'section')} where the last pass recorded "
            f"{recorded}; "
            "'hearth reindex --full' rebuilds it"
        )
    if head != indexed_head:
        reasons.append(
            f"HEAD is {(head or 'none')[:12]} but the index reflects "
            f"{(indexed_head or 'no commit')[:12]}; the next pass catches up"
        )
    if errors:
        reasons.append(f"some files could not be listed ({'; '.join(errors[:3])})")
    return tuple(reasons)
