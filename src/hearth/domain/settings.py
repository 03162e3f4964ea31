"""hearth.toml: the committed settings of a home (parsed here, read by wiring)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from typing import Any

from hearth.domain.validation import Bounds
from hearth.errors import InvalidInput

DEFAULT_SETTINGS_TOML = """\
# hearth settings for this home. Committed, so every machine shares them.

[bounds]
# Characters. USER.md and MEMORY.md are loaded every turn: keep them small.
user_md = 8000
memory_md = 20000
# Largest daily note entry and largest file put through hearth.
daily_text = 20000
file_bytes = 1048576
"""


@dataclass(frozen=True)
class Settings:
    bounds: Bounds = field(default_factory=Bounds)
    daily_text: int = 20_000
    file_bytes: int = 1_048_576


def _positive_int(table: dict[str, Any], name: str, default: int) -> int:
    value = table.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InvalidInput(f"hearth.toml: [bounds] {name} must be a positive integer")
    return value


def parse_settings(text: str) -> Settings:
    """Parse hearth.toml; missing keys take their defaults, bad ones are refused."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"hearth.toml is not valid TOML: {exc}") from exc
    bounds = data.get("bounds", {})
    if not isinstance(bounds, dict):
        raise InvalidInput("hearth.toml: [bounds] must be a table")
    defaults = Settings()
    return Settings(
        bounds=Bounds(
            user_md=_positive_int(bounds, "user_md", defaults.bounds.user_md),
            memory_md=_positive_int(bounds, "memory_md", defaults.bounds.memory_md),
        ),
        daily_text=_positive_int(bounds, "daily_text", defaults.daily_text),
        file_bytes=_positive_int(bounds, "file_bytes", defaults.file_bytes),
    )
