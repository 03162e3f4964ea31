"""A repository's own git config and folders, for installing hooks and drivers.

The config is local to the clone (git never syncs it), which is why ``init``
and ``hearth hooks install`` write what hearth needs on every machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pygit2


def git_dir(root: Path) -> Path:
    """The repository's git folder (``.git``, or where a ``.git`` file points)."""
    return Path(pygit2.Repository(str(root)).path)


def config_value(root: Path, key: str) -> str | None:
    """``key`` from the repository's config (local, global or system), or None."""
    try:
        return str(pygit2.Repository(str(root)).config[key])
    except KeyError:
        return None


def set_config(root: Path, values: Mapping[str, str]) -> None:
    """Write ``values`` into the repository's own config, each only when it differs."""
    config = pygit2.Repository(str(root)).config
    for key, value in values.items():
        try:
            current = config[key]
        except KeyError:
            current = None
        if current != value:
            config[key] = value
