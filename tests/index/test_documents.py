"""A file's documents, made with each part's joined words found once, are the
documents of each section made alone from its whole text."""

from __future__ import annotations

import tantivy
from hypothesis import given, settings
from hypothesis import strategies as st

from hearth.domain.sections import Section
from hearth.index import analysis, joined
from hearth.index.documents import document, documents
from hearth.index.schema import DOC_KEY, search_text
from tests.conftest import examples

#: Pieces that make runs written joined, or come near to (a joiner at a part's
#: edge, a newline beside one, marks and scripts cut per character).
PIECES = st.sampled_from(
    [
        *("Wi", "-", "Fi", ".", "js", "_", "'", "’", "t", "s", "1", ",", "000", " ", "\n"),
        *("é", "e\u0301", "\u0301", "東京", "‐", "x" * 70, "—", "U", "S"),
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=4)), max_size=10).map("".join)


def _form(value: object) -> object:
    """A field's value, comparable: a pre-tokenized one as its text and terms."""
    if isinstance(value, tantivy.PreTokenizedString):
        return ("pre-tokenized", value.text, [(t.text, t.position) for t in value.tokens])
    return value


def _reference(section: Section, ordinal: int) -> dict[str, object]:
    """The fields as each section's own whole text gives them."""
    fields = {k: [_form(v) for v in vs] for k, vs in document(section, ordinal).to_dict().items()}
    fields["title"] = [_form(analysis.stored_value(section.title))]
    fields["heading"] = [_form(analysis.stored_value(section.heading))]
    text = search_text(section.title, section.heading, section.body)
    fields["text"] = [_form(analysis.unstored_value(text))]
    return fields


@settings(max_examples=examples(200))
@given(TEXT, st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=3))
def test_a_files_documents_are_each_sections_own(title: str, parts: list[tuple[str, str]]) -> None:
    sections = [
        Section("notes/a.md", "note", title, heading, body, "", n + 1, n + 1)
        for n, (heading, body) in enumerate(parts)
    ]
    made = [
        {k: [_form(v) for v in vs] for k, vs in doc.to_dict().items()}
        for doc in documents(sections, b"digest")
    ]
    expected = [_reference(s, n) | {"file_digest": [b"digest"]} for n, s in enumerate(sections)]
    # Every document has a key of its own (drawn as it is made: never the same twice).
    keys = [fields.pop(DOC_KEY) for fields in made]
    assert len({key for (key,) in keys}) == len(made)
    assert [{k: v for k, v in e.items() if k != DOC_KEY} for e in expected] == made


@settings(max_examples=examples(300))
@given(TEXT, TEXT, TEXT)
def test_a_texts_joined_words_are_its_parts(title: str, heading: str, body: str) -> None:
    whole = joined.catenations(search_text(title, heading, body))
    assert whole == " ".join(e for e in map(joined.catenations, (title, heading, body)) if e)


ASCII = st.lists(
    st.one_of(
        st.sampled_from(["Wi", "-", "Fi", ".", "_", "'", "t", "s", "1", ",", "000", " "]),
        st.text(st.characters(max_codepoint=127), max_size=4),
    ),
    max_size=12,
).map("".join)


@settings(max_examples=examples(300))
@given(ASCII)
def test_ascii_text_finds_the_runs_the_scan_finds(text: str) -> None:
    # " é" adds no run, and takes ``runs`` past its look at ASCII text.
    assert joined.runs(text) == joined.runs(f"{text} é")
