"""A server ``reindex --full`` starts builds the index once (issue 52, "Full
reindex: 2.5x FTS5 stands"): its start-up pass is the rebuild, and that answers
the full pass the command asks for next; before, a home never indexed was built
by the start-up pass and then rebuilt at once by the request."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hearth import wiring
from hearth.app.served import lifecycle
from hearth.app.served.service import ServedHearth
from hearth.reconcile.reconciler import Reconciler
from tests.conftest import FakeClock, Workspace

NOTES = 12


def _counted(reconciler: Reconciler) -> list[int]:
    """How many indexes the reconciler builds from every file (a spy on our own seam)."""
    builds = [0]
    build: Callable[[], object] = reconciler._rebuild

    def counting() -> object:
        builds[0] += 1
        return build()

    reconciler._rebuild = counting  # type: ignore[method-assign,assignment]
    return builds


def _home(ws: Workspace) -> Path:
    for n in range(NOTES):
        ws.write(f"memory/topics/otter-{n}.md", f"# Otter {n}\n\nOtter {n} swam past the weir.\n")
    ws.git("add", "-A")
    ws.git("commit", "-qm", "otters")
    return ws.root


def _served(root: Path, clock: FakeClock, rebuild: bool) -> tuple[ServedHearth, list[int]]:
    service = wiring.open_service(root, clock, rebuild_at_start=rebuild)
    return service, _counted(service.reconciler)


def test_a_server_started_to_rebuild_answers_the_full_pass_with_its_start_up_rebuild(
    workspace: Workspace, clock: FakeClock
) -> None:
    """Case: a home never indexed, a server started for ``reindex --full``: one
    build, whose report (every file read and indexed, ``rebuilt``) answers the
    request; the next full pass asked is a rebuild of its own."""
    service, builds = _served(_home(workspace), clock, rebuild=True)
    service.start()
    try:
        assert builds == [1]
        report = service.reconcile(full=True)
        assert builds == [1]
        assert report.rebuilt and report.full and report.indexed == report.scanned >= NOTES
        assert [h.path for h in service.search("weir", limit=20).hits].count(
            "memory/topics/otter-3.md"
        ) == 1
        again = service.reconcile(full=True)
        assert builds == [2] and again.rebuilt and again.indexed == report.indexed
    finally:
        service.stop()


def test_a_server_started_to_rebuild_rebuilds_an_index_that_was_there(
    workspace: Workspace, clock: FakeClock
) -> None:
    """Case: the home was indexed before (a server stopped, then ``reindex --full``
    starts one): the start-up pass is the rebuild asked for, not a pass that
    finds nothing changed followed by a rebuild."""
    root = _home(workspace)
    workspace.app.reindex(False)
    service, builds = _served(root, clock, rebuild=True)
    service.start()
    try:
        assert builds == [1]
        assert service.reconcile(full=True).rebuilt
        assert builds == [1]
    finally:
        service.stop()


def test_a_server_started_otherwise_rebuilds_when_asked(
    workspace: Workspace, clock: FakeClock
) -> None:
    """Case: a server started by anything else (``serve``, a read): its start-up
    pass builds a home never indexed, and a full pass asked of it rebuilds."""
    service, builds = _served(_home(workspace), clock, rebuild=False)
    service.start()
    try:
        assert builds == [1]
        assert service.reconcile(full=True).rebuilt
        assert builds == [2]
    finally:
        service.stop()


def test_a_start_up_rebuild_long_past_answers_nothing(
    workspace: Workspace, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Case: the command that started the server never asked (killed, say): a
    full pass asked once the start is past its moment rebuilds."""
    monkeypatch.setattr(lifecycle, "START_REBUILD_SECONDS", -1.0)
    service, builds = _served(_home(workspace), clock, rebuild=True)
    service.start()
    try:
        assert service.reconcile(full=True).rebuilt
        assert builds == [2]
    finally:
        service.stop()
