"""The clock, the one seam tests replace: what time it is, in UTC."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

#: What every part that stamps a time is given (a test passes a fixed one).
Clock = Callable[[], dt.datetime]


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)
