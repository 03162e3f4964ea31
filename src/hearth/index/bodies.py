"""Section bodies, read from the home's markdown when a search needs them.

The index stores no body (schema version 7): a section's text is in its file,
which is canonical, and the index keeps where it is (path, first line) and
the digest of what was indexed (``digest``, the key of its vector). Storing
every body made Tantivy's document store most of the index, and a server that had
answered a few hundred searches held most of it in memory: each hit's
document is read from a compressed block, and the kernel maps a window
around each read (docs/performance.md, "The server's memory").

A search asks for the bodies of the hits it returns (snippets) and judges
(the relevance floor): each file is read and cut into sections once a
search (``split_sections``, as the reconciler cut it), and a section is found
by its first line. When the file changed since it was indexed (the pass that
follows the change has not run yet), the section at that line is what the
file holds now, or nothing: a snippet shows the file as it is, never text
that is gone. ``passages`` (the vectors' backfill) keeps only sections whose
text is still the one indexed, since a vector is stored under that digest.

Searches keep the lines of the files they read (``Kept``), each under its
file's signature (``RootedFiles.signature``: inode, size, times): a file
whose signature is the same at the next search is not opened again (a
search's ten files were a tenth of its time, most of it opening their
folders and themselves), and one that changed is read again, so a snippet
still shows the file as it is.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Container, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple, TypeVar, overload

from hearth.domain.sections import Section, split_sections
from hearth.errors import HearthError
from hearth.index.analysis import is_plain, term_set
from hearth.index.schema import digest, passage, section_digest

if TYPE_CHECKING:
    from hearth.index.hits import Ranked

_T = TypeVar("_T")
#: ``(path, start_line)``: a section's place, as hits are keyed.
Where = tuple[str, int]
#: Reads files of the home (relative paths) at once: each one's bytes, None
#: for one that does not exist or cannot be read (``RootedFiles.read_many``).
Reader = Callable[[Sequence[str]], Mapping[str, bytes | None]]
#: A file's signature (``RootedFiles.signature``): None when it has none.
Signer = Callable[[str], "tuple[int, ...] | None"]
#: The digest of a file's bytes on disk now, when the reconciler's manifest
#: knows them (``Reconciler.vouched``); None when it does not.
Voucher = Callable[[str], "bytes | None"]
#: A section's body as the index stores it, and the digest of the bytes of
#: the file it was cut from (``Ranked.stored``).
Stored = tuple[str, bytes]
#: Files read at once by the vectors' listing.
READ_AT_ONCE = 256
#: How long before a read a file must have last changed for its lines to be
#: kept: two writes within one tick of the filesystem's clock, of the same
#: size, leave the same signature (git's "racy" entries); a file this old
#: gets a later change time at its next write.
SETTLED_NS = 2_000_000_000
#: The characters of files kept at most (the least lately used go first).
KEPT_CHARS = 4_000_000
#: The sections whose words and plainness are kept, at most (``Kept.judged``).
JUDGED = 16384
_NONE = object()


def texts(read: Reader | None, paths: Sequence[str]) -> dict[str, str | None]:
    """Each file's text (without a byte order mark, as it is sectioned); None
    for one that cannot be read (gone, refused, not UTF-8)."""
    if read is None or not paths:
        return dict.fromkeys(paths)
    try:
        found = read(paths)
    except (HearthError, OSError):
        return dict.fromkeys(paths)
    out: dict[str, str | None] = {}
    for path in paths:
        data = found.get(path)
        try:
            text = None if data is None else data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        out[path] = text[1:] if text is not None and text.startswith("\ufeff") else text
    return out


class Place(NamedTuple):
    """What the index keeps of a section: enough to find its body in the file
    and to know it is the text that was indexed."""

    end_line: int
    heading: str
    digest: str


class Bodies(Mapping[Where, str]):
    """The bodies of the sections in ``places`` (by ``(path, start_line)``),
    read on first use, each file once.

    A section's body is first taken from its lines (the lines after its
    heading up to ``end_line``) and kept if its passage's digest is the one
    indexed: most sections, at the cost of splitting the file's lines (a
    long daily note is cut into sections in ten times the time it is split).
    Otherwise (a long section's piece, a file changed since) the file is cut
    into sections as the reconciler cuts it."""

    def __init__(
        self,
        read: Reader | None,
        places: Mapping[Where, Place],
        kept: Kept | None = None,
        stored: Mapping[Where, Stored] | None = None,
        vouch: Voucher | None = None,
    ) -> None:
        self._read = read
        self._places = dict(places)
        self._kept = kept
        self._stored = dict(stored) if stored else {}
        self._vouch = vouch
        #: Each file's ``vouch``, asked once a search.
        self._vouched: dict[str, bytes | None] = {}
        self._lines: dict[str, list[str] | None] = {}
        self._sections: dict[str, dict[int, Section]] = {}
        #: The bodies found (the floor and the snippets ask for the same ones).
        self._found: dict[Where, str] = {}

    @classmethod
    def of(
        cls, found: Iterable[Ranked], read: Reader | None, kept: Kept | None, vouch: Voucher | None
    ) -> Bodies:
        """The bodies of the hits of rankings ``found``: stored ones while their
        files are unchanged (``vouch``), the others read from them when first
        asked for."""
        places: dict[Where, Place] = {}
        stored: dict[Where, Stored] = {}
        for ranked in found:
            for h in ranked.hits:
                where = (h.path, h.start_line)
                places[where] = Place(h.end_line, h.heading, ranked.digests[where])
            stored.update(ranked.stored)
        return cls(read, places, kept, stored, vouch)

    def __getitem__(self, where: Where) -> str:
        found = self._found.get(where)
        if found is None:
            found = self._found[where] = self._body(where)
        return found

    def add(self, ranked: Ranked) -> None:
        """The places of more sections (``ranked``'s hits, with their digests
        and stored bodies): a ranking read further, their bodies found when
        first asked for."""
        for h in ranked.hits:
            where = (h.path, h.start_line)
            if where not in self._places:
                self._places[where] = Place(h.end_line, h.heading, ranked.digests[where])
                if where in ranked.stored:
                    self._stored[where] = ranked.stored[where]

    @overload
    def get(self, where: Where, /) -> str | None: ...
    @overload
    def get(self, where: Where, /, default: str | _T) -> str | _T: ...
    def get(self, where: Where, /, default: object = None) -> object:
        # Mapping's own ``get`` goes through ``__getitem__`` and a KeyError for
        # every section not in the ranking; the floor asks for every hit's body.
        found = self._found.get(where)
        if found is not None:
            return found
        return self[where] if where in self._places else default

    def _indexed(self, where: Where) -> str | None:
        """The body the index stores for ``where``, if its file is still the
        bytes it was cut from; else None (read the file)."""
        stored = self._stored.get(where)
        if stored is None:
            return None
        path = where[0]
        if path in self._vouched:
            on_disk = self._vouched[path]
        else:
            on_disk = self._vouched[path] = self._vouch(path) if self._vouch else None
        return stored[0] if stored[1] == on_disk else None

    def _body(self, where: Where) -> str:
        indexed = self._indexed(where)
        if indexed is not None:
            return indexed
        place = self._places[where]
        path, start_line = where
        lines = self._lines_of(path)
        if lines is None:
            return ""
        if isinstance(lines, Lines):  # a kept file's: its bodies found before
            found = lines.bodies.get((start_line, place))
            if found is None:
                found = lines.bodies[start_line, place] = self._cut(path, start_line, place, lines)
            return found
        return self._cut(path, start_line, place, lines)

    def terms(self, where: Where, title: str, heading: str) -> Container[str]:
        """``analysis.term_set`` of a hit's title, heading and body (the words
        the relevance floor looks for in it); of a kept file's section or one
        whose body came from the index, found once."""
        body = self.get(where, "")
        kept = self._kept
        if kept is not None and self._indexed(where) is not None:
            key = (where, self._stored[where][1], title, heading)
            return kept.judged(
                kept.terms, key, lambda: Held(term_set(f"{title}\n{heading}\n{body}"))
            )
        lines = self._lines.get(where[0])
        if where not in self._places or not isinstance(lines, Lines):
            return term_set(f"{title}\n{heading}\n{body}")
        key_in_file = (where[1], self._places[where], title, heading)
        found = lines.terms.get(key_in_file)
        if found is None:
            found = lines.terms[key_in_file] = frozenset(term_set(f"{title}\n{heading}\n{body}"))
        return found

    def plain(self, where: Where) -> bool:
        """``analysis.is_plain`` of a section's body (whether the writer's fast
        analyzer cuts it as the search analyzer does: its snippet's); of a
        kept file's section or one whose body came from the index, found once."""
        body = self.get(where, "")
        kept = self._kept
        if kept is not None and self._indexed(where) is not None:
            key = (where, self._stored[where][1])
            return kept.judged(kept.plain, key, lambda: is_plain(body))
        lines = self._lines.get(where[0])
        if where not in self._places or not isinstance(lines, Lines):
            return is_plain(body)
        key_in_file = (where[1], self._places[where])
        found = lines.plain.get(key_in_file)
        if found is None:
            found = lines.plain[key_in_file] = is_plain(body)
        return found

    def _cut(self, path: str, start_line: int, place: Place, lines: list[str]) -> str:
        """The body at ``start_line`` of the file of ``lines``."""
        # After a heading line, or (the first section, without one) from its first line.
        for first in (start_line, start_line - 1):
            body = "\n".join(lines[max(first, 0) : place.end_line]).strip("\n")
            if digest(passage(place.heading, body)) == place.digest:
                return body
        found = self._sections.get(path)
        if found is None:
            found = {s.start_line: s for s in split_sections(path, "\n".join(lines))}
            self._sections[path] = found
        section = found.get(start_line)
        return section.body if section is not None else ""

    def load(self, wheres: Iterable[Where]) -> None:
        """Read the files of ``wheres`` not read yet, at once (a search asks for
        the bodies of the hits it judges and returns: one read of each folder)."""
        paths = list(
            dict.fromkeys(
                w[0] for w in wheres if w[0] not in self._lines and self._indexed(w) is None
            )
        )
        if self._kept is not None:
            self._lines.update(self._kept.lines(self._read, paths))
            return
        for path, text in texts(self._read, paths).items():
            self._lines[path] = None if text is None else text.split("\n")

    def _lines_of(self, path: str) -> list[str] | None:
        if path not in self._lines:
            self.load([(path, 0)])
        return self._lines[path]

    def __iter__(self) -> Iterator[Where]:
        return iter(self._places)

    def __len__(self) -> int:
        return len(self._places)


class Held:
    """A set of terms as one string, each between spaces: what the relevance
    floor and a crowded page's room ask of a section's terms is whether it
    holds a few, and a kept ``frozenset`` took about ten times the memory
    (terms hold no space: the analyzers cut at every one)."""

    __slots__ = ("_text",)

    def __init__(self, terms: Iterable[str]) -> None:
        self._text = f" {' '.join(terms)} "

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and f" {term} " in self._text


class Lines(list[str]):
    """A kept file's lines, and the bodies found in them by ``(start_line,
    Place)`` (the same lines give the same body: it is found once), and
    their terms."""

    def __init__(self, lines: Iterable[str]) -> None:
        super().__init__(lines)
        self.bodies: dict[tuple[int, Place], str] = {}
        #: ``Bodies.terms`` of its sections, by start line, place, title and heading.
        self.terms: dict[tuple[int, Place, str, str], frozenset[str]] = {}
        #: ``Bodies.plain`` of its sections.
        self.plain: dict[tuple[int, Place], bool] = {}


class Kept:
    """The lines of the files searches read, by path, each under its file's
    signature when it was read (``sign``: ``RootedFiles.signature``), at most
    ``most`` characters of them. Shared by the searches of a process (a
    lock guards it); a list of lines is never changed once kept."""

    def __init__(self, sign: Signer, most: int = KEPT_CHARS) -> None:
        self._sign = sign
        self._most = most
        self._files: OrderedDict[str, tuple[tuple[int, ...], list[str], int]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        #: ``Bodies.terms`` and ``Bodies.plain`` of sections whose bodies came
        #: from the index, by place and file digest (the text is the same while
        #: both are), at most ``JUDGED`` of each (``judged``).
        self.terms: OrderedDict[Hashable, object] = OrderedDict()
        self.plain: OrderedDict[Hashable, object] = OrderedDict()

    def judged(
        self, kept: OrderedDict[Hashable, object], key: Hashable, make: Callable[[], _T]
    ) -> _T:
        """``kept``'s (``terms`` or ``plain``) value under ``key``, made once
        with ``make``; the least lately used go first past ``JUDGED``."""
        with self._lock:
            found = kept.get(key, _NONE)
            if found is not _NONE:
                kept.move_to_end(key)
                return found  # type: ignore[return-value]
        made = make()
        with self._lock:
            kept[key] = made
            if len(kept) > JUDGED:
                kept.popitem(last=False)
        return made

    def lines(self, read: Reader | None, paths: Sequence[str]) -> dict[str, list[str] | None]:
        """Each file's lines (None: ``texts`` has no text for it): those kept
        under the signature the file has now, the others read with ``read``.

        The signature is taken before the file is read: a change between the
        two leaves the text kept under the older signature, which the next
        search finds changed (it reads the file again), never the reverse."""
        out: dict[str, list[str] | None] = {}
        signed: dict[str, tuple[int, ...] | None] = {}
        for path in paths:
            sign = self._sign(path)
            with self._lock:
                kept = self._files.get(path)
                if sign is not None and kept is not None and kept[0] == sign:
                    self._files.move_to_end(path)
                    out[path] = kept[1]
                    continue
            signed[path] = sign
        if not signed:
            return out
        before = time.time_ns()
        for path, text in texts(read, list(signed)).items():
            lines = out[path] = None if text is None else Lines(text.split("\n"))
            sign = signed[path]
            if lines is not None and sign is not None and sign[-1] < before - SETTLED_NS:
                self._keep(path, sign, lines, len(text or ""))
        return out

    def _keep(self, path: str, sign: tuple[int, ...], lines: list[str], chars: int) -> None:
        if chars > self._most:
            return
        with self._lock:
            old = self._files.pop(path, None)
            if old is not None:
                self._chars -= old[2]
            self._files[path] = (sign, lines, chars)
            self._chars += chars
            while self._chars > self._most:
                _path, (_sign, _lines, gone) = self._files.popitem(last=False)
                self._chars -= gone


def current(
    read: Reader | None, wanted: Iterable[tuple[str, int, str]]
) -> Iterator[tuple[str, int, str, Section]]:
    """For each ``(path, start_line, digest)`` of ``wanted`` (grouped by path),
    the section the file holds at that line if its digest is still ``digest``:
    sections whose text changed since they were indexed are left out."""
    by_path: dict[str, list[tuple[int, str]]] = {}
    for path, start_line, key in wanted:
        by_path.setdefault(path, []).append((start_line, key))
    paths = list(by_path)
    for at in range(0, len(paths), READ_AT_ONCE):
        for path, text in texts(read, paths[at : at + READ_AT_ONCE]).items():
            if text is None:
                continue
            found = {s.start_line: s for s in split_sections(path, text)}
            for start_line, key in by_path[path]:
                section = found.get(start_line)
                if section is not None and section_digest(section) == key:
                    yield path, start_line, key, section
