"""The index schema and its analyzer, named once.

Bump ``SCHEMA_VERSION`` (kept in ``ondisk.py``, which status reads without
Tantivy) whenever a field, a tokenizer or the meaning of a stored value
changes: an index with another version is rebuilt aside and swapped in by the
reconciler, never migrated in place.

Scoring runs on ``text``: the title, heading and body of a section as one
bag of words, so BM25's inverse document frequency is computed over whole
sections. Per-field scoring (version 1) gave a word that is common in bodies
but rare in titles (``what``, ``when``, ``the``) a high weight in the short
title and heading fields, and a question's filler words ranked the persona
files' titles first. ``title`` and ``heading`` stay indexed for
``field:word`` queries and for the heading and title bonus (``query.py``).

``body`` is stored without terms (version 11; versions 7 to 10 read it
from the file at every search): a search takes the bodies of its hits from
their documents, with the digest of the file's bytes they were cut from
(``file_digest``), and uses one only while the file on disk is still those
bytes (``bodies.py``). The document store is a file the process maps: its
pages are the kernel's cache, not the server's own memory. Snippets
highlight the body with the terms of ``text``; a query's ``body:word``
searches ``text``.

``digest`` (the key of a section's vector) is stored without terms too
(version 5): the semantic side finds sections by ``digest_key``, an integer
of the digest's first 60 bits, and keeps only those whose stored digest is
one it asked for. Distinct 32-character terms were a large share of a
build's CPU; as integers, half of that (docs/performance.md).

``ordinal`` is a section's place in its file (0 for the first), indexed, so
a search finds the entries just before and after a hit (version 6: a daily
entry's answer is often the entry after the one that asks, ``neighbour_bonuses.py``).
"""

from __future__ import annotations

import functools
import hashlib

import tantivy

from hearth.domain.notes import ENTRY_STAMP
from hearth.domain.sections import Section, split_sections
from hearth.index.ondisk import SCHEMA_VERSION as SCHEMA_VERSION  # noqa: PLC0414  (re-exported)

ANALYZER = "hearth_text"
#: The analyzer of fields that are stored but give no terms.
NO_TERMS = "hearth_none"

#: The field every word of a query is scored on by default.
SEARCH_FIELD = "text"
#: The field sections are found by from their passage digests (``digest_key``).
DIGEST_KEY = "digest_key"
#: A section's place in its file: its neighbours are ``ordinal`` - 1 and + 1.
ORDINAL = "ordinal"
#: A section's body, stored without terms (``text`` holds its words).
BODY = "body"
#: The digest of the bytes of the file a section was cut from, as the
#: reconciler's manifest keeps it (none for sections indexed without one).
FILE_DIGEST = "file_digest"
#: A key of each document's own, read without its stored fields: a process
#: keeps the documents it read by it (``documents.py``).
DOC_KEY = "doc_key"

#: Scripts written without spaces between words (or, for Hangul, with
#: particles glued to words): every character is a token of its own, and a
#: query finds words in them as phrases of characters (``query.py``).
CHAR_SCRIPTS = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}"
#: Pictographs (emoji, and symbols such as the copyright sign) are tokens of
#: their own too: a person who wrote a note with an emoji in it searches for
#: it by that emoji (version 9; before, they were separators and such a
#: search said "no matches"). Skin tones and joiners are not pictographs, so
#: a family or a thumb of any tone is found by its plain pictographs.
PICTOGRAPHS = r"\p{Extended_Pictographic}"
#: Longest token of letters and digits: a longer run is cut into pieces of
#: this length rather than dropped, so no text is silently unsearchable.
MAX_TOKEN_CHARS = 64
TOKEN_PATTERN = (
    rf"[{CHAR_SCRIPTS}]|{PICTOGRAPHS}"
    rf"|[[\p{{L}}\p{{N}}\p{{M}}]--[{CHAR_SCRIPTS}]]{{1,{MAX_TOKEN_CHARS}}}"
)


def build_schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("path", stored=True, tokenizer_name="raw")
    builder.add_text_field("kind", stored=True, tokenizer_name="raw")
    builder.add_text_field("title", stored=True, tokenizer_name=ANALYZER)
    builder.add_text_field("heading", stored=True, tokenizer_name=ANALYZER)
    builder.add_text_field(SEARCH_FIELD, stored=False, tokenizer_name=ANALYZER)
    builder.add_text_field("date", stored=True, tokenizer_name="raw")
    #: What the section's vector is keyed by (see ``vectors.py``).
    builder.add_text_field("digest", stored=True, tokenizer_name=NO_TERMS, index_option="basic")
    builder.add_integer_field(DIGEST_KEY, stored=False, indexed=True)
    builder.add_integer_field("start_line", stored=True)
    builder.add_integer_field("end_line", stored=True)
    builder.add_integer_field(ORDINAL, stored=True, indexed=True)
    #: The section's text, and the digest of the file's bytes it was cut from
    #: (``bodies.py``: a body is used only while the file is still those bytes).
    builder.add_text_field(BODY, stored=True, tokenizer_name=NO_TERMS, index_option="basic")
    builder.add_bytes_field(FILE_DIGEST, stored=True, indexed=False)
    builder.add_integer_field(DOC_KEY, stored=False, indexed=False, fast=True)
    return builder.build()


@functools.cache
def build_analyzer() -> tantivy.TextAnalyzer:
    """Words of letters and digits, one token per character of ``CHAR_SCRIPTS``
    and per pictograph; lower-cased, accents folded to ASCII (``cafe`` finds
    ``café``), English stems.

    Built once per process (compiling its regex takes tens of milliseconds);
    registering it on an index copies it."""
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(TOKEN_PATTERN))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


@functools.cache
def shared_analyzer() -> tantivy.TextAnalyzer:
    """The process's one search analyzer, for terms computed outside an index
    (queries, review's likeness, pre-tokenized fields)."""
    return build_analyzer()


def build_no_terms() -> tantivy.TextAnalyzer:
    """No terms at all: the whole value is one token, and it is removed."""
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw())
        .filter(tantivy.Filter.remove_long(1))
        .build()
    )


def register_analyzer(index: tantivy.Index) -> None:
    """Needed on every opened Index (the writer's has its own: ``analysis.py``)."""
    index.register_tokenizer(ANALYZER, shared_analyzer())
    index.register_tokenizer(NO_TERMS, build_no_terms())


def search_text(title: str, heading: str, body: str) -> str:
    """What the ``text`` field holds for a section."""
    return f"{title}\n{heading}\n{body}"


def passage(heading: str, body: str) -> str:
    """The text of a section that is embedded as its vector: ``label: body``.

    The label is the heading without a daily entry's time stamp. Measured on
    one LoCoMo conversation (semantic ranking alone, any-hit@5): the body
    alone 0.16, ``09:30 UTC — Sam`` and the body 0.38, ``Sam: body`` 0.52 (the
    questions name people; a clock time only adds noise to the vector).
    """
    # The stamp starts with a digit: most headings need no regex.
    label = (ENTRY_STAMP.sub("", heading) if heading[:1].isdigit() else heading).strip()
    return f"{label}: {body}".strip() if label else body.strip()


def digest_key(digest: str) -> int:
    """The indexed integer of a passage digest: its first 60 bits (an i64 is signed)."""
    return int(digest[:15], 16)


def digest(text: str) -> str:
    """The key of a passage's vector: same text, same vector, whatever file holds it."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def section_digest(section: Section) -> str:
    """The key of a section's vector: the digest of its passage."""
    return digest(passage(section.heading, section.body))


def file_digests(path: str, data: bytes) -> frozenset[str]:
    """The passage digests of a markdown file's sections (none: not UTF-8)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return frozenset()
    return frozenset(section_digest(s) for s in split_sections(path, text))
