"""Hits' documents kept by key between searches (``index/stored_docs.py``;
issue 52: keyword search in the workload's home read some fifty stored
documents a search, the same ones search after search)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import tantivy

from hearth.domain.sections import split_sections
from hearth.index import documents, stored_docs
from hearth.index.hits import Hit
from tests.conftest import indexed_files, keyword_search

TOPIC = "memory/topics/quince.md"
NOTE = "memory/2026-10-01.md"


def _page(hits: list[Hit]) -> list[tuple[str, int, int, str, str, float, str]]:
    return [
        (h.path, h.start_line, h.end_line, h.title, h.heading, h.score, h.snippet) for h in hits
    ]


def test_a_document_read_once_is_not_read_from_the_store_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second search of the same words reads no stored document, and
    answers what reading every one gives."""
    files = {
        TOPIC: "# Quince\n\n## Tree\n\nThe quince tree by the gate.\n\n## Jam\n\nQuince jam.\n",
        NOTE: "# 2026-10-01\n\n## 09:00\n\nPicked a quince by the gate.\n",
    }
    index = indexed_files(tmp_path, files)
    monkeypatch.setattr(stored_docs, "KEPT_DOCS", stored_docs.KeptDocs())
    read: list[str] = []
    made = stored_docs._doc

    def counted(document: Any) -> stored_docs.Doc:
        doc = made(document)
        read.append(doc.hit.path)
        return doc

    monkeypatch.setattr(stored_docs, "_doc", counted)
    first = _page(keyword_search(index, "quince gate"))
    assert len(first) >= 3
    assert read
    read.clear()
    assert _page(keyword_search(index, "quince gate")) == first
    assert read == []
    monkeypatch.setattr(stored_docs, "KEPT_DOCS", stored_docs.KeptDocs(0, 0))
    assert _page(keyword_search(index, "quince gate")) == first
    assert read  # without keeping, every one read again


def test_a_changed_file_is_found_as_it_is_now(tmp_path: Path) -> None:
    """A file re-indexed after a search gets documents of new keys: the next
    search shows its new text and lines, never the kept ones."""
    old = "# Quince\n\nThe quince tree by the gate.\n"
    index = indexed_files(tmp_path, {TOPIC: old})
    assert [(h.heading, h.start_line, h.end_line) for h in keyword_search(index, "quince")] == [
        ("Quince", 1, 3)
    ]
    new = "# Quince\n\nA first line.\n\n## Later\n\nThe quince tree fell in the storm.\n"
    (tmp_path / "home" / TOPIC).write_text(new, encoding="utf-8")
    index.apply({TOPIC: split_sections(TOPIC, new)}, ())
    found = keyword_search(index, "quince")
    assert sorted((h.heading, h.start_line, h.end_line, h.snippet) for h in found) == [
        ("Later", 5, 7, "The **quince** tree fell in the storm"),
        ("Quince", 1, 3, "A first line."),
    ]


def test_every_document_has_a_key_of_its_own(tmp_path: Path) -> None:
    """The same section indexed again (an unchanged file re-indexed) gets a
    new key, and no two documents share one."""
    files = {TOPIC: "# Quince\n\n## A\n\nOne.\n\n## B\n\nTwo.\n", NOTE: "# Day\n\nQuince.\n"}
    index = indexed_files(tmp_path, files)
    index.apply({TOPIC: split_sections(TOPIC, files[TOPIC])}, ())
    searcher = index._index.searcher()
    found = searcher.search(tantivy.Query.all_query(), 100, count=False).hits
    keys = searcher.fast_field_values(stored_docs.DOC_KEY, [a for _s, a in found])
    assert len(keys) == 4
    assert all(isinstance(k, int) and 0 <= k < 2**63 for k in keys)
    assert len(set(keys)) == len(keys)


def test_a_forked_child_draws_other_keys_than_its_parent() -> None:
    """A child of ``os.fork`` starts its keys anew: a parent and its child
    writing after the fork never give two documents one key."""
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover  (the child)
        os.close(reading)
        os.write(writing, str(documents.new_key()).encode())
        os._exit(0)
    os.close(writing)
    ours = documents.new_key()
    with os.fdopen(reading) as pipe:
        theirs = int(pipe.read())
    os.waitpid(child, 0)
    assert abs(theirs - ours) > 1_000_000


def test_kept_documents_are_bounded_and_the_least_lately_used_go_first() -> None:
    def doc(body: str) -> stored_docs.Doc:
        hit = Hit("p.md", 1, 2, "", "", "topic", "", 0.0, "")
        return stored_docs.Doc(hit, 0, "d", (body, b"f"))

    kept = stored_docs.KeptDocs(most=3, most_chars=10)
    for key in (1, 2, 3):
        kept.keep(key, doc("ab"))
    assert kept.get(1) is not None  # 1 used lately: 2 is the least
    kept.keep(4, doc("ab"))
    assert [k for k in (1, 2, 3, 4) if kept.get(k)] == [1, 3, 4]
    kept.keep(5, doc("x" * 9))  # past the characters: the least used go until it fits
    assert [k for k in (1, 3, 4, 5) if kept.get(k)] == [5]
