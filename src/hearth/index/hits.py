"""What a search finds: a ``Hit`` (one section, its place, score and snippet)
and a ``Ranked`` list of them with what the later stages need of each."""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from tantivy import Query


@dataclass(frozen=True)
class Hit:
    path: str
    start_line: int
    end_line: int
    title: str
    heading: str
    kind: str
    date: str
    score: float
    snippet: str
    #: What became of an archived record (``layout.record_status``: ``merged``,
    #: ``rejected``, ``withdrawn``, ``resolved``, ``superseded``); "" for any other section.
    status: str = ""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    def scored(self, score: float) -> Hit:
        """This hit with ``score`` (as ``dataclasses.replace``, without its look at each field)."""
        return self._with("score", score)

    def with_snippet(self, snippet: str) -> Hit:
        return self._with("snippet", snippet)

    def _with(self, name: str, value: object) -> Hit:
        """This hit with one field's value changed, its fields copied at once:
        the frozen class's ``__init__`` sets each through ``object.__setattr__``
        (a search copies twenty hits)."""
        new = object.__new__(type(self))
        fields = new.__dict__
        fields.update(self.__dict__)
        fields[name] = value
        return new


@dataclass(frozen=True)
class Ranked:
    """Hits without snippets (``snippet`` empty), and what the index keeps of
    each section by ``(path, start_line)``."""

    hits: list[Hit]
    #: Each section's place in its file (``ordinal``), by ``(path, start_line)``.
    ordinals: dict[tuple[str, int], int] = dataclasses.field(default_factory=dict)
    #: Each section's passage digest, by ``(path, start_line)``.
    digests: dict[tuple[str, int], str] = dataclasses.field(default_factory=dict)
    #: Each section's stored body and the digest of the file's bytes it was cut
    #: from (``bodies.py`` uses it while the file is still those bytes); only
    #: sections indexed with one.
    stored: dict[tuple[str, int], tuple[str, bytes]] = dataclasses.field(default_factory=dict)
    #: The scored query of a keyword ranking (its neighbours are scored by it).
    query: Query | None = None
    #: What a section must match to be a keyword hit (its snippets highlight it).
    matched: Query | None = None
    #: The candidates found past ``hits`` (a keyword ranking asked for ``more``),
    #: read from the index a chunk of the given size at a time, best first.
    further: Callable[[int], Iterator[Ranked]] | None = None
