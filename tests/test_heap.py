"""glibc's allocator set up for a long-running process (``heap.for_long_runs``),
and the heap given back now and then (``heap.now_and_then``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

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


#: In a fresh process: a 32 MB file under a folder mapped read-only and read
#: through, a 4 MB file mapped writable and changed, both under the folder,
#: and a 32 MB file outside it mapped and read; ``now_and_then`` of
#: ``let_go_of_files(folder)`` every 2nd call, called once and a second
#: time. Prints the resident KB of each mapping after each call
#: (``/proc/self/smaps``), whether the read-only mapping still reads the
#: same bytes, and whether the change stayed.
MAPPED = textwrap.dedent(
    """
    import hashlib, mmap, os, sys
    from hearth import heap

    folder, outside = sys.argv[1], sys.argv[2]

    def mapped(path, size, writable=False):
        with open(path, "wb") as out:
            out.write(os.urandom(size))
        handle = open(path, "r+b" if writable else "rb")
        prot = mmap.PROT_READ | (mmap.PROT_WRITE if writable else 0)
        return mmap.mmap(handle.fileno(), 0, flags=mmap.MAP_SHARED, prot=prot)

    def resident(path):
        kb, inside = 0, False
        for line in open("/proc/self/smaps"):
            head = line.split(None, 1)[0]
            if not head.endswith(":"):
                inside = line.rstrip().endswith(path)
            elif inside and head == "Rss:":
                kb += int(line.split()[1])
        return kb

    index = mapped(os.path.join(folder, "index.store"), 32 << 20)
    written = mapped(os.path.join(folder, "written.bin"), 4 << 20, writable=True)
    other = mapped(os.path.join(outside, "other.bin"), 32 << 20)
    digest = hashlib.sha256(index[:]).hexdigest()
    hashlib.sha256(other[:]).hexdigest()
    written[:5] = b"hello"
    tick = heap.now_and_then(2, lambda: heap.let_go_of_files(folder))
    names = ["index.store", "written.bin", "other.bin"]
    tick()
    print(*(resident(name) for name in names))
    tick()
    print(*(resident(name) for name in names))
    print(hashlib.sha256(index[:]).hexdigest() == digest, written[:5] == b"hello")
    """
)


@pytest.mark.skipif(heap._libc_function("madvise") is None, reason="Linux only")
def test_now_and_then_lets_go_of_the_pages_of_files_mapped_from_a_folder(tmp_path: Path) -> None:
    folder, outside = tmp_path / "index", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    out = subprocess.run(
        [sys.executable, "-c", MAPPED, str(folder), str(outside)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\n")
    first = [int(kb) for kb in out[0].split()]
    second = [int(kb) for kb in out[1].split()]
    assert first[0] >= 30 * 1024 and first[2] >= 30 * 1024  # read through: resident
    assert second[0] <= 1024  # the folder's read-only mapping let go of on the 2nd call
    assert second[1] >= 4  # a writable mapping is left alone (its page changed)
    assert second[2] >= 30 * 1024  # and a mapping from elsewhere
    assert out[2].split() == ["True", "True"]  # the bytes read again are the file's
