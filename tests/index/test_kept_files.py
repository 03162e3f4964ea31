"""Searches keep the lines of the files they read while each file's signature
stays the same (``bodies.Kept``, issue 52's keyword search speed): an
unchanged file is not opened again, and any change, however it is made, is
read at the next search."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from hearth.index import bodies, ranking
from hearth.index.bodies import Kept
from hearth.index.question import question
from hearth.index.search_index import SearchIndex
from hearth.store.rooted import RootedFiles
from tests.conftest import Workspace, indexed_files, keyword_search
from tests.index.test_bodies import opened_files

NOTE = "memory/2026-11-20.md"
FILES = {
    "memory/topics/kestrel.md": "# Kestrel\n\nHovering bird of prey over the north field.\n",
    NOTE: (
        "# 2026-11-20\n\n## 09:00 UTC — Garden\n\nPlanted the gardens with Sam.\n\n"
        "## 14:30 UTC — Bees\n\nThe hives are quiet.\n"
    ),
}


class Counted:
    """The home's reader, with the paths of each of its calls."""

    def __init__(self, files: RootedFiles) -> None:
        self.files = files
        self.calls: list[list[str]] = []

    def __call__(self, paths: Sequence[str]) -> Mapping[str, bytes | None]:
        self.calls.append(list(paths))
        return self.files.read_many(paths)


def kept_index(tmp_path: Path, most: int = bodies.KEPT_CHARS) -> tuple[SearchIndex, Counted]:
    index = indexed_files(tmp_path, FILES)
    files = RootedFiles(tmp_path / "home")
    read = Counted(files)
    index.read = read
    index.kept = Kept(files.signature, most)
    return index, read


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file counts as settled, however lately it was written (the
    files of a test are written a moment before it searches)."""
    monkeypatch.setattr(bodies, "SETTLED_NS", -(10**18))


def test_an_unchanged_file_is_not_read_again(tmp_path: Path, settled: None) -> None:
    """The case: a second search of the same files opens none of them."""
    index, read = kept_index(tmp_path)
    [hit] = keyword_search(index, "hives")
    assert hit.snippet == "The **hives** are quiet"
    assert read.calls == [[NOTE]]
    [again] = keyword_search(index, "hives")
    assert again == hit
    assert read.calls == [[NOTE]]
    keyword_search(index, "hives kestrel")
    assert read.calls == [[NOTE], ["memory/topics/kestrel.md"]]


def test_a_file_changed_in_place_is_read_again(tmp_path: Path, settled: None) -> None:
    """Written over in place, at the same size a moment later (its change
    time moves): the snippet is the file as it is."""
    index, _read = kept_index(tmp_path)
    note = tmp_path / "home" / NOTE
    assert keyword_search(index, "hives")[0].snippet == "The **hives** are quiet"
    time.sleep(0.05)  # past a tick of the filesystem's clock
    with note.open("r+", encoding="utf-8") as f:
        f.write(FILES[NOTE].replace("are quiet", "are noisy"))
    assert keyword_search(index, "hives")[0].snippet == "The **hives** are noisy"
    note.write_text(FILES[NOTE].replace("are quiet", "buzz all day long"), encoding="utf-8")
    assert keyword_search(index, "hives")[0].snippet == "The **hives** buzz all day long"


def test_a_file_replaced_by_a_rename_is_read_again(tmp_path: Path, settled: None) -> None:
    """An editor's save (a new file renamed over the old one, same size and
    times): another inode, read again."""
    index, _read = kept_index(tmp_path)
    note = tmp_path / "home" / NOTE
    assert keyword_search(index, "hives")[0].snippet == "The **hives** are quiet"
    st = note.stat()
    fresh = note.with_name("save.tmp")
    fresh.write_text(FILES[NOTE].replace("are quiet", "are noisy"), encoding="utf-8")
    os.utime(fresh, ns=(st.st_atime_ns, st.st_mtime_ns))
    fresh.replace(note)
    assert keyword_search(index, "hives")[0].snippet == "The **hives** are noisy"


def test_a_symlink_put_in_place_of_a_kept_file_is_refused(tmp_path: Path, settled: None) -> None:
    """A symlink where a kept file was is not followed, as without keeping."""
    index, _read = kept_index(tmp_path)
    note = tmp_path / "home" / NOTE
    assert keyword_search(index, "hives")[0].snippet == "The **hives** are quiet"
    outside = tmp_path / "outside.md"
    outside.write_text(FILES[NOTE], encoding="utf-8")
    note.unlink()
    note.symlink_to(outside)
    [hit] = keyword_search(index, "hives")
    assert hit.snippet == ""


def test_a_file_gone_has_no_text(tmp_path: Path, settled: None) -> None:
    index, _read = kept_index(tmp_path)
    assert keyword_search(index, "hives")[0].snippet == "The **hives** are quiet"
    (tmp_path / "home" / NOTE).unlink()
    [hit] = keyword_search(index, "hives")
    assert (hit.heading, hit.snippet) == ("14:30 UTC — Bees", "")


def test_a_file_written_a_moment_ago_is_not_kept(tmp_path: Path) -> None:
    """Two writes within one tick of the filesystem's clock may leave the same
    signature: a file changed within ``SETTLED_NS`` of its read is read again
    at every search, so a same-size write right after is seen."""
    index, read = kept_index(tmp_path)
    note = tmp_path / "home" / NOTE
    assert keyword_search(index, "hives")[0].snippet == "The **hives** are quiet"
    with note.open("r+", encoding="utf-8") as f:
        f.write(FILES[NOTE].replace("are quiet", "are noisy"))
    assert keyword_search(index, "hives")[0].snippet == "The **hives** are noisy"
    assert read.calls == [[NOTE], [NOTE]]


def test_what_is_kept_is_bounded(tmp_path: Path, settled: None) -> None:
    """Past ``most`` characters the least lately used file is let go (and read
    again when asked for)."""
    index, read = kept_index(tmp_path, most=len(FILES[NOTE]) + 10)
    keyword_search(index, "hives")
    keyword_search(index, "kestrel")
    keyword_search(index, "hives")
    assert read.calls == [[NOTE], ["memory/topics/kestrel.md"], [NOTE]]


def test_a_home_s_index_keeps_its_files(
    workspace: Workspace, settled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The home's index (``LiveIndex``, as the server and the CLI open it)
    keeps what its searches read."""
    workspace.write("memory/topics/kestrel.md", FILES["memory/topics/kestrel.md"])
    reconciler = workspace.app.reconciler
    reconciler.reconcile()
    opened = opened_files(monkeypatch)
    first = reconciler.index.search("kestrel hovering", everything=True).hits
    assert first and first[0].path == "memory/topics/kestrel.md"
    assert opened
    opened.clear()
    assert reconciler.index.search("kestrel hovering", everything=True).hits == first
    assert opened == []


def test_a_kept_section_s_terms_are_found_once(
    tmp_path: Path, settled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The relevance floor's words of a hit (``Bodies.terms``) of a kept file
    are analyzed at its first search only, and are what the analyzer gives."""
    index, _read = kept_index(tmp_path)
    analyzed: list[str] = []
    real = bodies.term_set

    def counted(text: str) -> set[str]:
        analyzed.append(text)
        return real(text)

    monkeypatch.setattr(bodies, "term_set", counted)
    first = ranking.search(index, question("hives quiet", None, None, 10, None))
    assert first.hits[0].snippet == "The **hives** are **quiet**"
    judged = len(analyzed)
    assert judged >= 1
    again = ranking.search(index, question("hives quiet", None, None, 10, None))
    assert again == first
    assert len(analyzed) == judged
    ranked = index.ranked("hives", limit=10)
    kept = index.bodies(ranked)
    [hit] = ranked.hits
    where = (hit.path, hit.start_line)
    assert kept.terms(where, hit.title, hit.heading) == real(
        f"{hit.title}\n{hit.heading}\nThe hives are quiet."
    )
    assert kept.plain(where) is True


def test_keeping_changes_no_answer(tmp_path: Path, settled: None) -> None:
    """Searches with and without keeping give the same answers, before and
    after a file changes (text the fast analyzer cuts as the search analyzer
    does, and text it does not)."""
    more = {**FILES, "memory/topics/meeting.md": "# 会议\n\n明天下午三点开项目评审会议。\n"}
    kept = indexed_files(tmp_path / "kept", more)
    files = RootedFiles(tmp_path / "kept" / "home")
    kept.kept = Kept(files.signature)
    plain = indexed_files(tmp_path / "plain", more)
    asked = ["hives", "gardens sam", "kestrel north field", "bees quiet", "nothing", "评审会议"]

    def answers(index: SearchIndex) -> list[ranking.SearchResult]:
        return [ranking.search(index, question(q, None, None, 10, None)) for q in asked]

    first = answers(kept)
    assert "**" in first[-1].hits[0].snippet  # the meeting note, highlighted
    assert first == answers(plain)
    assert answers(kept) == answers(plain)  # its files kept now
    time.sleep(0.05)
    for root in (tmp_path / "kept", tmp_path / "plain"):
        (root / "home" / NOTE).write_text(FILES[NOTE].replace("Sam", "Ruth and Sam"))
    assert answers(kept) == answers(plain)


def test_a_file_of_a_path_outside_the_plain_form_is_read_at_every_search(
    tmp_path: Path, settled: None
) -> None:
    """A path ``RootedFiles.read`` normalizes first (here an accented name)
    has no signature: its file is read as before, at every search."""
    index = indexed_files(tmp_path, {"memory/topics/café.md": "# Café\n\nThe espresso bar.\n"})
    files = RootedFiles(tmp_path / "home")
    read = Counted(files)
    index.read = read
    index.kept = Kept(files.signature)
    for _ in range(2):
        [hit] = keyword_search(index, "espresso")
        assert hit.snippet == "The **espresso** bar"
    assert read.calls == [["memory/topics/café.md"], ["memory/topics/café.md"]]
