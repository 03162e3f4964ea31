"""What it costs to turn a use case's answer into the wire's JSON, three ways.

The use cases answer frozen dataclasses (``app/results.py``, ``index/query.py``);
the edges send pydantic models (``hearth/answers.py``). Measured here for a search
result of 10 and of 200 hits (the API's limit), each way ending in JSON bytes:

- ``as_dict``: the dataclass's ``as_dict()`` (``dataclasses.asdict``) validated
  into the wire model, then ``model_dump_json`` (how HTTP answered before);
- ``from_attributes``: the wire model validated from the dataclass's attributes
  in place, then ``model_dump_json`` (how MCP's ``search`` answers);
- ``type_adapter``: a pydantic ``TypeAdapter`` over the dataclass itself, no
  wire model at all (the alternative the catalogue issue asks to measure).

Run: ``.venv/bin/python bench/answer_models.py``. Prints p50 per call in µs.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import TypeAdapter

from hearth.answers import SearchResult
from hearth.index.hits import Hit


@dataclass(frozen=True)
class Found:
    """The shape of ``index.ranking.SearchResult`` without its vector coverage."""

    hits: list[Hit]
    ranking: str = "hybrid"
    fresh: bool = True
    stale_reason: str | None = None
    extra: dict[str, str] = field(default_factory=dict)


def _hits(n: int) -> list[Hit]:
    return [
        Hit(
            path=f"memory/2026-11-{i % 28 + 1:02d}.md",
            start_line=i,
            end_line=i + 4,
            title="Daily note",
            heading=f"## 09:{i % 60:02d} UTC — note",
            kind="daily",
            date="2026-11-25",
            score=1.0 / (i + 1),
            snippet="the garden needs water before the frost " * 3,
        )
        for i in range(n)
    ]


def _p50(call: Callable[[], bytes], rounds: int = 2000) -> float:
    for _ in range(50):
        call()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main() -> None:
    adapter = TypeAdapter(Found)
    for n in (10, 200):
        found = Found(_hits(n))

        def as_dict(found: Found = found) -> bytes:
            data = {
                "hits": [h.as_dict() for h in found.hits],
                "ranking": found.ranking,
                "fresh": found.fresh,
                "stale_reason": found.stale_reason,
            }
            return SearchResult.model_validate(data).model_dump_json().encode()

        def from_attributes(found: Found = found) -> bytes:
            return (
                SearchResult.model_validate(found, from_attributes=True).model_dump_json().encode()
            )

        def type_adapter(found: Found = found) -> bytes:
            return adapter.dump_json(found)

        rounds = 2000 if n == 10 else 300
        for name, call in (
            ("as_dict", as_dict),
            ("from_attributes", from_attributes),
            ("type_adapter", type_adapter),
        ):
            print(f"{n:>4} hits  {name:<16} p50 {_p50(call, rounds):8.1f} µs")


if __name__ == "__main__":
    main()
