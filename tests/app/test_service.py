"""The service's scheduled jobs: a failure shows in status and ACTIVE.md, then clears."""

from __future__ import annotations

from hearth import wiring
from hearth.errors import StoreError
from tests.conftest import Workspace


def test_a_failed_job_shows_in_status_and_active_until_it_succeeds(workspace: Workspace) -> None:
    service = wiring.open_service(workspace.root, workspace.home.clock)
    service.start()
    try:

        def broken() -> None:
            raise StoreError("the disk said no")

        service.jobs.run("rollup", broken)
        jobs = {j["name"]: j for j in service.status().scheduler["jobs"]}
        assert jobs["rollup"]["failures"] == 1
        assert "the disk said no" in jobs["rollup"]["last_error"]
        assert "scheduled job rollup failed" in service.active().content

        service.jobs.run("rollup", lambda: None)
        jobs = {j["name"]: j for j in service.status().scheduler["jobs"]}
        assert jobs["rollup"]["last_error"] is None and jobs["rollup"]["runs"] == 2
        assert "scheduled job rollup failed" not in service.active().content
    finally:
        service.stop()


def test_the_rollup_job_commits_last_weeks_digest_once(workspace: Workspace) -> None:
    import datetime as dt

    from tests.conftest import FakeClock

    ws = workspace
    ws.home.note("Dug the beds.", "Garden", "test")  # 2026-11-22, ISO week 47
    later = FakeClock(dt.datetime(2026, 11, 24, 3, 0, tzinfo=dt.UTC))  # week 48
    service = wiring.open_service(ws.root, later)
    service.jobs.rollup()
    assert (ws.root / "continuity/rollups/2026-W47.md").exists()
    commits = len(ws.commits())
    service.jobs.rollup()
    assert len(ws.commits()) == commits
    service.stop()
