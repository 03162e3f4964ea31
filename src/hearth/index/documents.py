"""A file's sections as the index's documents, each field in the writer's form.

A section's ``text`` field is its title, heading and body (``search_text``)
followed by the words they write joined (``joined.catenations``); its
``title`` and ``heading`` fields are stored and indexed with their own joined
words (``analysis.stored_value``). Every section of a file has the file's
title, so the title's value and its joined words are made once a file, and
each part's joined words are found once: the text's are those of its parts
(a run written joined never crosses the newlines between them). A build of
10,000 files makes 45,000 documents in the pass's one thread, beside
Tantivy's: what is not done twice here is CPU the build no longer takes
(docs/performance.md, "The full build's own work, done once").

Each document carries a key of its own (``DOC_KEY``, ``new_key``), drawn when
it is made: the first from 62 random bits, each process's (and each forked
child's) own, then one more each time, so two documents share a key only if
two writers' runs of keys overlap (under one chance in 10^12 for two writers of
a million documents each). A search keeps what it read of a document under
that key (``stored_docs.py``).
"""

from __future__ import annotations

import itertools
import os
import secrets
from collections.abc import Iterator, Sequence

import tantivy

from hearth.domain.sections import Section
from hearth.index import joined
from hearth.index.analysis import IndexValue, stored_value, unstored_form
from hearth.index.schema import (
    BODY,
    DIGEST_KEY,
    DOC_KEY,
    FILE_DIGEST,
    ORDINAL,
    digest_key,
    search_text,
    section_digest,
)


def documents(sections: Sequence[Section], file: bytes | None = None) -> Iterator[tantivy.Document]:
    """The documents of one file's ``sections``, in order (cut from bytes of
    digest ``file``)."""
    titles: dict[str, tuple[IndexValue, str]] = {}
    for ordinal, section in enumerate(sections):
        title = titles.get(section.title)
        if title is None:
            extra = joined.catenations(section.title)
            title = titles[section.title] = (stored_value(section.title, extra), extra)
        yield _document(section, ordinal, file, *title)


def document(section: Section, ordinal: int = 0, file: bytes | None = None) -> tantivy.Document:
    """The index document of a section, the ``ordinal``-th of its file (cut
    from bytes of digest ``file``)."""
    extra = joined.catenations(section.title)
    return _document(section, ordinal, file, stored_value(section.title, extra), extra)


def _document(
    section: Section, ordinal: int, file: bytes | None, title: IndexValue, title_extra: str
) -> tantivy.Document:
    heading_extra = joined.catenations(section.heading)
    heading = stored_value(section.heading, heading_extra)
    extra = " ".join(e for e in (title_extra, heading_extra, joined.catenations(section.body)) if e)
    full = search_text(section.title, section.heading, section.body)
    text = unstored_form(f"{full}\n{extra}" if extra else full)
    key = section_digest(section)
    fields: dict[str, object] = {
        "path": section.path,
        "kind": section.kind,
        "date": section.date,
        "digest": key,
        DIGEST_KEY: digest_key(key),
        "start_line": section.start_line,
        "end_line": section.end_line,
        ORDINAL: ordinal,
        BODY: section.body,
        DOC_KEY: new_key(),
    }
    if file is not None:
        fields[FILE_DIGEST] = file
    special: list[tuple[str, tantivy.PreTokenizedString]] = []
    for name, value in (("title", title), ("heading", heading), ("text", text)):
        if isinstance(value, str):
            fields[name] = value  # the common case: one constructor call
        else:
            special.append((name, value))
    # from_dict: the same document as Document(**fields), without a keyword
    # dict (less work a section).
    doc = tantivy.Document.from_dict(fields)
    for name, value in special:
        doc.add_pre_tokenized_text(name, value)
    return doc


class _Keys:
    """The keys this process gives the documents it adds (``new_key``)."""

    def __init__(self) -> None:
        self._next: Iterator[int] = iter(())
        self.start()

    def start(self) -> None:
        self._next = itertools.count(secrets.randbits(62))

    def __call__(self) -> int:
        return next(self._next)  # one step of a C iterator: atomic under the GIL


#: A new document's key (below 2**63: an i64 fast field).
new_key = _Keys()
os.register_at_fork(after_in_child=new_key.start)
