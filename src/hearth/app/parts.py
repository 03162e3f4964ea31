"""What every use case of a home works with: its root, files, git store,
settings and clock. The composition root (``wiring``) builds them once per
home and hands them whole to the write class (``writes.home.HomeWrites``,
which keeps them as ``parts``), to the committers of runtimes' own writes and
to the status snapshot; the reads and the status ask for no more than this."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hearth.domain.clock import Clock
from hearth.domain.settings import Settings
from hearth.store.git import GitStore
from hearth.store.rooted import RootedFiles


@dataclass(frozen=True)
class HomeParts:
    """A home's parts, read-only: what a read needs of it."""

    root: Path
    files: RootedFiles
    store: GitStore
    settings: Settings
    clock: Clock
