"""The index schema and its analyzer, named once.

Bump ``SCHEMA_VERSION`` whenever a field, a tokenizer or the meaning of a
stored value changes: an index with another version is rebuilt aside and
swapped in by the reconciler, never migrated in place.
"""

from __future__ import annotations

import tantivy

# 2: daily notes in LionClaw's layout (continuity/daily/YYYY/MM/) are kind "daily".
SCHEMA_VERSION = 2
ANALYZER = "hearth_en"

#: Fields searched by user text, with their weights.
TEXT_FIELDS = ("title", "heading", "body")
FIELD_BOOSTS = {"title": 2.5, "heading": 1.5, "body": 1.0}
#: Archived records still match, at this fraction of their score.
ARCHIVE_WEIGHT = 0.5


def build_schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("path", stored=True, tokenizer_name="raw")
    builder.add_text_field("kind", stored=True, tokenizer_name="raw")
    builder.add_text_field("title", stored=True, tokenizer_name=ANALYZER)
    builder.add_text_field("heading", stored=True, tokenizer_name=ANALYZER)
    builder.add_text_field("body", stored=True, tokenizer_name=ANALYZER)
    builder.add_text_field("date", stored=True, tokenizer_name="raw")
    builder.add_integer_field("start_line", stored=True)
    builder.add_integer_field("end_line", stored=True)
    return builder.build()


def register_analyzer(index: tantivy.Index) -> None:
    """Lower-case, fold accents to ASCII, stem English. Needed on every opened Index."""
    analyzer = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(64))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )
    index.register_tokenizer(ANALYZER, analyzer)
