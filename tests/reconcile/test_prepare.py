"""Reading files in worker processes: the same outcomes as reading them in the pass."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hearth.domain.sections import Section
from hearth.domain.validation import Bounds
from hearth.reconcile import freshness, prepare
from hearth.reconcile.reconciler import Reconciler
from hearth.store.rooted import RootedFiles
from tests.conftest import Workspace

SERIAL = 10**9


def fill(ws: Workspace, tmp_path: Path) -> None:
    for n in range(40):
        ws.write(f"memory/topics/t{n:02d}.md", f"# Topic {n}\n\n## Part\n\nheron {n} wades\n")
    ws.write("memory/topics/cjk.md", "# 東京\n\n東京で美味しい寿司を食べました。\n")
    ws.write("memory/topics/key.md", "# Keys\n\nAKIAABCDEFGHIJKLMNOP heron\n")
    ws.write("memory/topics/empty.md", "")
    (ws.root / "memory/topics/latin1.md").write_bytes(b"# Caf\xe9\n\nheron\n")
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n\nheron\n")
    (ws.root / "memory/topics/link.md").symlink_to(outside)
    os.mkfifo(ws.root / "memory/topics/pipe.md")


def snapshot(rec: Reconciler) -> tuple[object, ...]:
    state = rec.session.manifest
    files = {p: (e.size, e.digest, e.documents, e.failures) for p, e in state.files.items()}
    parked = {p: f.reason for p, f in state.parked.items()}
    hits = [
        (h.path, h.start_line, h.snippet)
        for h in rec.catch_up().search("heron", limit=200, everything=True).hits
    ]
    return files, parked, hits, [h.path for h in rec.catch_up().search("寿司").hits]


def test_a_pass_reading_in_workers_gives_what_a_serial_pass_gives(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(workspace, tmp_path)
    rec = workspace.app.reconciler
    rec.parallel_from = 1
    read_here = []
    real_reader = rec.files.batch_reader
    monkeypatch.setattr(rec.files, "batch_reader", lambda: read_here.append(1) or real_reader())
    in_workers = rec.rebuild()
    assert read_here == []  # the workers read every file
    monkeypatch.undo()
    parallel = snapshot(rec)
    rec.parallel_from = SERIAL
    in_pass = rec.rebuild()
    assert snapshot(rec) == parallel
    assert (in_workers.indexed, in_workers.parked) == (in_pass.indexed, in_pass.parked)
    files, parked, hits, cjk = parallel
    assert in_workers.parked == 3 and set(parked) == {
        "memory/topics/latin1.md",
        "memory/topics/link.md",
        "memory/topics/pipe.md",
    }
    assert any(f.rule == "secret-text" for f in files["memory/topics/key.md"][3])  # type: ignore[index]
    assert len(hits) == 41 and cjk == ["memory/topics/cjk.md"]
    assert freshness.status(rec).fresh


def test_a_big_pass_reads_its_first_files_while_the_workers_start(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(workspace, tmp_path)
    rec = workspace.app.reconciler
    rec.parallel_from = SERIAL
    rec.rebuild()
    for n in range(40):  # a pass over an indexed home that has many files to read
        workspace.write(
            f"memory/topics/t{n:02d}.md", f"# Topic {n}\n\n## Part\n\nheron {n} flies\n"
        )
    monkeypatch.setattr(prepare, "HEAD_START", 5)  # 40 files: a head of 5 is taken
    rec.parallel_from = 1
    read_here = []
    real_reader = rec.files.batch_reader
    monkeypatch.setattr(rec.files, "batch_reader", lambda: read_here.append(1) or real_reader())
    order: list[str] = []
    real_outcomes = prepare.outcomes

    def outcomes(*args: object, **kwargs: object) -> object:
        for outcome, signature in real_outcomes(*args, **kwargs):  # type: ignore[arg-type]
            order.append(outcome.path)
            yield outcome, signature

    monkeypatch.setattr("hearth.reconcile.differ.outcomes", outcomes)
    report = rec.reconcile()
    assert read_here == [1]  # the head, read here; the workers read the rest
    assert order == sorted(order) and len(set(order)) == len(order) >= 40  # in order, once
    monkeypatch.undo()
    in_workers = snapshot(rec)
    rec.parallel_from = SERIAL
    rec.rebuild()
    assert not report.errors and report.indexed == 40 and snapshot(rec) == in_workers
    assert freshness.status(rec).fresh


def test_a_rebuild_starts_its_workers_before_asking_which_files_git_ignores(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(workspace, tmp_path)
    workspace.write("memory/topics/skipped.md", "# Skipped\n\nheron skipped\n")
    (workspace.root / ".gitignore").write_text("memory/topics/skipped.md\n")
    rec = workspace.app.reconciler
    rec.parallel_from = SERIAL
    rec.rebuild()
    serial = snapshot(rec)
    rec.parallel_from = 1
    steps: list[str] = []
    real_readers = prepare.Readers.__init__
    real_ignored = rec.differ.ignore.ignored

    def readers(self: prepare.Readers, *args: object) -> None:
        steps.append("workers")
        real_readers(self, *args)  # type: ignore[arg-type]

    def ignored(*args: object) -> set[str]:
        steps.append("ignore rules")
        return real_ignored(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(prepare.Readers, "__init__", readers)
    monkeypatch.setattr(rec.differ.ignore, "ignored", ignored)
    read_here = []
    real_reader = rec.files.batch_reader
    monkeypatch.setattr(rec.files, "batch_reader", lambda: read_here.append(1) or real_reader())
    report = rec.rebuild()
    assert steps == ["workers", "ignore rules"]
    assert read_here == []  # no head start: the workers read every file
    monkeypatch.undo()
    assert not report.errors and snapshot(rec) == serial  # the ignored file's outcome passed over
    assert "memory/topics/skipped.md" not in rec.session.manifest.files
    assert freshness.status(rec).fresh


def test_workers_report_vanished_symlinked_and_odd_files(
    workspace: Workspace, tmp_path: Path
) -> None:
    fill(workspace, tmp_path)
    listed = [
        (path, (1, 1))
        for path in [
            "memory/topics/t00.md",
            "memory/topics/gone.md",
            "memory/topics/link.md",
            "memory/topics/pipe.md",
            "memory/topics/latin1.md",
        ]
    ]
    files = RootedFiles(workspace.root)
    try:
        got = {
            o.path: o.kind
            for o, _sig in prepare.outcomes(files, Bounds(), listed, {}, parallel_from=1)
        }
    finally:
        files.close()
    assert got == {
        "memory/topics/t00.md": "sections",
        "memory/topics/gone.md": "gone",
        "memory/topics/link.md": "refused",
        "memory/topics/pipe.md": "refused",
        "memory/topics/latin1.md": "undecodable",
    }


def test_outcomes_from_workers_are_the_outcomes_read_here(
    workspace: Workspace, tmp_path: Path
) -> None:
    fill(workspace, tmp_path)
    topics = workspace.root / "memory/topics"
    listed = [(f"memory/topics/{p.name}", (1, 1)) for p in sorted(topics.iterdir())]
    files = RootedFiles(workspace.root)
    try:
        sent = [o for o, _sig in prepare.outcomes(files, Bounds(), listed, {}, parallel_from=1)]
        here = [o for o, _sig in prepare.outcomes(files, Bounds(), listed, {}, SERIAL)]
    finally:
        files.close()
    assert len(sent) == 46
    plain = [dataclasses.replace(o, sections=list(o.sections)) for o in here]
    assert [dataclasses.replace(o, sections=list(o.sections)) for o in sent] == plain
    # Sections, not plain tuples of their fields (which compare equal to them).
    assert {type(s) for o in sent for s in o.sections} == {Section}
    assert [o.problems for o in sent] == [o.problems for o in here]


def test_a_worker_that_dies_leaves_the_files_to_the_pass(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(workspace, tmp_path)
    monkeypatch.setattr(prepare, "WORKER_COMMAND", (sys.executable, "-c", "pass"))
    rec = workspace.app.reconciler
    rec.parallel_from = SERIAL
    rec.rebuild()
    serial = snapshot(rec)
    rec.parallel_from = 1
    report = rec.rebuild()
    assert not report.errors and snapshot(rec) == serial
    assert len(rec.catch_up().search("heron", limit=200, everything=True).hits) == 41
    assert freshness.status(rec).fresh


def test_a_rebuild_sends_its_workers_few_of_the_files_git_ignores(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(workspace, tmp_path)
    for n in range(30):  # sorted before every other file: in the first requests
        workspace.write(f"0-ignored/a{n:02d}.md", f"# Ignored {n}\n\nheron ignored\n")
    (workspace.root / ".gitignore").write_text("0-ignored/\n")
    rec = workspace.app.reconciler
    rec.parallel_from = SERIAL
    rec.rebuild()
    serial = snapshot(rec)
    monkeypatch.setattr(prepare, "CHUNK", 2)
    sent: list[str] = []
    real_send = prepare.Readers._send

    def send(self: prepare.Readers, worker: int, chunk: list[tuple[str, bytes | None]]) -> None:
        sent.extend(path for path, _known in chunk)
        real_send(self, worker, chunk)

    monkeypatch.setattr(prepare.Readers, "_send", send)
    rec.parallel_from = 1
    report = rec.rebuild()
    ignored = [p for p in sent if p.startswith("0-ignored/")]
    # Only the requests sent before the ignore rules were asked: AHEAD a worker.
    assert len(ignored) <= prepare.AHEAD * prepare.worker_count() * 2
    assert len(sent) - len(ignored) == report.hashed  # every file read, once
    monkeypatch.undo()
    assert not report.errors and snapshot(rec) == serial
    assert not any(p.startswith("0-ignored/") for p in rec.session.manifest.files)


def test_closing_workers_whose_answers_are_not_read_ends_them_without_a_kill(
    workspace: Workspace,
) -> None:
    # Answers larger than a pipe holds: each worker blocks writing its first one.
    workspace.write("memory/topics/big.md", "# Big\n\n" + "heron wades and waits\n" * 20_000)
    readers = prepare.Readers(workspace.root, Bounds(), 1)
    readers.submit([("memory/topics/big.md", None)] * 4)
    procs = list(readers._procs)
    readers.close()  # the pass stopped before reading any answer
    assert [p.returncode for p in procs] == [1]  # its write failed: not killed after a wait


def test_a_rebuild_reads_with_the_workers_started_before_it(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(workspace, tmp_path)
    rec = workspace.app.reconciler
    rec.parallel_from = 1
    early = prepare.EarlyWorkers(1)
    real = prepare._started
    started_later: list[int] = []
    monkeypatch.setattr(prepare, "_started", lambda: started_later.append(1) or real())
    report = workspace.app.reconcile(True, early=early)
    assert started_later == [] and early.take(1) == []  # the early one read every file
    parallel = snapshot(rec)
    rec.parallel_from = SERIAL
    assert (rec.rebuild().indexed, snapshot(rec)) == (report.indexed, parallel)


def test_workers_started_early_that_no_pass_took_are_ended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = prepare._started
    made: list[subprocess.Popen[bytes]] = []
    monkeypatch.setattr(prepare, "_started", lambda: made.append(real()) or made[-1])
    early = prepare.EarlyWorkers(2)
    early.close()
    assert len(made) == 2 and all(p.poll() is not None for p in made)
    assert early.take(2) == []
