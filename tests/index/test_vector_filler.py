"""The server's vector filler: it gives way to requests."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from hearth.index.semantic import LOWEST_PRIORITY, VectorFiller


def _wait(event: threading.Event) -> None:
    assert event.wait(timeout=30), "the filler never filled"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread priorities: Linux")
def test_the_filler_fills_at_the_lowest_priority() -> None:
    wake, filled = threading.Event(), threading.Event()
    seen: list[int] = []

    def fill(stop: threading.Event, progress: object) -> None:
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        filled.set()

    ours = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    filler = VectorFiller(fill, wake, quiet=0.01, at_most=0.05)
    filler.start()
    try:
        wake.set()
        _wait(filled)
    finally:
        filler.stop()
    assert seen[0] == LOWEST_PRIORITY
    # The process's other threads keep theirs.
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == ours


def test_writes_that_keep_coming_do_not_hold_the_filling_back() -> None:
    wake, filled = threading.Event(), threading.Event()
    fills: list[int] = []

    def fill(stop: threading.Event, progress: object) -> None:
        fills.append(1)
        filled.set()

    # A new write every 10 ms, never quiet for the 0.5 s the filler waits for:
    # it fills anyway once 0.2 s have passed since the first.
    filler = VectorFiller(fill, wake, quiet=0.5, at_most=0.2)
    filler.start()
    try:
        deadline = time.monotonic() + 30
        while not filled.is_set() and time.monotonic() < deadline:
            wake.set()
            time.sleep(0.01)
        assert filled.is_set()
        assert filler.last_error is None
    finally:
        filler.stop()


def test_a_failed_fill_is_kept_for_status_and_retried_on_the_next_wake() -> None:
    wake, retried = threading.Event(), threading.Event()
    calls: list[int] = []

    def fill(stop: threading.Event, progress: object) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("disk full")
        retried.set()

    filler = VectorFiller(fill, wake, quiet=0.01, at_most=0.05)
    filler.start()
    try:
        wake.set()
        deadline = time.monotonic() + 30
        while filler.last_error is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert filler.last_error == "filling vectors failed: disk full"
        wake.set()
        _wait(retried)
    finally:
        filler.stop()
    assert filler.last_error is None


def test_stop_ends_a_filler_that_waits_for_quiet() -> None:
    wake = threading.Event()
    filler = VectorFiller(lambda stop, progress: None, wake, quiet=60, at_most=120)
    filler.start()
    wake.set()
    filler.stop()
    assert filler._thread is not None and not filler._thread.is_alive()
