"""hearth.toml's ``[consolidation]``: when hearth proposes consolidating a hot
file (``domain/consolidation.py`` says what a consolidation is). Apart from
it so that reading the settings loads neither the records nor YAML (the lean
``hearth status`` reads them)."""

from __future__ import annotations

from dataclasses import dataclass

from hearth.errors import InvalidInput

#: The share of a file's bound at which hearth proposes moves (the soft budget).
SOFT_BUDGET = 0.8
#: The share of the bound moves aim to bring the file back to.
AIM = 0.6
#: Days a rejected consolidation is not proposed again.
REMEMBER_DAYS = 30
#: Minutes between the scheduled ``consolidate`` job's runs.
EVERY_MINUTES = 60


@dataclass(frozen=True)
class ConsolidationSettings:
    """hearth.toml's ``[consolidation]``."""

    soft_budget: float = SOFT_BUDGET
    every_minutes: int = EVERY_MINUTES
    remember_days: int = REMEMBER_DAYS


def parse_consolidation_settings(table: dict[str, object]) -> ConsolidationSettings:
    share = table.get("soft_budget", SOFT_BUDGET)
    if isinstance(share, bool) or not isinstance(share, int | float) or not AIM < share < 1:
        raise InvalidInput(
            f"hearth.toml: [consolidation] soft_budget must be a share of each bound above "
            f"{AIM} and below 1 (default {SOFT_BUDGET})"
        )
    counts = {}
    for name, default in (("every_minutes", EVERY_MINUTES), ("remember_days", REMEMBER_DAYS)):
        value = table.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise InvalidInput(f"hearth.toml: [consolidation] {name} must be a positive integer")
        counts[name] = value
    return ConsolidationSettings(float(share), counts["every_minutes"], counts["remember_days"])
