"""What every use case of a home works with: its root, files, git store,
settings and clock. The write class (``writes.home.HomeWrites``) has them;
the reads and the status ask for no more than this."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from hearth.domain.clock import Clock
from hearth.domain.settings import Settings
from hearth.store.git import GitStore
from hearth.store.rooted import RootedFiles


class HomeParts(Protocol):
    """A home's parts, read-only: what a read needs of it."""

    @property
    def root(self) -> Path: ...
    @property
    def files(self) -> RootedFiles: ...
    @property
    def store(self) -> GitStore: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def clock(self) -> Clock: ...
