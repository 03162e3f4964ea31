"""Status says why, and agrees with search (issue 50, case 5)."""

from __future__ import annotations

import threading
import time

from hearth import wiring
from tests.conftest import Workspace


def test_served_status_is_never_stale_without_a_reason_and_agrees_with_search(
    workspace: Workspace,
) -> None:
    """Case 5: right after a write, the snapshot is older than the write's pass:
    status said ``fresh: false`` with ``stale_reasons: []`` while a search said
    fresh (2d32b4d). Now it says what a search says, and gives a reason when stale."""
    service = wiring.open_service(workspace.root, workspace.home.clock)
    service.start()
    release, held = threading.Event(), threading.Event()

    def hold_the_home() -> None:
        # The snapshot thread takes the home's lock first: held, it cannot renew
        # the snapshot, as when a write's status is asked before it could.
        with service.owner:
            held.set()
            release.wait(30)

    def settled() -> None:
        # A pass's own write of ACTIVE.md comes back as a watcher event (later
        # on a loaded machine): wait until the index is fresh twice in a row.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert service.worker.wait_idle(30)
            if service.index_freshness()[0]:
                time.sleep(0.3)
                if service.worker.wait_idle(30) and service.index_freshness()[0]:
                    return
            time.sleep(0.1)
        raise AssertionError("the index never settled")

    try:
        settled()
        service.note("Sam planted tomatoes along the fence.", None, "test")
        settled()
        holder = threading.Thread(target=hold_the_home)
        holder.start()
        assert held.wait(30)
        service.board.pass_done()  # a pass the snapshot has not seen
        searched = service.search("tomatoes")
        index = service.status().home.index
        assert index is not None
        assert index.fresh or index.stale_reasons, index
        fresh, _why = service.index_freshness()
        assert searched.hits and fresh
        assert index.fresh == fresh, index
    finally:
        release.set()
        service.stop()
