"""Issue 52, CLI reads beside a server while a new home's vectors fill: the
filler's Python steps wait while a request is served (``hearth.traffic``), so
a request thread does not wait for Python's lock behind the tokenizer."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from hearth import traffic
from hearth.api.app import InFlight
from hearth.index.semantic import SemanticRanking, VectorFiller
from tests.conftest import Workspace
from tests.index.test_vectors_follow_files import CountingEmbedder


def _served_for(seconds: float, entered: threading.Event) -> threading.Thread:
    def request() -> None:
        with traffic.serving():
            entered.set()
            time.sleep(seconds)

    thread = threading.Thread(target=request)
    thread.start()
    return thread


def test_a_thread_that_gives_way_waits_until_the_request_is_answered() -> None:
    """Case: the fill steps aside while a request is in flight."""
    entered, waited = threading.Event(), []

    def filler() -> None:
        traffic.give_way()
        assert entered.wait(timeout=10)
        waited.append(traffic.step_aside())
        waited.append(traffic.in_flight())

    request = _served_for(0.3, entered)
    worker = threading.Thread(target=filler)
    worker.start()
    worker.join(timeout=10)
    request.join(timeout=10)
    assert waited[0] >= 0.2  # it waited for the request's 0.3 s
    assert waited[1] == 0  # and went on once it was answered


def test_a_request_s_own_thread_never_waits_for_itself() -> None:
    """Case: a search embedding its query on its request thread goes straight on."""
    with traffic.serving():
        started = time.monotonic()
        assert traffic.step_aside() == 0.0
        assert time.monotonic() - started < 0.05


def test_a_stream_that_stays_open_does_not_stop_the_fill(monkeypatch: pytest.MonkeyPatch) -> None:
    """Case: an MCP session's event stream is in flight for its whole life; the
    fill waits only for young requests."""
    monkeypatch.setattr(traffic, "YOUNG_SECONDS", 0.1)
    entered, waited = threading.Event(), []
    request = _served_for(0.4, entered)

    def filler() -> None:
        traffic.give_way()
        assert entered.wait(timeout=10)
        time.sleep(0.15)  # the stream is old now
        waited.append(traffic.step_aside())

    worker = threading.Thread(target=filler)
    worker.start()
    worker.join(timeout=10)
    request.join(timeout=10)
    assert waited[0] < 0.05


def test_the_filler_s_thread_gives_way() -> None:
    """Case: the server's filler (and what it runs) is marked as giving way."""
    wake, filled = threading.Event(), threading.Event()
    marked: list[bool] = []

    def fill(stop: threading.Event, progress: object) -> None:
        marked.append(traffic.gives_way())
        filled.set()

    filler = VectorFiller(fill, wake, quiet=0.01, at_most=0.05)
    filler.start()
    try:
        wake.set()
        assert filled.wait(timeout=30)
    finally:
        filler.stop()
    assert marked == [True]
    assert not traffic.gives_way()  # other threads do not


def test_the_server_counts_each_http_request_while_it_is_served() -> None:
    """Case: the server's outermost middleware counts the request in flight."""
    seen: list[int] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        seen.append(traffic.in_flight())

    app = InFlight(inner)
    asyncio.run(app({"type": "http"}, None, None))
    asyncio.run(app({"type": "lifespan"}, None, None))
    assert seen == [1, 0]
    assert traffic.in_flight() == 0


def test_the_threads_a_fill_embeds_on_give_way_as_the_filler_does(workspace: Workspace) -> None:
    """Case: the fill's embedding threads (a pool it starts) step aside as its
    filler thread does, and a fill a command runs in the foreground never does."""
    embedder = CountingEmbedder()
    seen: list[bool] = []
    embedder.before = lambda: seen.append(traffic.gives_way())
    index = workspace.app.reconciler.index
    index.semantic = SemanticRanking(workspace.home.store.state_dir / "vectors", embedder)
    workspace.app.reconcile()
    workspace.write("memory/topics/kestrels.md", "# Kestrels\n\nThey hover.\n")
    workspace.app.reconcile()

    def filler() -> None:
        traffic.give_way()
        index.fill_vectors()

    worker = threading.Thread(target=filler)
    worker.start()
    worker.join(timeout=60)
    assert seen and all(seen)
    seen.clear()
    workspace.write("memory/topics/herons.md", "# Herons\n\nThey wait.\n")
    workspace.app.reconcile()
    index.fill_vectors()
    assert seen and not any(seen)
