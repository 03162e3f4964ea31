"""The manifest session: what a reconcile pass and a write's index update share.

A home's index is described by its manifest (``manifest.py``): what the last
pass applied, file by file. Two paths change it, both under the reconcile
lock: the reconciler's passes (``reconciler.py``) and a served write's index
update beside its commit (``ahead.py``). This object is the one owner of
that shared state, and each of them goes through its methods:

- the lock (``locked``), taken only while the home is there;
- the manifest in memory (``manifest``) and the signature of the file it was
  last loaded from or saved to, so a save by another process is noticed
  (``unchanged``) and answered by a reload;
- what the passes and writes looked at since the status snapshot last asked
  (``touch``, ``take_touched``): their paths, or None once one of them (or
  another process) looked at everything.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from contextlib import AbstractContextManager
from pathlib import Path

from hearth.domain.clock import Clock
from hearth.reconcile import manifest
from hearth.reconcile.manifest import Manifest
from hearth.store.lock import write_lock
from hearth.store.presence import HomePresence


class ManifestSession:
    """The manifest of the index in ``folder``, its lock file and what was touched."""

    def __init__(
        self,
        folder: Path,
        lock_file: Path,
        presence: HomePresence,
        clock: Clock,
        lock_timeout: float,
    ) -> None:
        self.folder = folder
        self.presence = presence
        self.lock_timeout = lock_timeout
        #: What the last pass (or write) applied, as this process knows it.
        self.manifest = Manifest()
        self._lock_file = lock_file
        self._clock = clock
        self._signature: tuple[object, ...] | None = None
        self._touched: set[str] | None = None

    def locked(self) -> AbstractContextManager[None]:
        """The reconcile lock, taken only while the home is there: a pass in a home
        deleted under a long-running process raises ``HomeGone`` instead of making
        its state folder again."""
        self.presence.check()
        return write_lock(self._lock_file, self.lock_timeout)

    def locked_within(self, timeout: float) -> AbstractContextManager[None]:
        """The reconcile lock, waiting at most ``timeout`` (a write's index update,
        which never waits long with the store's write lock held: the pass after
        the commit takes over)."""
        return write_lock(self._lock_file, timeout)

    # -- the manifest and its file ---------------------------------------------

    def unchanged(self) -> bool:
        """Whether nobody saved the manifest since this session last loaded or saved it."""
        return manifest.signature(self.folder) == self._signature

    def reload_pass(self) -> None:
        """Read the pass record again (our own commits keep the file map current)."""
        manifest.load_pass(self.folder, self.manifest)

    def adopt(self, loaded: Manifest) -> None:
        """``loaded`` is the manifest now (read from the folder, or saved beside a
        rebuilt index just swapped in)."""
        self.manifest = loaded
        self._signature = manifest.signature(self.folder)

    def save(self, changed: Iterable[str] | None = None) -> None:
        """Save the manifest (``manifest.save``: ``changed`` paths as one journal record)."""
        manifest.save(self.folder, self.manifest, changed)
        self._signature = manifest.signature(self.folder)

    def journal(self, changed: Iterable[str]) -> None:
        """Append the entries of ``changed`` paths, and nothing else (``manifest.journal``)."""
        manifest.journal(self.folder, self.manifest, changed)
        self._signature = manifest.signature(self.folder)

    def stamp(self) -> str:
        """Now, as the manifest's ``last_reconcile`` records it."""
        return self._clock().astimezone(dt.UTC).isoformat(timespec="seconds")

    # -- what was touched --------------------------------------------------------

    def touch(self, scope: Iterable[str] | None) -> None:
        """A pass or write looked at ``scope`` (None: at everything, or unknown)."""
        if scope is None:
            self._touched = None
        elif self._touched is not None:
            self._touched.update(scope)

    def take_touched(self) -> set[str] | None:
        """What was touched since the last call (a folder as ``name/``), and start
        counting again; None when everything was, or before the first call."""
        touched, self._touched = self._touched, set()
        return touched

    def touched_count(self) -> int | None:
        """How many paths ``take_touched`` would give now (None: everything); a hint,
        read without the lock."""
        touched = self._touched
        return None if touched is None else len(touched)
