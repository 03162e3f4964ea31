"""What each passage is written in, by its digest: whether crossing can find
a translation among a search's nearest passages, told before reading them.

Crossing (``crossing.py``) looks among the semantic side's sections of all
the nearest passages (past its margin) for one in another language than
the question. Reading those sections and their bodies cost a hybrid search
more than the semantic side's own sections (docs/performance.md, "Hybrid
search's own parts"), and in a home written in the question's language
nothing of it was ever used. A passage's digest is the hash of its text,
so what its body is written in never changes: it is learnt from the bodies
a search reads (``learn``), and a search whose nearest passages are all
known to hold no text in another language reads only the semantic side's
sections (``may_cross``). The answer is the one the wide read gives:
crossing would have found no candidate among them whatever the filters.

Only bodies whose passage is the indexed one are learnt: a file changed
since it was indexed holds other text at that place until its pass runs.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from hearth.index import floor as floors
from hearth.index.schema import digest, passage

if TYPE_CHECKING:
    from hearth.index.hits import Hit

#: Digests whose language is kept at most (many searches' nearest passages).
MAX_KEPT = 20_000
#: A passage without text (a bare heading): never crossing's candidate.
_BLANK = ""
#: A body of ASCII letters alone: never in another language than a question
#: in Latin letters (``crossing.candidate``); its tongue is not read.
_ASCII = "ascii-body"
#: Before the tongue (``floor.tongue``) of a body with other characters.
_OTHER = "tongue:"


class PassageTongues:
    """Each learnt digest's body: blank, ASCII, or in ``floor.tongue``'s tongue."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[str, str] = {}

    def learn(
        self,
        hits: Sequence[Hit],
        digests: Mapping[tuple[str, int], str],
        bodies: Mapping[tuple[str, int], str],
    ) -> None:
        """What the bodies of ``hits`` (read: ``bodies``) are written in, kept
        by their digests when the body is the indexed passage's."""
        found: dict[str, str] = {}
        for hit in hits:
            key = (hit.path, hit.start_line)
            known = digests.get(key, "")
            if not known or known in self._known or known in found:
                continue
            body = bodies.get(key, "")
            if digest(passage(hit.heading, body)) != known:
                continue  # another text than the indexed one, or none read
            if not body.strip():
                found[known] = _BLANK
            elif body.isascii():
                found[known] = _ASCII
            else:
                found[known] = _OTHER + floors.tongue(body)
        if not found:
            return
        with self._lock:
            if len(self._known) + len(found) > MAX_KEPT:
                self._known = {}
            self._known.update(found)

    def may_cross(self, text: str, nearest: Sequence[str]) -> bool:
        """Whether crossing may find a candidate for the question ``text``
        among the passages ``nearest`` (False only when every one is known
        to hold no text in another language)."""
        asked_in = floors.tongue(text)
        if not asked_in:
            return False  # crossing weighs nothing for a question of no tongue
        latin = asked_in in ("english", "ascii")
        known = self._known
        for key in nearest:
            found = known.get(key)
            if found is None:
                return True
            if found == _BLANK or (found == _ASCII and latin):
                continue
            if found == _ASCII or floors.other_tongues(asked_in, found[len(_OTHER) :]):
                return True
        return False


#: One per process: digests are the same passages in every home.
TONGUES = PassageTongues()
