"""The bounds of a search request, shared by every edge that takes one."""

from __future__ import annotations

MAX_QUERY_CHARS = 1000
#: Longer prefixes would make the path regex exceed Tantivy's automaton limit.
MAX_PREFIX_CHARS = 256
MAX_LIMIT = 200
