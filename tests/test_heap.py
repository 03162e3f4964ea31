"""glibc's allocator set up for a long-running process (``heap.for_long_runs``),
and the heap given back now and then (``heap.now_and_then``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from hearth import heap

#: In a fresh process: a 24 MB block freed (as a large read is), then 20 blocks
#: of 2 MB freed while small blocks between them live on (as a write's or a
#: snapshot's buffers, between objects that stay). Prints how much of the 40 MB
#: the process still holds.
HELD_AFTER_FREE = textwrap.dedent(
    """
    import sys
    from hearth import heap

    if sys.argv[1] == "long":
        assert heap.for_long_runs()

    def anonymous_kb():
        for line in open("/proc/self/status"):
            if line.startswith("RssAnon:"):
                return int(line.split()[1])

    large = bytearray(24 << 20)
    del large
    before = anonymous_kb()
    blocks, kept = [], []
    for _ in range(20):
        blocks.append(bytearray(2 << 20))
        kept.append(bytes(2000))  # above Python's small-object limit: from malloc
    del blocks
    print((anonymous_kb() - before) // 1024)
    """
)


def held_mb(mode: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", HELD_AFTER_FREE, mode], check=True, capture_output=True, text=True
    )
    return int(out.stdout)


@pytest.mark.skipif(heap._libc_function("mallopt") is None, reason="glibc only")
def test_large_blocks_freed_go_back_to_the_system_in_a_long_run() -> None:
    # glibc's default: the freed 24 MB block raised its mapping threshold, the
    # 2 MB blocks came from the heap, and the small blocks between them pin it.
    assert held_mb("default") >= 30
    assert held_mb("long") <= 5


#: In a fresh process: 40 blocks of 256 KB (below the long-run mapping
#: threshold, so from the heap) freed while small blocks between them live on,
#: then ``now_and_then(4)`` called three times and a fourth: prints the MB the
#: process still held after the third call and after the fourth.
HELD_NOW_AND_THEN = textwrap.dedent(
    """
    from hearth import heap

    assert heap.for_long_runs()

    def anonymous_kb():
        for line in open("/proc/self/status"):
            if line.startswith("RssAnon:"):
                return int(line.split()[1])

    tick = heap.now_and_then(4)
    before = anonymous_kb()
    blocks, kept = [], []
    for _ in range(40):
        blocks.append(bytearray(256 << 10))
        kept.append(bytes(2000))
    del blocks
    for _ in range(3):
        tick()
    third = anonymous_kb() - before
    tick()
    print(third // 1024, (anonymous_kb() - before) // 1024)
    """
)


@pytest.mark.skipif(heap._trim() is None, reason="glibc only")
def test_now_and_then_gives_the_heap_back_on_every_nth_call() -> None:
    out = subprocess.run(
        [sys.executable, "-c", HELD_NOW_AND_THEN], check=True, capture_output=True, text=True
    )
    third, fourth = map(int, out.stdout.split())
    assert third >= 8  # the freed 10 MB stayed through three calls
    assert fourth <= 2  # and went back on the fourth
