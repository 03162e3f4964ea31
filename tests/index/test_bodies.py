"""Hits' bodies: from the index while their files are the bytes it was
built from (the reconciler's manifest vouches for them), else from the
home's files as they are (``bodies.py``)."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
import tantivy

from hearth.domain.sections import split_sections
from hearth.index.schema import passage, section_digest
from hearth.reconcile.reconciler import Reconciler
from hearth.store import rooted
from tests.conftest import Workspace, indexed_files, keyword_search

FILES = {
    "memory/topics/kestrel.md": "# Kestrel\n\nHovering bird of prey over the north field.\n",
    "memory/2026-11-20.md": (
        "# 2026-11-20\n\n## 09:00 UTC — Garden\n\nPlanted the gardens with Sam.\n\n"
        "## 14:30 UTC — Bees\n\nThe hives are quiet.\n"
    ),
}


def settled_home(workspace: Workspace) -> Reconciler:
    """``FILES`` in a home, every file of it (the template's too, which a
    search for words of ``FILES`` may also find) last changed an hour ago,
    long before the pass that indexes them: no entry of the manifest is
    racy, however long the machine took between the home's start and it."""
    an_hour_ago = time.time() - 3600
    for path, text in FILES.items():
        workspace.write(path, text)
    for file in workspace.root.rglob("*.md"):
        if ".git" not in file.relative_to(workspace.root).parts:
            os.utime(file, (an_hour_ago, an_hour_ago))
    reconciler = workspace.app.reconciler
    reconciler.reconcile()
    return reconciler


def opened_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the home's files searches open from now on."""
    opened: list[str] = []
    real = rooted._read_listed

    def counted(folder: int, name: str, path: str, limit: int | None = None) -> bytes | None:
        opened.append(path)
        return real(folder, name, path, limit)

    monkeypatch.setattr(rooted, "_read_listed", counted)
    return opened


def test_the_index_keeps_each_section_s_text_and_its_file_s_digest(workspace: Workspace) -> None:
    reconciler = settled_home(workspace)
    live = reconciler.index.current
    assert live is not None
    searcher = live._index.searcher()
    stored = [
        searcher.doc(address).to_dict()
        for _score, address in searcher.search(tantivy.Query.all_query(), 100).hits
    ]
    cut = {
        (s.path, s.start_line): s.body
        for path, text in FILES.items()
        for s in split_sections(path, text)
    }
    ours = [doc for doc in stored if (doc["path"][0], doc["start_line"][0]) in cut]
    assert {(d["path"][0], d["start_line"][0]): d["body"][0] for d in ours} == cut
    for doc in ours:
        digest = hashlib.blake2b(FILES[doc["path"][0]].encode(), digest_size=16).digest()
        assert doc["file_digest"] == [digest]


def test_a_home_s_search_reads_no_file_its_index_vouches_for(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files unchanged since the pass that indexed them (their signature is
    the manifest's): their bodies come from the index, no file is opened."""
    reconciler = settled_home(workspace)
    opened = opened_files(monkeypatch)
    found = reconciler.index.search("hives quiet").hits
    assert [h.snippet for h in found] == [
        "The **hives** are **quiet**",
        "Planted the gardens with Sam.",
    ]
    assert opened == []


def test_a_file_changed_since_it_was_indexed_is_shown_as_it_is(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Changed behind the index's back (its pass has not run yet): the body is
    the file's, not the text the index stores; gone, the hit has none."""
    reconciler = settled_home(workspace)
    note = workspace.root / "memory/2026-11-20.md"
    assert reconciler.index.search("hives").hits[0].snippet == "The **hives** are quiet"
    note.write_text(FILES["memory/2026-11-20.md"].replace("are quiet", "are loud today"))
    opened = opened_files(monkeypatch)
    hit = reconciler.index.search("hives").hits[0]
    assert hit.snippet == "The **hives** are loud today"
    assert opened == ["memory/2026-11-20.md"]
    note.unlink()
    hit = reconciler.index.search("hives", everything=True).hits[0]
    assert (hit.heading, hit.snippet) == ("14:30 UTC — Bees", "")


def test_a_file_put_back_as_it_was_indexed_is_vouched_for_again(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vouching compares the file's signature with the manifest's, not a
    moment in time: the same bytes under the signature indexed are the
    index's text again."""
    reconciler = settled_home(workspace)
    note = workspace.root / "memory/2026-11-20.md"
    before = note.stat()
    note.write_text("# 2026-11-20\n\nSomething else.\n")
    assert reconciler.index.search("hives", everything=True).hits[0].snippet == ""
    note.write_text(FILES["memory/2026-11-20.md"])
    os.utime(note, ns=(before.st_atime_ns, before.st_mtime_ns))
    opened = opened_files(monkeypatch)
    assert reconciler.index.search("hives").hits[0].snippet == "The **hives** are quiet"
    assert opened == []


def test_a_snippet_shows_the_file_as_it_is_never_text_that_is_gone(tmp_path: Path) -> None:
    index = indexed_files(tmp_path, FILES)
    note = tmp_path / "home" / "memory/2026-11-20.md"
    # Changed behind the index's back (its pass has not run yet): the section
    # at that line is what the snippet shows.
    note.write_text(FILES["memory/2026-11-20.md"].replace("are quiet", "are loud today"))
    [hit] = keyword_search(index, "hives")
    assert hit.snippet == "The **hives** are loud today"
    # Gone: the hit (the index's, until the pass) has no text to show.
    note.unlink()
    [hit] = keyword_search(index, "hives")
    assert (hit.heading, hit.snippet) == ("14:30 UTC — Bees", "")


def test_bodies_are_read_once_a_file_and_only_when_asked(tmp_path: Path) -> None:
    index = indexed_files(tmp_path, FILES)
    read: list[list[str]] = []

    def reading(paths: Sequence[str]) -> dict[str, bytes | None]:
        read.append(list(paths))
        return {path: (tmp_path / "home" / path).read_bytes() for path in paths}

    index.read = reading
    ranked = index.ranked("gardens hives", limit=10)
    bodies = index.bodies(ranked)
    assert read == []  # nothing is read until a body is asked for
    assert {bodies[h.path, h.start_line] for h in ranked.hits} == {
        "Planted the gardens with Sam.",
        "The hives are quiet.",
    }
    assert read == [["memory/2026-11-20.md"]]
    assert bodies.get(("memory/topics/kestrel.md", 3)) is None  # not a hit of this ranking


def test_the_vectors_listing_leaves_out_text_changed_since_it_was_indexed(tmp_path: Path) -> None:
    index = indexed_files(tmp_path, FILES)
    expected = {
        section_digest(s): passage(s.heading, s.body)
        for path, text in FILES.items()
        for s in split_sections(path, text)
    }
    listed = {d: text for d, text, _path in index.listing().missing}
    assert listed == expected
    (tmp_path / "home" / "memory/topics/kestrel.md").write_text("# Kestrel\n\nA falcon.\n")
    after = index.listing()
    # The kestrel's passage is no longer the one its digest names: no vector
    # is made under that digest; it is still live (the index holds it).
    assert {d for d, _text, _path in after.missing} == set(listed) - {
        section_digest(s)
        for s in split_sections("memory/topics/kestrel.md", FILES["memory/topics/kestrel.md"])
    }
    assert after.live == index.listing().live


#: Files whose sections take each way through ``Bodies``: after a heading,
#: before any heading, an empty heading, front matter, a byte order mark,
#: CRLF line ends, a section cut into pieces, only front matter, an empty file.
SHAPES = {
    "memory/topics/lead.md": (
        "Text before any heading.\n\n# Title\n\nBody.\n\n\n## Empty\n\n## Last\nx\n"
    ),
    "memory/topics/bare.md": "#\n\nUnder an empty heading.\n# \n\nAnd again.\n",
    "continuity/open-loops/x--0.md": (
        "---\ntitle: X\nstatus: open\n---\n\nBuy posts.\n\n## More\n\nMore.\n"
    ),
    "memory/topics/bom.md": "\ufeff# Bom\n\nMarked.\n",
    "memory/topics/crlf.md": "# Crlf\r\n\r\nWindows text.\r\n\r\n## Two\r\nmore\r\n",
    "memory/topics/long.md": "# Long\n\n"
    + "".join(f"Line {n} of a long note.\n\n" for n in range(400)),
    "memory/topics/front.md": "---\ntitle: Only front matter\n---\n",
    "memory/topics/empty.md": "",
}


def test_every_sections_body_is_the_one_the_reconciler_cut(tmp_path: Path) -> None:
    index = indexed_files(tmp_path, SHAPES)
    searcher = index._index.searcher()
    found = [
        searcher.doc(address)
        for _score, address in searcher.search(tantivy.Query.all_query(), 1000).hits
    ]
    cut = {
        (s.path, s.start_line): s
        for path, text in SHAPES.items()
        for s in split_sections(path, text)
    }
    assert len(found) == len(cut)
    ranked = index.ranked_digests([str(doc.get_first("digest")) for doc in found], limit=1000)
    bodies = index.bodies(ranked)
    assert {(h.path, h.start_line) for h in ranked.hits} == set(cut)
    assert {where: bodies[where] for where in cut} == {where: s.body for where, s in cut.items()}
