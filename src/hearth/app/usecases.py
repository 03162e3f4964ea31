"""The use cases of one home, each one method that takes the home's lock itself.

Every edge (the HTTP routes, MCP tools, the CLI, the review page, the hooks)
calls these methods and nothing below them: parse, one call, render. The lock
is one re-entrant lock per home, shared with the reconcile worker's passes and
the scheduled jobs, so pygit2's repository object and Tantivy's single writer
only ever have one user at a time; callers never take it.

``Hearth`` serves a home nothing else keeps fresh (a CLI command, a hook): a
read that depends on the index or ACTIVE.md runs a reconcile pass first.
``ServedHearth`` (app/served/service.py) is the same use cases in a long-running
process whose worker and watcher keep them fresh; the composition root
(``wiring``) decides which one a caller gets.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from hearth.app.consolidate import ConsolidatingMerges, Consolidator
from hearth.app.reads import queries
from hearth.app.reads.review_board import ReviewBoard, ReviewMatcher
from hearth.app.reflection import ReflectionRun, Reflector
from hearth.app.results import (
    ActiveView,
    CheckResult,
    Diff,
    HomeStatus,
    MergePreview,
    Reindexed,
    Review,
    ServedStatus,
)
from hearth.app.status.report import home_status
from hearth.app.sync.branch import Syncer, SyncResult
from hearth.app.writes.home import HomeWrites
from hearth.domain import context, layout
from hearth.domain.context import Passage
from hearth.domain.entries import Entry
from hearth.domain.entry_merge import ConflictRecord
from hearth.domain.lookalike import looks_like
from hearth.domain.text import decode_text
from hearth.domain.validation import lookalike_names
from hearth.errors import HearthError, InvalidInput, PathRefused, RuleFailure
from hearth.index.hits import Hit
from hearth.index.ranking import SearchResult
from hearth.index.semantic import Progress
from hearth.reconcile import freshness
from hearth.reconcile.reconciler import Reconciler
from hearth.reconcile.reports import PassReport
from hearth.store import agent_changes
from hearth.store.active_records import RecordView
from hearth.store.agent_changes import Listing
from hearth.store.history import CommitInfo
from hearth.store.private import exposure

if TYPE_CHECKING:
    from hearth.app.reads.queries import FileView
    from hearth.reconcile.prepare import EarlyWorkers

# Start-up: a command that writes builds these use cases but reads nothing, so
# what only reads need (``queries`` and what it brings, the context bundle) is
# imported by the methods that read (see docs/cli.md, "Start-up").

#: Search hits the context bundle's recall section starts from: those above the
#: floor hand their answering lines (``domain/excerpt.py``) while the recall's
#: budget has room, so the budget, not this depth, is what bounds the text.
RECALL_HITS = 20


#: The persona files in the order the review page lists them (the core first).
PERSONA_ORDER = (
    "SOUL.md",
    "IDENTITY.md",
    "USER.md",
    "MEMORY.md",
    "AGENTS.md",
    "TOOLS.md",
    "HEARTBEAT.md",
    "BOOTSTRAP.md",
)


class Hearth(ConsolidatingMerges):
    #: Whether a search first picks up what other processes did to the index
    #: (a served home's own passes keep it current, so it reads what it has).
    search_reopens = True

    def __init__(
        self,
        writes: HomeWrites,
        reconciler: Reconciler,
        syncer: Syncer,
        reflector: Reflector,
        owner: threading.RLock | None = None,
    ) -> None:
        self.writes = writes
        self.reconciler = reconciler
        self.syncer = syncer
        self.reflector = reflector
        self.owner = owner or threading.RLock()
        #: What finds a proposal's entries already held or proposed (reflection's own).
        self.matcher: ReviewMatcher = reflector.matcher
        #: What proposes consolidations of the hot files (``app/consolidate.py``).
        self.consolidator = Consolidator(writes, self.matcher.likeness_of)

    @contextmanager
    def owned(self) -> Iterator[None]:
        with self.owner:
            yield

    def _freshen(self) -> None:
        """Bring the index and ACTIVE.md up to date before a read that shows them."""
        with self.owner:
            self.reconciler.reconcile()

    # -- reading -----------------------------------------------------------------

    def get_file(self, path: str, rev: str | None = None) -> FileView:
        with self.owner:
            return queries.get_file(self.writes.parts, path, rev)

    def history(self, path: str, limit: int = 20) -> list[CommitInfo]:
        with self.owner:
            return queries.history(self.writes.parts, path, limit)

    def diff(self, path: str, rev_from: str | None, rev_to: str | None) -> Diff:
        with self.owner:
            return queries.diff(self.writes.parts, path, rev_from, rev_to)

    def commit_diff(self, path: str, rev: str) -> Diff:
        with self.owner:
            return queries.commit_diff(self.writes.parts, path, rev)

    def head_oids(self, paths: list[str]) -> dict[str, str | None]:
        with self.owner:
            return queries.head_oids(self.writes.parts, paths)

    def merge_preview(
        self, key: str, leave_out: Sequence[str] = (), fold: Mapping[str, str] | None = None
    ) -> MergePreview:
        with self.owner:
            return self.writes.preview_merge(key, leave_out, fold)

    def diff_home(self, rev_from: str | None, rev_to: str | None) -> Diff:
        """Every file that differs between two revisions (``to`` None: the work tree)."""
        with self.owner:
            return queries.diff_home(self.writes.parts, rev_from, rev_to)

    def records(self, kind: layout.RecordKind) -> list[RecordView]:
        return queries.list_records(self.writes.parts, kind)

    def review(self) -> Review:
        return Review(self.records("proposal"), self.records("loop"))

    def review_board(self, views: list[RecordView] | None = None) -> ReviewBoard:
        """Each pending proposal's entries matched against what the home holds and
        the other proposals, near-duplicate proposals grouped (``app/reads/review_board.py``);
        ``views``: the pending proposals already listed."""
        if views is None:
            views = self.records("proposal")
        texts = {view.path: view.text for view in views}  # as listed: no second read
        with self.owner:  # pygit2's repository: one user at a time
            snap = self.writes.store.snapshot()
            files = {}
            for path in self.matcher.files_read(views):
                data = snap.read(path)
                files[path] = decode_text(data, path) if data is not None else None
        # Scoring reads nothing and may embed entries: outside the lock. The topic
        # notes are read (under it) only when a merge is over its bound.
        return self.matcher.board(files, views, texts, self._topic_texts)

    def _topic_texts(self) -> dict[str, str]:
        with self.owner:
            snap = self.writes.store.snapshot()
            found = {}
            for name in snap.names(layout.TOPICS_DIR):
                path = f"{layout.TOPICS_DIR}/{name}"
                data = snap.read(path) if name.endswith(".md") else None
                if data is not None:
                    found[path] = data.decode("utf-8", "replace")
            return found

    def persona_files(self) -> list[str]:
        """The files that say who the assistant is and for whom: the hot files,
        then each person's note ``users/<id>.md`` that HEAD holds."""
        with self.owner:
            snap = self.writes.store.snapshot()
            people = [
                f"{layout.USERS_DIR}/{name}"
                for name in snap.names(layout.USERS_DIR)
                if name.endswith(".md")
            ]
        return [*PERSONA_ORDER, *people]

    def entry_list(self, path: str) -> list[Entry]:
        with self.owner:
            return self.writes.entry_list(path)

    def entry_conflicts(self) -> list[ConflictRecord]:
        with self.owner:
            return self.writes.entry_conflicts()

    def topics(self) -> list[dict[str, str]]:
        with self.owner:
            return self.writes.topics()

    def check(self, actor: str, *, fix_keys: bool = False) -> CheckResult:
        """The validation rules over the whole home; ``fix_keys`` first renames
        records still named with hearth's old keys (one commit)."""
        with self.owner:
            fixed = self.writes.fix_keys(actor) if fix_keys else None
            exposed = exposure(self.writes.root)
            warnings = [RuleFailure(".", "readable-by-others", *exposed)] if exposed else []
            for folder, names in self.writes.store.snapshot().folders():
                warnings += lookalike_names(folder, names)
            home = self.writes.parts
            return CheckResult(
                queries.check(home), queries.legacy_key_records(home), fixed, warnings
            )

    def search(
        self,
        text: str,
        kind: str | None = None,
        path: str | None = None,
        limit: int = 10,
        *,
        everything: bool = False,
    ) -> SearchResult:
        """The hits above the relevance floor, and how many it left out; with
        ``everything``, every hit (browsing)."""
        return self._search(text, kind, path, limit, freshen=True, everything=everything)

    def _search(
        self,
        text: str,
        kind: str | None,
        path: str | None,
        limit: int,
        *,
        freshen: bool,
        everything: bool = False,
        recall: bool = False,
    ) -> SearchResult:
        if freshen and self.search_reopens:
            self._freshen()
        index = self.reconciler.index
        if index.current is None:
            self.reconciler.catch_up()
        return index.search(text, kind, path, limit, everything=everything, recall=recall)

    def status(self) -> HomeStatus | ServedStatus:
        self._freshen()
        return self._status_now()

    def _status_now(self) -> HomeStatus:
        with self.owner:
            index = freshness.status(self.reconciler)
            return home_status(self.writes.parts, index, self.syncer, self.reflector.log)

    def active(self) -> ActiveView:
        self._freshen()
        with self.owner:
            return queries.active_view(self.writes.parts, freshness.status(self.reconciler))

    def context(
        self, session: context.Session, query: str | None = None, user: str | None = None
    ) -> context.ContextBundle:
        """The turn's bundle: the hot files (with ``users/<user>.md`` after USER.md),
        and with ``query`` the passages search judges evidence for it (above the
        relevance floor: none when nothing is), all in one budget."""
        user_note = None
        if user is not None:
            user_note = layout.user_path(user)
            if user_note is None:
                raise InvalidInput(
                    f"{user!r} is not a person id (letters, digits, '.', '_' and '-')"
                )
        files = context.hot_files(session, user_note)
        fresh = layout.ACTIVE_PATH in files
        if fresh:
            self._freshen()
        passages: list[Passage] = []
        if query is not None and query.strip():
            # One pass serves both: ACTIVE.md's and the search's.
            hits = self._search(query, None, None, RECALL_HITS, freshen=not fresh, recall=True).hits
            with self.owner:
                passages = [p for p in (self._passage(h) for h in hits) if p is not None]
                passages = self._answering(query, passages)
        texts: list[tuple[str, str | None]] = []
        with self.owner:
            for path in files:
                try:
                    data = self.writes.files.read(path)
                except PathRefused:
                    # A symlink (never followed; status names it, parked): the
                    # rest of the persona is still handed.
                    data = None
                texts.append((path, None if data is None else decode_text(data, path)))
        bounds = self.writes.settings.context
        return context.bundle(
            session, texts, bounds.file_chars, bounds.total_chars, query, passages
        )

    def _answering(self, query: str, passages: list[Passage]) -> list[Passage]:
        """The recall's lines that answer ``query``: of each passage, and of the
        notes of each person it names that no passage came from: ``users/<id>.md``
        and the topic notes its pointer lines name (``context.answering_passages``,
        ``context.pointed``)."""
        from hearth.index.analysis import terms_of  # noqa: PLC0415 (reads only)
        from hearth.index.floor import inner_names  # noqa: PLC0415

        names = inner_names(query)
        found = {p.path for p in passages}
        named: list[Passage] = []
        queue = [p for p in dict.fromkeys(layout.user_path(n) for n in names) if p is not None]
        for path in queue:
            try:
                data = None if ".." in path.split("/") else self.writes.files.read(path)
            except HearthError:
                data = None  # a pointer to what is not a note of the home
            if data is None:
                continue
            text = decode_text(data, path)
            if path not in found:
                named.append(Passage(path, 1, text.count("\n") + 1, "", text))
            if layout.user_id_of(path) is not None:
                queue += [p for p in context.pointed(text) if p not in queue]
        name_terms = terms_of(" ".join(names))
        return context.answering_passages(
            passages, prompt_terms(query), terms_of, named, name_terms
        )

    def _passage(self, hit: Hit) -> Passage | None:
        """A hit's lines from the work tree (None when the file changed under it, or
        when it is a look-alike of a persona file, which recall never passes off as
        the persona: ``lookalike``); a section of a heading alone with what stands
        under it (``context.with_what_is_under``), never the heading alone."""
        if "/" not in hit.path and looks_like(hit.path, layout.HOT_FILES) is not None:
            return None
        try:
            data = self.writes.files.read(hit.path)
        except HearthError:
            return None
        if data is None:
            return None
        # A record's title, status and reason are its front matter: never cut away.
        start = 1 if layout.record_location(hit.path) is not None else hit.start_line
        every = decode_text(data, hit.path).split("\n")
        end = context.with_what_is_under(every, start, hit.end_line)
        if end is None:
            return None  # headings alone: nothing under them says anything
        lines = every[start - 1 : end]
        return Passage(hit.path, start, end, hit.heading, "\n".join(lines).strip())

    # -- keeping derived state and remotes in step ----------------------------------

    def reconcile(
        self, full: bool = False, reading: Progress | None = None, early: EarlyWorkers | None = None
    ) -> PassReport:
        """A pass (or a rebuild aside); ``reading(done, total)`` as files are read;
        ``early``: a rebuild's reader processes, started before (``reindex --full``)."""
        with self.owner:
            if full:
                return self.reconciler.rebuild(reading, early)
            return self.reconciler.reconcile(progress=reading)

    def reindex(
        self,
        full: bool = False,
        progress: Progress | None = None,
        reading: Progress | None = None,
    ) -> Reindexed:
        """A pass (or a rebuild aside), then the vectors semantic ranking lacks
        (the slow part, outside the lock, with ``progress`` called as it goes)."""
        report = self.reconcile(full, reading)
        embedded = self.reconciler.index.fill_vectors(progress)
        return Reindexed(report, embedded, self.vectors_to_embed())

    def vectors_to_embed(self) -> int | None:
        """Sections of the index without a vector now (None: semantic ranking off)."""
        coverage = self.reconciler.index.vector_coverage()
        return None if coverage is None else max(0, coverage.sections - coverage.embedded)

    def sync(
        self, step: Callable[[str], None] | None = None, reading: Progress | None = None
    ) -> SyncResult:
        """Sync with the upstream, then reconcile what came in before answering
        (``step`` told of the sync's steps, ``reading(done, total)`` as files are read)."""
        with self.owner:
            result = self.syncer.sync(step)
            if step is not None:
                step("indexing what changed")
            self.reconciler.reconcile(progress=reading)
        return result

    def reflect(self) -> ReflectionRun:
        with self.owner:
            return self.reflector.run()

    def reflection_waiting(self) -> tuple[str, ...]:
        """The [reflection] command when this machine has not approved it, else ()."""
        return self.reflector.waiting()

    def approve_reflection(self) -> tuple[str, ...]:
        """Approve the [reflection] command here; the command approved. ACTIVE.md
        is refreshed, so its Needs attention stops asking."""
        with self.owner:
            command = self.reflector.approve()
        self._freshen()
        return command

    # -- writing: every call is one commit of ``HomeWrites`` (``locked_writes.py``) --

    def agent_changes(self, since: str | None = None) -> Listing:
        """Agents' changes to the persona and memory files since the person last
        marked them as seen (``since`` None: since that mark), up to HEAD now;
        ``upto`` is the commit to mark as seen with them (a change an agent
        makes after this listing stays unseen)."""
        with self.owner:
            mark = since or agent_changes.seen(self.writes.store.state_dir)
            return agent_changes.agent_changes(self.writes.root, mark)

    def mark_agent_changes_seen(self, upto: str) -> None:
        """The person has seen every agent change up to ``upto``, the commit
        their page read before listing them: one an agent made after the page
        was shown stays listed."""
        with self.owner:
            if not agent_changes.in_history(self.writes.root, upto):
                raise InvalidInput(
                    f"{upto[:40]!r} is no commit of this branch's history; reload the page"
                )
            agent_changes.mark_seen(self.writes.store.state_dir, upto)


def prompt_terms(query: str) -> frozenset[str]:
    """The search analyzer's terms of a prompt's content words: what a line of a
    recalled section must hold to be handed as an answer (``domain/excerpt.py``)."""
    from hearth.index.analysis import terms_of  # noqa: PLC0415 (reads only)
    from hearth.index.floor import content_words  # noqa: PLC0415

    return frozenset(terms_of(" ".join(content_words(query.split()))))
