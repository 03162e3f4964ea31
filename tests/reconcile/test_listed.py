"""A listing kept as its differences from the manifest, patched path by path
after targeted passes, says what a listing of the whole tree says (the served
status snapshot relies on it: app/status/snapshot.py)."""

from __future__ import annotations

import random

from hearth.reconcile import freshness
from hearth.reconcile.reconciler import Reconciler
from hearth.reconcile.scan import scan_tree
from tests.conftest import Workspace

FIGURES = ("fresh", "stale_reasons", "files_on_disk", "files_indexed", "stale_files", "parked")


def figures(rec: Reconciler, status: object) -> dict[str, object]:
    return {name: getattr(status, name) for name in FIGURES}


def test_patched_differences_say_what_the_whole_listing_says(workspace: Workspace) -> None:
    ws, rec, rng = workspace, workspace.app.reconciler, random.Random(40)
    with open(ws.root / ".gitignore", "a") as ignore:
        ignore.write("private/\n")
    names = [f"memory/topics/t{i % 3}/n{i}.md" for i in range(12)]
    for path in names[:8]:
        ws.write(path, f"# {path}\n\nfirst words\n")
    rec.reconcile()
    delta = freshness.listing_delta(rec, scan_tree(ws.root))
    freshness.take_touched(rec)
    pending: list[str] = []
    for step in range(40):
        path = rng.choice(names)
        target = ws.root / path
        action = rng.choice(("edit", "edit", "delete", "link", "ignored", "folder", "none"))
        if action == "edit":
            if target.is_symlink():
                target.unlink()
            ws.write(path, f"# {path}\n\nstep {step} {rng.random()}\n")
        elif action == "delete" and (target.exists() or target.is_symlink()):
            target.unlink()
        elif action == "link" and not target.exists() and not target.is_symlink():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to("elsewhere.md")
        elif action == "ignored":
            ws.write(f"private/p{step}.md", "# Private\n\nnot indexed\n")
        elif action == "folder":
            ws.write(f"new{step}/inside.md", f"# New {step}\n\nin a new folder\n")
            rec.reconcile([f"new{step}"])  # as the watcher names a new folder
        pending += [path, f"private/p{step}.md"] if action != "none" else []
        if rng.random() < 0.8:  # now and then the pass covers the next step's too
            rec.reconcile(pending)
            pending = []
            touched = freshness.take_touched(rec)
            assert touched is not None
            assert freshness.patch_listing(rec, delta, touched), (step, touched)
            patched = figures(rec, freshness.status_of(rec, delta))
            whole = figures(rec, freshness.status(rec, scan_tree(ws.root)))
            assert patched == whole, (step, action, path)
    assert not (ws.root / "private").exists() or freshness.status_of(rec, delta).fresh


def test_a_full_pass_or_another_process_leaves_nothing_to_patch(workspace: Workspace) -> None:
    ws, rec = workspace, workspace.app.reconciler
    rec.reconcile()
    assert freshness.take_touched(rec) is None  # a full pass: list everything
    ws.write("memory/topics/owls.md", "# Owls\n\nAt dusk.\n")
    rec.reconcile(["memory/topics/owls.md"])
    assert freshness.take_touched(rec) == {"memory/topics/owls.md"}
    assert freshness.take_touched(rec) == set()
    ws.write("memory/topics/owls.md", "# Owls\n\nAt dawn too.\n")
    ws.reopen().reconciler.reconcile(["memory/topics/owls.md"])  # another process's pass
    assert freshness.take_touched(rec) is None


def test_what_was_listed_under_a_gone_folder_goes(workspace: Workspace) -> None:
    ws, rec = workspace, workspace.app.reconciler
    ws.write("trip/day1.md", "# Day 1\n\nRain.\n")
    (ws.root / "trip/link.md").symlink_to("day1.md")  # parked: listed, refused
    rec.reconcile()
    delta = freshness.listing_delta(rec, scan_tree(ws.root))
    freshness.take_touched(rec)
    for name in ("day1.md", "link.md"):
        (ws.root / "trip" / name).unlink()
    (ws.root / "trip").rmdir()
    rec.reconcile(["trip"])  # as the watcher names a removed folder
    touched = freshness.take_touched(rec)
    assert touched is not None and "trip/" in touched
    assert freshness.patch_listing(rec, delta, touched)
    assert figures(rec, freshness.status_of(rec, delta)) == figures(
        rec, freshness.status(rec, scan_tree(ws.root))
    )
    assert not delta.refused
