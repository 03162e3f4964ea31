"""Vectors travel with the home: the exchange ``hearth sync`` runs after the branch.

Embedding costs CPU for every section (docs/search.md), and vectors are derived state
under ``.git/hearth/``: without this, every machine that syncs a home would
embed all of it again. The vectors are keyed by passage digest and model, so
they are the same on every machine, and travel on their own ref
(``store/vector_ref.py``), never on the branch. One exchange, under the sync's
write lock, after the branch is synced:

1. **fetch** the remote's ``refs/hearth/vectors`` into
   ``refs/hearth/remotes/<remote>/vectors`` (a remote without it: nothing);
2. **import** every pack of the model in use, on either side, that this
   machine has not read: checked (``index/vector_packs.py``: name is content
   hash, header, size, finite unit rows) and added to the local store, whose
   ``add`` skips digests it holds. A refused pack is left out of everything
   this machine writes, so its passages are embedded here as if no machine had;
   packs of another model are carried on unread;
3. **export** what this machine embedded that is not on the ref yet, as new
   packs (one blob per 8,192 rows, float16): only vectors of passages that a
   markdown file of the pushed commit holds, so text that was removed (or
   never committed) sends no vector to other machines;
4. **union**: a new commit whose tree is both sides' packs (less the refused)
   and ours, with both tips as parents, moved onto the local ref;
5. **push** it with an explicit refspec, never forced; when the remote moved
   meanwhile (another machine pushed), fetch and go back to 2, a few times.

Any failure (a remote that refuses the ref, a corrupt object the fetch
rejects) is reported in the sync's result and status and changes nothing
else: the branch is synced already, and vectors missing here are embedded
here. The next sync tries again.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hearth.errors import BadPack
from hearth.store.vector_ref import LOCAL_REF, VectorRef, pack_path, remote_ref

if TYPE_CHECKING:
    from hearth.index.semantic import SemanticRanking

#: Pushes tried when other machines keep pushing vectors meanwhile.
PUSH_ATTEMPTS = 3
_MESSAGE = "hearth: vectors\n\nHearth-Op: sync.vectors\nHearth-Actor: sync\n"


@dataclass
class VectorSyncResult:
    #: Vectors new to this machine's store, from the remote.
    imported: int = 0
    #: Vectors this machine embedded, now on the ref.
    exported: int = 0
    #: Bytes of the packs this sync wrote (what the push sends, before git's zlib).
    exported_bytes: int = 0
    pushed: bool = False
    #: Packs refused (``name: reason``); their passages are embedded here.
    refused: list[str] = field(default_factory=list)
    error: str | None = None

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def model_dir(model: str, dims: int) -> str:
    """The tree folder of one model's packs."""
    return f"{re.sub(r'[^A-Za-z0-9._-]+', '_', model)[:100]}-{dims}"


class VectorExchange:
    def __init__(
        self,
        ref: VectorRef,
        semantic: SemanticRanking,
        clock: Callable[[], dt.datetime],
    ) -> None:
        self.ref = ref
        self.semantic = semantic
        self.clock = clock
        #: The passage digests of each markdown blob sectioned so far.
        self._blob_passages: dict[str, frozenset[str]] = {}

    def exchange(
        self, remote: str, step: Callable[[str], None], commit: str | None = None
    ) -> VectorSyncResult:
        """Fetch, import, export and push the vectors; ``commit``: the branch's
        commit just pushed (None: nothing is exported)."""
        result = VectorSyncResult()
        try:
            # Recorded on the local ref first: a remote out of reach gets them next time.
            if commit is not None:
                self._export(result, commit)
            for _attempt in range(PUSH_ATTEMPTS):
                step(f"fetching vectors from {remote}")
                self.ref.fetch(remote)
                if self._merge_and_push(remote, result):
                    break
            else:
                result.error = f"the remote's vectors kept moving; {PUSH_ATTEMPTS} pushes rejected"
        except Exception as exc:  # vectors never fail a sync: reported, tried again next time
            result.error = f"vectors not synced: {exc}"
        return result

    def _export(self, result: VectorSyncResult, commit: str) -> None:
        """Commit what this machine embedded and the ref lacks, of passages
        ``commit``'s files hold, as new packs."""
        from hearth.index.vector_packs import PACK_ROWS, make_pack  # noqa: PLC0415  (numpy)

        store = self.semantic.store
        store.refresh()
        on_ref = store.on_ref()
        todo = [d for d in store.digests() if d not in on_ref]
        if todo:
            held = self._passages_of(commit)
            todo = [d for d in todo if d in held]
        if not todo:
            return
        local = self.ref.tip(LOCAL_REF)
        packs = self.ref.packs(local)
        folder = model_dir(store.model, store.dims)
        written = []
        for start in range(0, len(todo), PACK_ROWS):
            chunk = todo[start : start + PACK_ROWS]
            name, data = make_pack(store.model, store.dims, chunk, store.rows_of(chunk))
            packs[pack_path(folder, name)] = self.ref.write_blob(data)
            written.append(name)
            result.exported_bytes += len(data)
        self._commit(packs, [local] if local else [], local)
        store.mark_on_ref(todo)
        store.mark_packs_seen(written)
        result.exported += len(todo)

    def _passages_of(self, commit: str) -> set[str]:
        """The passage digests of every markdown file of ``commit`` (each blob
        sectioned once per process: a sync after a write sections one file)."""
        from hearth.index.schema import file_digests  # noqa: PLC0415  (tantivy: syncs only)
        from hearth.reconcile.prepare import MAX_INDEX_BYTES  # noqa: PLC0415  (as above)

        held: set[str] = set()
        known = self._blob_passages
        for path, oid in self.ref.markdown_blobs(commit).items():
            if oid not in known:
                data = self.ref.file_bytes(oid, MAX_INDEX_BYTES)
                known[oid] = frozenset() if data is None else file_digests(path, data)
            held |= known[oid]
        return held

    def _merge_and_push(self, remote: str, result: VectorSyncResult) -> bool:
        """Import the remote's packs, union both sides, push; False when the push
        was rejected (the remote moved meanwhile)."""
        from hearth.index.vector_packs import read_pack  # noqa: PLC0415  (numpy)

        store = self.semantic.store
        model, dims = store.model, store.dims
        ours_dir = model_dir(model, dims) + "/"
        local, theirs = self.ref.tip(LOCAL_REF), self.ref.tip(remote_ref(remote))
        mine, remote_packs = self.ref.packs(local), self.ref.packs(theirs)
        union = {**remote_packs, **mine}
        seen = store.packs_seen()
        for path, oid in list(union.items()):
            name = path.rsplit("/", 1)[1]
            if not path.startswith(ours_dir) or name in seen:
                continue
            data = self.ref.blob(oid)
            try:
                if data is None:
                    raise BadPack(f"pack {name[:12]}: missing, not a blob, or too big")
                pack = read_pack(name, data, model, dims)
            except BadPack as exc:
                del union[path]
                result.refused.append(str(exc))
                continue
            if pack is not None:
                before = len(store)
                store.add(pack.digests, pack.rows)
                result.imported += len(store) - before
                store.mark_on_ref(pack.digests)
            store.mark_packs_seen([name])
        if result.imported:
            self.semantic.vectors_arrived()
        tip = self._union(union, local, theirs, mine, remote_packs)
        if tip is None or tip == theirs:
            return True
        if self.ref.push(remote):
            result.pushed = True
            return True
        return False

    def _union(
        self,
        union: dict[str, str],
        local: str | None,
        theirs: str | None,
        mine: dict[str, str],
        remote_packs: dict[str, str],
    ) -> str | None:
        """Move the local ref to a commit holding ``union`` and descending from
        both tips; its new tip (None: there is none)."""
        if (
            theirs is not None
            and union == remote_packs
            and (local is None or self.ref.is_ancestor(local, theirs))
        ):
            if local != theirs:
                self.ref.move(LOCAL_REF, theirs, local)
            return theirs
        if (
            local is not None
            and union == mine
            and (theirs is None or self.ref.is_ancestor(theirs, local))
        ):
            return local
        if not union:
            return local
        parents = [p for p in (local, theirs) if p is not None]
        if local is not None and theirs is not None:
            if self.ref.is_ancestor(theirs, local):
                parents = [local]
            elif self.ref.is_ancestor(local, theirs):
                parents = [theirs]
        return self._commit(union, parents, local)

    def _commit(self, packs: dict[str, str], parents: list[str], local: str | None) -> str:
        now = self.clock()
        offset = int((now.utcoffset() or dt.timedelta()).total_seconds() // 60)
        tip = self.ref.commit(packs, parents, _MESSAGE, (int(now.timestamp()), offset))
        self.ref.move(LOCAL_REF, tip, local)
        return tip
