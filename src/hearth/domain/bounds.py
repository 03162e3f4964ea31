"""The size bounds of hearth.toml's ``[bounds]``, apart from the settings so that
the validation rules (the pre-commit hook's) load no settings or TOML for a
commit of ordinary notes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bounds:
    """Size bounds, in characters, from hearth.toml's ``[bounds]``."""

    user_md: int = 8_000
    memory_md: int = 20_000
    #: Person notes ``users/<id>.md``; hearth.toml's default is ``user_md``.
    user_note: int = 8_000
