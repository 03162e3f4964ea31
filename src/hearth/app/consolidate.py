"""When hearth proposes a consolidation, and which (``domain/consolidation.py``
says what one is; ``app/writes/consolidation.py`` writes and applies it).

hearth looks at a hot file (USER.md, MEMORY.md, ``users/<id>.md``):
- after a merge into it (``after_merge``);
- when a merge into it is refused at its bound (``refused``): the proposals
  then free what the merge needs, and the refusal names them;
- on the scheduled ``consolidate`` job and ``hearth consolidate`` (every hot file).

It proposes a fold for each group of near-duplicate entries, and, when the
file is over its soft budget (or a refused merge needs room), moves of the
largest clusters until the file would be back at ``AIM`` of its bound (or the
merge fits). Entries a pending consolidation already takes are left alone,
and a consolidation the person rejected is not proposed again for
``REMEMBER_DAYS``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection, Mapping, Sequence

from hearth.app.locked_writes import LockedWrites
from hearth.app.results import BatchResult, Expected, WriteResult
from hearth.app.writes.consolidation import ACTOR
from hearth.app.writes.home import HomeWrites
from hearth.domain import consolidation, consolidation_settings, layout, records
from hearth.domain.consolidation import Consolidation
from hearth.domain.paths import normalize
from hearth.domain.text import decode_text
from hearth.domain.validation import bound_of
from hearth.errors import InvalidInput, RuleFailure, ValidationFailed
from hearth.index.likeness import EntryLikeness
from hearth.store.plans import Snapshot

_REJECTED = f"{layout.PROPOSALS_DIR}/archive/rejected"
_SLUG_PREFIX = "consolidate-"
#: How a rejection of a stale consolidation starts (never remembered as the person's no).
STALE = "stale"


@dataclasses.dataclass
class _Known:
    """What hearth already proposed: pending consolidations' entries and how much
    they free, by hot file; titles of pending ones and of those rejected lately."""

    claimed: dict[str, set[str]]
    frees: dict[str, int]
    titles: set[str]
    #: Entries pending ordinary proposals would add, by target (not yet merged).
    adds: dict[str, list[str]] = dataclasses.field(default_factory=dict)


class Consolidator:
    def __init__(self, writes: HomeWrites, likeness: EntryLikeness) -> None:
        self.writes = writes
        self.likeness = likeness

    # -- when -----------------------------------------------------------------

    def scan(
        self,
        paths: Sequence[str] | None = None,
        need: int = 0,
        fresh: Collection[str] | None = None,
    ) -> list[WriteResult]:
        """Propose what the hot files ``paths`` (default: every one) need; each
        proposal is one commit. ``need``: characters a refused merge needs freed
        (``paths`` then names its one target). ``fresh``: the entries a merge just
        added, the only ones compared for folds (the others were at earlier looks);
        None compares every pair."""
        for path in paths or ():
            if bound_of(normalize(path), self.writes.settings.bounds) is None:
                raise InvalidInput(
                    f"{path} has no size bound: consolidation looks at USER.md, MEMORY.md "
                    "and users/<id>.md"
                )
        snap = self._drop_stale(self.writes.store.snapshot())
        known = self._known(snap)
        made = []
        for path in [normalize(p) for p in paths] if paths is not None else self._hot_files(snap):
            data = snap.read(path)
            bound = bound_of(path, self.writes.settings.bounds)
            if data is None or bound is None:
                continue
            text = decode_text(data, path)
            for found in self.propose_for(snap, path, text, bound, known, need, fresh):
                result = self.writes.propose_consolidation(found)
                if result is not None:
                    made.append(result)
        return made

    def proposal_of(self, key: str) -> records.Proposal | None:
        """The pending proposal ``key`` (before its merge), or None."""
        if not records.is_key(key):
            return None
        return self._read(self.writes.store.snapshot(), layout.record_path("proposal", key))

    def after_merge(self, merged: records.Proposal | None) -> list[WriteResult]:
        """After ``merged`` was merged: propose what its target needs now, its new
        entries compared for folds. Never fails the merge, which stands: a failure
        here is only no proposal."""
        if merged is None or bound_of(merged.target, self.writes.settings.bounds) is None:
            return []
        fresh = () if merged.consolidate else merged.entries
        try:
            return self.scan([merged.target], fresh=frozenset(fresh))
        except Exception:  # the merge stands whatever happens here
            return []

    def refused(self, keys: Sequence[str], exc: ValidationFailed) -> ValidationFailed:
        """A merge of ``keys`` (one, or a batch) refused at a target's bound: propose
        moves that make room for what they add to it, and the refusal again,
        saying which to approve first; unchanged where none can be found."""
        by_target: dict[str, list[str]] = {}
        for key in keys:
            proposal = self.proposal_of(key)
            if proposal is not None and not proposal.consolidate:
                by_target.setdefault(proposal.target, []).append(key)
        fixes: dict[str, str] = {}
        for target, mine in by_target.items():
            if not any(f.rule == "size-bound" and f.path == target for f in exc.failures):
                continue
            bound = bound_of(target, self.writes.settings.bounds) or 0
            try:
                previews = [self.writes.preview_merge(key) for key in mine]
                # What each adds to the text they share (a batch applies them in turn).
                after = len(previews[0].before) + sum(
                    len(p.after) - len(p.before) for p in previews
                )
                aim = int(bound * consolidation_settings.AIM)
                made = self.scan([target], need=max(after - aim, after - bound))
            except Exception:  # the refusal is said whatever happens here
                continue
            pending = made or self._pending_for(target)
            if pending:
                named = ", ".join(f"{r.key}" for r in pending)
                fixes[target] = (
                    f"hearth proposed making room in {target}: approve its consolidation "
                    f"proposal{'s' if len(pending) > 1 else ''} {named} (moves entries to their "
                    "own notes, leaving a pointer; no text is dropped), then merge "
                    f"{'this' if len(keys) == 1 else 'these'} again"
                )
        failures = [
            RuleFailure(f.path, f.rule, f.message, fixes[f.path])
            if f.rule == "size-bound" and f.path in fixes
            else f
            for f in exc.failures
        ]
        return ValidationFailed(failures)

    # -- which ----------------------------------------------------------------

    def propose_for(
        self,
        snap: Snapshot,
        path: str,
        text: str,
        bound: int,
        known: _Known,
        need: int = 0,
        fresh: Collection[str] | None = None,
    ) -> list[Consolidation]:
        claimed = known.claimed.get(path, set())
        held = [e for e in dict.fromkeys(consolidation.movable(text)) if e not in claimed]
        subject = self._subject(path)
        folds = self._folds(path, held, subject, fresh)
        found = [f for f in folds if f.title not in known.titles]
        folded = {e for f in found for e in f.entries}
        present = set(consolidation.movable(text))
        coming = sum(len(e) + 3 for e in set(known.adds.get(path, ())) if e not in present)
        size = len(text) + coming - known.frees.get(path, 0) - sum(f.frees for f in found)
        soft = consolidation.soft_budget(bound, self.writes.settings.consolidation.soft_budget)
        wanted = max(need, size - int(bound * consolidation_settings.AIM) if size > soft else 0)
        freed = moves = 0
        rest = [e for e in held if e not in folded]
        if wanted <= 0:
            return found
        groups = consolidation.clusters(rest, self.likeness.terms, subject)
        clustered = {t for g in groups for t in g.texts}
        leftover = tuple(t for t in rest if t not in clustered)
        if leftover:  # no topic left: the oldest entries
            groups.append(consolidation.Cluster("", "earlier notes", leftover))
        for cluster in groups:
            if freed >= wanted or moves >= consolidation.MAX_MOVES:
                break
            move = self._move(snap, path, cluster, wanted - freed)
            if move is None or move.title in known.titles or move.frees <= 0:
                continue
            found.append(move)
            freed += move.frees
            moves += 1
        return found

    def _folds(
        self,
        path: str,
        held: list[str],
        subject: frozenset[str],
        fresh: Collection[str] | None = None,
    ) -> list[Consolidation]:
        """Groups of near-duplicates among ``held`` (only those with a ``fresh``
        entry when given), each a fold; an entry is in one group at most."""
        rows = [i for i, text in enumerate(held) if fresh is None or text in fresh]
        if len(held) < 2 or not rows:
            return []
        scores = self.likeness.scores([held[i] for i in rows], held, subject)
        hits = (scores >= consolidation.FOLD_LIKENESS).nonzero()
        near: dict[int, list[tuple[int, float]]] = {}
        for r, j in zip(hits[0].tolist(), hits[1].tolist(), strict=True):
            i = rows[r]
            if j != i and (fresh is not None or j > i):
                near.setdefault(i, []).append((j, float(scores[r][j])))
        used: set[int] = set()
        out = []
        for i in sorted(near):
            if i in used:
                continue
            others: list[int] = []
            for j, score in near[i]:
                if j in used or len(others) >= consolidation.MAX_FOLD - 1:
                    continue
                # Each member near every other: never two facts joined through a third.
                if self._near(held[i], held[j], score) and all(
                    self._near(held[k], held[j], self._score(held[k], held[j], subject))
                    for k in others
                ):
                    others.append(j)
            if not others:
                continue
            texts = [held[k] for k in sorted([i, *others])]
            leaves = consolidation.fold_text(texts)
            if len(leaves) > 2000 or consolidation.loses_words(leaves, texts):
                continue
            used.update([i, *others])
            topic = " ".join(texts[0].split()[:8])
            out.append(Consolidation(consolidation.FOLD, path, tuple(texts), leaves, "", topic))
        return out

    def _score(self, a: str, b: str, subject: frozenset[str]) -> float:
        return float(self.likeness.scores([a], [b], subject)[0][0])

    def _near(self, a: str, b: str, score: float) -> bool:
        """Whether two entries are to be folded: alike (``FOLD_LIKENESS``), one
        saying all the other says in words or both the same in meaning
        (``SAME_MEANING``), and not differing in a value."""
        if score < consolidation.FOLD_LIKENESS or consolidation.differs_in_a_value(a, b):
            return False
        ta, tb = self.likeness.terms(a), self.likeness.terms(b)
        return ta <= tb or tb <= ta or score >= consolidation.SAME_MEANING

    def _move(
        self, snap: Snapshot, path: str, cluster: consolidation.Cluster, wanted: int
    ) -> Consolidation | None:
        texts = cluster.texts
        if not cluster.term:  # no topic: the oldest entries, as many as needed
            taken: list[str] = []
            for text in texts:
                if sum(len(t) + 3 for t in taken) >= wanted + 120:
                    break
                taken.append(text)
            texts = tuple(taken)
        if len(texts) < 2:
            return None
        person = layout.user_id_of(path)
        destination = self._person_note(snap, path, cluster, texts)
        if destination is not None:
            title = destination.removeprefix("users/").removesuffix(".md").capitalize()
        else:
            title = cluster.word.capitalize()
            if person is not None:
                title = f"{title} ({person.capitalize()})"
            destination = consolidation.topic_note(title)
        leaves = consolidation.pointer(title, destination)
        return Consolidation(consolidation.MOVE, path, texts, leaves, destination, cluster.word)

    def _person_note(
        self, snap: Snapshot, path: str, cluster: consolidation.Cluster, texts: Sequence[str]
    ) -> str | None:
        """``users/<id>.md`` when the cluster is about a person the home has a note
        for (and it has room for them under its soft budget); else None."""
        if not cluster.term or layout.user_id_of(path) is not None:
            return None
        for name in snap.names(layout.USERS_DIR):
            note = f"{layout.USERS_DIR}/{name}"
            user = layout.user_id_of(note)
            if user is None or cluster.term not in self.likeness.terms(user):
                continue
            data = snap.read(note) or b""
            bound = bound_of(note, self.writes.settings.bounds) or 0
            soft = consolidation.soft_budget(bound, self.writes.settings.consolidation.soft_budget)
            if len(data) + sum(len(t) + 3 for t in texts) <= soft:
                return note
        return None

    def _subject(self, path: str) -> frozenset[str]:
        person = layout.user_id_of(path)
        return self.likeness.terms(person) if person else frozenset()

    def _hot_files(self, snap: Snapshot) -> list[str]:
        users = [
            f"{layout.USERS_DIR}/{n}"
            for n in sorted(snap.names(layout.USERS_DIR))
            if layout.user_id_of(f"{layout.USERS_DIR}/{n}")
        ]
        return ["USER.md", "MEMORY.md", *users]

    def _known(self, snap: Snapshot) -> _Known:
        known = _Known({}, {}, set())
        for name in snap.names(layout.PROPOSALS_DIR):
            proposal = self._read(snap, f"{layout.PROPOSALS_DIR}/{name}")
            found = consolidation.of_proposal(proposal) if proposal else None
            if proposal is not None and found is None:
                known.adds.setdefault(proposal.target, []).extend(proposal.entries)
            if found is None or proposal is None:
                continue
            known.claimed.setdefault(found.target, set()).update(found.entries)
            known.frees[found.target] = known.frees.get(found.target, 0) + found.frees
            known.titles.add(proposal.title)
        since = self.writes.clock().astimezone(dt.UTC) - dt.timedelta(
            days=self.writes.settings.consolidation.remember_days
        )
        for name in snap.names(_REJECTED):
            if not name.startswith(_SLUG_PREFIX):
                continue
            proposal = self._read(snap, f"{_REJECTED}/{name}")
            if proposal is None or not proposal.consolidate or proposal.reason.startswith(STALE):
                continue
            try:
                when = dt.datetime.fromisoformat(proposal.updated.replace("Z", "+00:00"))
            except ValueError:
                continue
            if when >= since:
                known.titles.add(proposal.title)
        return known

    def _drop_stale(self, snap: Snapshot) -> Snapshot:
        """Reject (as ``stale``) each pending consolidation whose hot file no longer
        holds its entries as proposed (a person edited them): it cannot be
        approved, and what the file needs now is proposed afresh. The snapshot
        after."""
        dropped = False
        for name in snap.names(layout.PROPOSALS_DIR):
            proposal = self._read(snap, f"{layout.PROPOSALS_DIR}/{name}")
            found = consolidation.of_proposal(proposal) if proposal else None
            if found is None:
                continue
            data = snap.read(found.target)
            text = decode_text(data, found.target) if data is not None else ""
            if consolidation.stale_entries(found, text):
                reason = f"{STALE}: {found.target} changed since hearth proposed it"
                self.writes.reject(name.removesuffix(".md"), reason, ACTOR)
                dropped = True
        return self.writes.store.snapshot() if dropped else snap

    def _pending_for(self, target: str) -> list[WriteResult]:
        snap = self.writes.store.snapshot()
        found = []
        for name in snap.names(layout.PROPOSALS_DIR):
            path = f"{layout.PROPOSALS_DIR}/{name}"
            proposal = self._read(snap, path)
            if proposal is not None and proposal.consolidate and proposal.target == target:
                found.append(WriteResult(None, path, False, name.removesuffix(".md")))
        return found

    @staticmethod
    def _read(snap: Snapshot, path: str) -> records.Proposal | None:
        if not path.endswith(".md"):
            return None
        data = snap.read(path)
        if data is None:
            return None
        try:
            record = records.parse("proposal", decode_text(data, path))
        except InvalidInput:
            return None
        return record if isinstance(record, records.Proposal) else None


class ConsolidatingMerges(LockedWrites):
    """The use cases' merges (``app/usecases.py``'s ``Hearth``): ``LockedWrites``'
    merges, each followed by what consolidation does after a merge or a refusal,
    and the look itself."""

    consolidator: Consolidator

    def merge(
        self,
        key: str,
        actor: str,
        *,
        expected: Expected | None = None,
        leave_out: Sequence[str] = (),
        replace: Mapping[str, str] | None = None,
        version: str | None = None,
        fold: Mapping[str, str] | None = None,
    ) -> WriteResult:
        """Merge a proposal (``HomeWrites.merge``). A merge refused at its target's
        bound makes hearth propose the consolidation that makes room (the refusal
        names it); a merge that leaves its target over the soft budget, or holding
        near-duplicates, makes hearth propose one (``app/consolidate.py``)."""
        with self.owner:
            proposal = self.consolidator.proposal_of(key)
            try:
                result = super().merge(
                    key,
                    actor,
                    expected=expected,
                    leave_out=leave_out,
                    replace=replace,
                    version=version,
                    fold=fold,
                )
            except ValidationFailed as exc:
                raise self.consolidator.refused([key], exc) from None
            self.consolidator.after_merge(proposal)
            return result

    def merge_many(
        self,
        keys: Sequence[str],
        actor: str,
        *,
        expected: Expected | None = None,
        leave_out: Mapping[str, Sequence[str]] | None = None,
    ) -> BatchResult:
        """Merge proposals in one commit (``HomeWrites.merge_many``); then, as
        after one merge, propose what their targets need now."""
        with self.owner:
            merged = [self.consolidator.proposal_of(k) for k in keys]
            try:
                result = super().merge_many(keys, actor, expected=expected, leave_out=leave_out)
            except ValidationFailed as exc:
                raise self.consolidator.refused(keys, exc) from None
            for proposal in merged:
                self.consolidator.after_merge(proposal)
            return result

    def consolidate(self, paths: Sequence[str] | None = None) -> list[WriteResult]:
        """Propose what the hot files need (every one, or ``paths``): the scheduled
        ``consolidate`` job and ``hearth consolidate``. Each proposal is one commit."""
        with self.owner:
            return self.consolidator.scan(paths)
