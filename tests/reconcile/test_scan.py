"""The listing of a pass: plain names take a fast path (one lstat), every other
name is judged as before; both give the same listing."""

from __future__ import annotations

import os
from pathlib import Path

from hearth.reconcile.scan import SYMLINK_REASON, scan_tree


def _write(root: Path, rel: str, text: str = "x\n") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_plain_and_unusual_names_are_listed_refused_or_skipped_as_before(tmp_path: Path) -> None:
    root = tmp_path
    listed = [
        "MEMORY.md",
        "memory/topics/t00/topic-00001.md",
        "memory/a name with spaces.md",
        "memory/.hidden.md",  # not plain (a leading dot): judged the slow way, still listed
        "memory/#x#.md",  # not an editor's #autosave# name: it ends in .md
        "memory/café.md",
        "memory/" + "n" * 230 + ".md",  # over the fast path's length, under the limit
    ]
    for rel in listed:
        _write(root, rel)
    skipped = [
        "continuity/ACTIVE.md",  # hearth's own output
        "memory/note.md~",
        "memory/.hearth-tmp-abc.md",
        "memory/.#lock.md",
        "memory/notes.txt",
        "memory/4913",
        ".git/x.md",
    ]
    for rel in skipped:
        _write(root, rel)
    os.mkfifo(root / "memory" / "pipe.md")
    (root / "memory" / "link.md").symlink_to(root / "MEMORY.md")
    _write(root, "memory/bad\\name.md")

    found = scan_tree(root)

    assert sorted(found.files) == sorted(listed)
    for rel in listed:
        st = os.lstat(root / rel)
        assert found.files[rel] == (st.st_size, st.st_mtime_ns)
    assert found.refused["memory/pipe.md"][1].startswith("not a regular file")
    assert found.refused["memory/link.md"][1] == SYMLINK_REASON
    assert "backslash" in found.refused["memory/bad\\name.md"][1]
    assert set(found.refused) == {"memory/pipe.md", "memory/link.md", "memory/bad\\name.md"}
    assert found.errors == []


def test_a_large_folder_is_listed_without_holding_every_entry_and_its_stat(
    tmp_path: Path,
) -> None:
    import tracemalloc

    folder = tmp_path / "memory" / "topics"
    folder.mkdir(parents=True)
    count = 3000
    for n in range(count):
        (folder / f"topic-{n}.md").write_text("x\n")
    scan_tree(tmp_path)  # imports and caches warmed outside the measure
    tracemalloc.start()
    try:
        listing = scan_tree(tmp_path)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(listing.files) == count
    # In the folder's own order, as before.
    assert list(listing.files) == ["memory/topics/" + e.name for e in os.scandir(folder)]
    # The listing itself stays (a path and a signature a file); what the walk held
    # besides it was every directory entry with its stat result, about 650 bytes
    # a file at once, before each entry went as soon as it was read.
    assert peak - kept < 200 * count, (peak - kept) / count
