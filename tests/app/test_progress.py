"""A served home's running pass and vector fill, as status shows them while they run."""

from __future__ import annotations

import threading
from pathlib import Path

from hearth.app.served.service import OwnedPasses
from hearth.app.status.progress import PassProgress
from hearth.index.semantic import Progress, VectorFiller
from tests.conftest import Workspace


def test_a_pass_is_shown_from_listing_through_reading_to_finishing() -> None:
    passes = PassProgress(monotonic=iter(range(100)).__next__)
    assert passes.view() is None
    with passes.running(full=True, rebuild=True) as progress:
        listing = passes.view()
        progress(1, 3)
        reading = passes.view()
        progress(3, 3)
        finishing = passes.view()
    assert listing is not None and reading is not None and finishing is not None
    assert listing["phase"] == "listing" and listing["files_total"] is None
    assert listing["full"] is True and listing["rebuild"] is True
    assert (reading["phase"], reading["files_done"], reading["files_total"]) == ("reading", 1, 3)
    assert (finishing["phase"], finishing["files_done"]) == ("finishing", 3)
    assert passes.view() is None


def test_a_failed_pass_is_not_shown_as_running() -> None:
    passes = PassProgress()
    try:
        with passes.running(full=False):
            raise OSError("disk gone")
    except OSError:
        pass
    assert passes.view() is None


def test_the_workers_passes_count_the_files_they_read(workspace: Workspace) -> None:
    """OwnedPasses hands the reconciler the tracker's progress: a real pass over
    real files moves it through every file it reads."""
    for n in range(25):
        workspace.write(f"memory/topics/t{n}.md", f"# T{n}\n\nwords {n}\n")
    seen: list[dict[str, object]] = []

    class Watched(PassProgress):
        def _reading(self, done: int, total: int) -> None:
            super()._reading(done, total)
            view = self.view()
            assert view is not None
            seen.append(view)

    passes = Watched()
    report = OwnedPasses(workspace.app.reconciler, threading.RLock(), passes).reconcile(None)
    assert report.indexed >= 25
    totals = {v["files_total"] for v in seen}
    assert totals == {report.hashed}
    assert [v["files_done"] for v in seen] == list(range(1, report.hashed + 1))
    assert seen[-1]["phase"] == "finishing" and seen[0]["phase"] in ("reading", "finishing")
    assert passes.view() is None


def test_the_vector_filler_shows_its_fill_while_it_runs(tmp_path: Path) -> None:
    """The filler's fill is ours to give (a seam): one that stops half-way until
    let go shows how far it got, and nothing once it ends."""
    halfway, release, ended = threading.Event(), threading.Event(), threading.Event()

    def fill(stop: threading.Event, progress: Progress) -> int:
        progress(16, 40)
        halfway.set()
        release.wait(10)
        progress(40, 40)
        ended.set()
        return 40

    wake = threading.Event()
    filler = VectorFiller(fill, wake)
    assert filler.filling() is None
    filler.start()
    wake.set()
    try:
        assert halfway.wait(10)
        assert filler.filling() == {"sections_done": 16, "sections_total": 40}
        release.set()
        assert ended.wait(10)
    finally:
        release.set()
        filler.stop()
    assert filler.filling() is None and filler.last_error is None
