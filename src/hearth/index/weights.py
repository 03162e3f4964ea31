"""Every weight of the ranking, declared once (the pipeline is ``ranking.py``).

A search is candidates -> fusion -> bonuses, and each weight belongs to one
of those stages; this is the only place any of them is written. The stages
take a ``Weights`` (``WEIGHTS`` unless told), so the test of the bonuses
runs one fixture with each weight as it is and set to nothing
(``tests/index/test_bonuses.py``; the fusion weights on rankings given to
``fuse``).

Two score spaces, on purpose. The keyword candidates are BM25 scores, and
the lifts of the keyword side add to them inside Tantivy's query (a lift
must decide *which* sections are candidates, not only their order). Fusion
keeps ranks, not scores: BM25 is unbounded and a cosine is not, so what the
keyword side lifted survives it only as a better rank. The named day is the
one lift that is worth more than that rank: it is declared here with both
its expressions, ``day`` in BM25 space and ``day_share`` in fused space
(questions naming a date, hybrid any-hit@5: 0.71 with the day's rank alone,
0.76 with the share too). Archived records and the home template's text are
a factor, the same in both spaces. The bonuses after fusion (neighbours,
names) are shares of a score of the ranking they are applied to, so they
mean the same whichever space that is.

docs/search.md has the measurement behind each value (LoCoMo development
split, any-hit@5).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Weights:
    # -- the keyword candidates: added to BM25 inside the query -----------------
    #: A query word in a section's heading or title, times the word's inverse
    #: document frequency (a rare word lifts, a speaker's name in every heading
    #: barely does).
    heading: float = 0.5
    title: float = 0.5
    #: Two query words side by side as in the query (a phrase boost).
    pair: float = 0.3
    #: ...unless both words are in more than this share of the sections, and
    #: in more than ``pair_cheap`` sections: a phrase is checked in every
    #: section holding both words, which made it most of a search's time on a
    #: large home, for a pair that says little. Below ``pair_cheap`` the check
    #: costs little, and the ranking does not change with the home's size.
    pair_common: float = 0.25
    pair_cheap: int = 1000
    #: ...or unless one of them is in more than this share of the sections (and
    #: in more than ``pair_cheap``): a word like "the", whose positions in
    #: every section holding the other word are read.
    pair_everywhere: float = 0.7
    #: A whole run of the query's CJK characters (a phrase boost).
    run: float = 1.0
    #: A section of a day the query names (a month it names: half). 0.61
    #: without, 0.74 with +5 on the date questions; +10 let the date outweigh
    #: the words.
    day: float = 5.0

    # -- both sides and fusion: factors ------------------------------------------
    #: Archived records still match, at this fraction of their score (or share).
    archive: float = 0.5
    #: Sections still holding the home template's text (``template.py``).
    template: float = 0.25

    # -- fusion (hybrid): reciprocal rank ------------------------------------------
    #: A section scores ``sum(side / (rrf_k + rank))`` over the sides it is on.
    #: The usual k = 60 with equal sides gave 0.609, under keyword ranking alone
    #: (0.622); k = 10 with keywords at 1.5, 0.663; k = 7 at 1.25, 0.671; with
    #: the neighbours and names, k = 5 at 1.25, 0.779 against 0.775 at 7.
    rrf_k: int = 5
    keyword_side: float = 1.25
    semantic_side: float = 1.0
    #: Added to the fused score of a section of a day (or month) the query
    #: names: the ``day`` lift, which fusion by rank would otherwise dilute.
    day_share: float = 0.05

    # -- after fusion: shares of the ranking's scores (``neighbour_bonuses.py``) ---------------
    #: A daily entry after one of the first hits gains this share of its score...
    after: float = 0.5
    #: ...and the entry before it this share.
    before: float = 0.2
    #: A hit whose heading holds a name the question says gains this share of
    #: the best score.
    name: float = 0.5


#: The weights hearth ranks with.
WEIGHTS = Weights()
