"""What status reads of the index without Tantivy (index/ondisk.py), against Tantivy."""

from __future__ import annotations

import json
from pathlib import Path

from hearth.domain.sections import Section, split_sections
from hearth.index import ondisk
from hearth.index.search_index import SearchIndex


def sections(path: str, parts: int) -> list[Section]:
    body = "\n\n".join(f"## Part {n}\n\nwords {n}" for n in range(parts))
    return split_sections(path, f"# {path}\n\n{body}\n")


def test_the_document_count_is_the_searchers(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    index = SearchIndex.create(folder)
    assert ondisk.documents(folder) == index.documents() == 0
    index.apply(
        {f"memory/topics/t{n}.md": sections(f"memory/topics/t{n}.md", 3) for n in range(5)}, []
    )
    index.refresh()
    assert ondisk.documents(folder) == index.documents() > 0
    # Replacing a file deletes its old documents in a later segment: deletions count.
    index.apply(
        {"memory/topics/t1.md": sections("memory/topics/t1.md", 1)}, ["memory/topics/t2.md"]
    )
    index.refresh()
    assert ondisk.documents(folder) == index.documents()


def test_anything_unexpected_answers_none(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    SearchIndex.create(folder).close()
    meta = folder / ondisk.META_NAME
    assert ondisk.documents(tmp_path / "nowhere") is None
    saved = meta.read_text()
    meta.write_text(saved.replace(f'"schema": {ondisk.SCHEMA_VERSION}', '"schema": 0'))
    assert ondisk.documents(folder) is None  # another schema: the index is rebuilt on open
    meta.write_text(saved)
    tantivy_meta = folder / ondisk.TANTIVY_DIR / ondisk.META_NAME
    tantivy_meta.write_text(json.dumps({"segments": [{"max_doc": "many"}]}))
    assert ondisk.documents(folder) is None
    tantivy_meta.write_text("not json")
    assert ondisk.documents(folder) is None


def test_stored_vectors_are_counted_from_the_keys_file(tmp_path: Path) -> None:
    assert ondisk.stored_rows(tmp_path) == 0
    (tmp_path / ondisk.KEYS_NAME).write_bytes(b"k" * ondisk.KEY_BYTES * 3 + b"torn")
    assert ondisk.stored_rows(tmp_path) == 3
