"""Reading, hashing, sectioning and checking the files of a pass, on other cores.

What a pass does with one file before it touches the index or the manifest
(``read_file``) is pure: read its bytes, hash them, decode and cut them into
sections, run the validation rules. A pass with many files to read (a
rebuild, a first pass over a big home) hands that part to worker processes
(``Readers``), so the work shares the machine's cores with Tantivy's indexing
threads, while the pass itself stays the one writer: it applies every
outcome in file order, to the index and the manifest, exactly as when it
reads the files itself. A worker sees a file as the pass would (descriptor
relative, no symlink followed); one that vanished since the listing is an
outcome like any other (``gone``). If a worker fails, the pass reads the rest
itself.

Workers are plain ``python -m hearth.reconcile.reader_worker`` processes speaking
pickle over their stdin and stdout (multiprocessing's spawn would import the
whole CLI again in each): each request is a chunk of paths, each answer that
chunk's outcomes.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import hashlib
import os
import pickle
import sys
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Literal

from hearth.domain.sections import Section, split_sections
from hearth.domain.validation import Bounds, check_text
from hearth.errors import PathRefused, RuleFailure
from hearth.store.rooted import RootedFiles

if TYPE_CHECKING:
    import subprocess

#: Files read per request to a worker.
CHUNK = 200
#: Requests sent to a worker before its first answer is read (each is a few
#: kilobytes, so they fit in the pipe and neither side waits on the other).
AHEAD = 2

#: Files larger than this are parked instead of indexed.
MAX_INDEX_BYTES = 8 * 1024 * 1024
#: Files to read from which a pass reads them in worker processes; starting
#: one costs about as much as reading a few hundred files.
PARALLEL_FROM = 1000
#: Files a big pass reads itself while its workers start (taken when there
#: are at least four times as many to read).
HEAD_START = 200

Signature = tuple[int, int]  # size, mtime_ns

Kind = Literal["sections", "unchanged", "undecodable", "gone", "refused", "failed"]


@dataclass(frozen=True)
class Outcome:
    """What reading one file gave."""

    path: str
    kind: Kind
    size: int = 0
    digest: bytes = b""
    sections: Sequence[Section] = ()
    problems: tuple[RuleFailure, ...] = ()
    #: Why a file was refused or could not be read.
    reason: str = ""


def read_file(
    read: Callable[[str], bytes | None], path: str, known: bytes | None, bounds: Bounds
) -> Outcome:
    """Read, hash, and (unless its digest is still ``known``) section and check one file."""
    try:
        data = read(path)
    except PathRefused as exc:
        return Outcome(path, "refused", reason=exc.message)
    except OSError as exc:
        return Outcome(path, "failed", reason=str(exc.strerror or exc))
    if data is None:  # vanished between listing and reading
        return Outcome(path, "gone")
    digest = hashlib.blake2b(data, digest_size=16).digest()
    if digest == known:
        return Outcome(path, "unchanged", len(data), digest)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Outcome(path, "undecodable", len(data), digest)
    problems = tuple(check_text(path, text, bounds))
    return Outcome(path, "sections", len(data), digest, split_sections(path, text), problems)


def read_files(
    root: Path, items: Iterable[tuple[str, bytes | None]], bounds: Bounds
) -> list[Outcome]:
    """``read_file`` for each ``(path, known digest)``, in order."""
    files = RootedFiles(root)
    try:
        with files.batch_reader() as read:
            return [read_file(read, path, known, bounds) for path, known in items]
    finally:
        files.close()


def outcomes(
    files: RootedFiles,
    bounds: Bounds,
    to_read: Sequence[tuple[str, Signature]],
    known: Mapping[str, bytes],
    parallel_from: int = PARALLEL_FROM,
    started: Readers | None = None,
) -> Iterator[tuple[Outcome, Signature]]:
    """Each file's outcome with its listed signature: from worker processes when
    there are ``parallel_from`` or more, else read here, through ``files``.
    ``known`` holds the digests the manifest has (an unchanged file is not sectioned).

    ``started``: workers already reading (``read_ahead``), in the same order, files
    that include these: they are used whatever the count, told to leave out
    the others that they have not been sent yet (the outcomes of those sent are
    passed over), and closed at the end."""
    signatures = dict(to_read)
    limit = MAX_INDEX_BYTES // (1024 * 1024)
    for path, (size, _mtime) in to_read:
        if size > MAX_INDEX_BYTES:
            reason = f"larger than {limit} MiB; not indexed"
            yield Outcome(path, "refused", reason=reason), signatures[path]
    items = [(path, known.get(path)) for path, (size, _m) in to_read if size <= MAX_INDEX_BYTES]
    done = 0
    if started is not None:
        started.narrow(signatures)
        try:
            for outcome in started.outcomes():
                if done < len(items) and outcome.path == items[done][0]:
                    done += 1
                    yield outcome, signatures[outcome.path]
        except Exception:  # any failure of a worker or its pipe
            pass  # the rest is read here
        finally:
            started.close()
    elif len(items) >= parallel_from:
        # While the workers start (an interpreter and hearth's imports, a few
        # hundred milliseconds in which nothing else has work), the first files
        # of a big pass are read here.
        head = HEAD_START if len(items) >= 4 * HEAD_START else 0
        readers = _start_readers(files.root, bounds, items[head:])
        if readers is not None:
            try:
                if head:
                    with files.batch_reader() as read:
                        for path, digest in items[:head]:
                            outcome = read_file(read, path, digest, bounds)
                            done += 1
                            yield outcome, signatures[path]
                for outcome in readers.outcomes():
                    done += 1
                    yield outcome, signatures[outcome.path]
            except Exception:  # any failure of a worker or its pipe
                pass  # the rest is read here
            finally:
                readers.close()
    if done == len(items):
        return
    with files.batch_reader() as read:
        for path, digest in items[done:]:
            yield read_file(read, path, digest, bounds), signatures[path]


def read_ahead(
    root: Path, bounds: Bounds, listed: Mapping[str, Signature], early: EarlyWorkers | None = None
) -> Readers | None:
    """Workers started now on every listed file a pass may read (in path order,
    the order ``outcomes`` asks for them), for a pass that will read nearly all of
    them (a rebuild): they start and read while the pass decides which it wants
    (``outcomes``' ``started``). ``early``: processes started before, taken
    first. None when none could be started."""
    items = [(path, None) for path in sorted(listed) if listed[path][0] <= MAX_INDEX_BYTES]
    return _start_readers(root, bounds, items, early)


def _start_readers(
    root: Path,
    bounds: Bounds,
    items: Sequence[tuple[str, bytes | None]],
    early: EarlyWorkers | None = None,
) -> Readers | None:
    """Workers started and sent ``items``; None when none could be."""
    readers = None
    try:
        readers = Readers(root, bounds, worker_count(), early)
        readers.submit(items)
    except Exception:  # no worker could be started or sent its first files
        if readers is not None:
            readers.close()
        return None
    return readers


def worker_count() -> int:
    """Worker processes for a big pass: the cores but one (Tantivy's threads and the
    pass use it), at least one, at most two (more did not pay on measured machines)."""
    return max(1, min(2, (os.cpu_count() or 1) - 1))


#: How a worker is started (``-P``: never a module of the working folder).
WORKER_COMMAND = (sys.executable, "-P", "-m", "hearth.reconcile.reader_worker")


def _started() -> subprocess.Popen[bytes]:
    """One worker process, started (it imports what it needs, then waits for requests)."""
    # Imported here: a worker imports this module too, and never starts one.
    import subprocess  # noqa: PLC0415

    return subprocess.Popen(
        WORKER_COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )


class EarlyWorkers:
    """Worker processes started before the pass that reads with them knows its
    files: ``reindex --full`` starts them before it opens the home, so their
    start-up (an interpreter and the sectioning's imports, about a tenth of a
    second of one core) runs beside the command's own start-up on another
    core instead of before its first files are read. ``Readers`` takes them;
    ``close`` ends those none took (a home too small for workers: they were
    sent nothing, so they are killed, not waited for)."""

    def __init__(self, count: int | None = None) -> None:
        self._procs: list[subprocess.Popen[bytes]] = []
        with contextlib.suppress(OSError):  # none started: the pass starts its own, or reads
            for _ in range(worker_count() if count is None else count):
                self._procs.append(_started())

    def take(self, count: int) -> list[subprocess.Popen[bytes]]:
        taken, self._procs = self._procs[:count], self._procs[count:]
        return taken

    def close(self) -> None:
        for proc in self.take(len(self._procs)):
            proc.kill()
            proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    pipe.close()


class Readers:
    """Worker processes that run ``read_files`` on chunks, answering in order."""

    def __init__(
        self, root: Path, bounds: Bounds, workers: int, early: EarlyWorkers | None = None
    ) -> None:
        self.root, self.bounds = root, bounds
        taken = early.take(workers) if early is not None else []
        self._procs = taken + [_started() for _ in range(workers - len(taken))]
        self._chunks: list[Sequence[tuple[str, bytes | None]]] = []
        self._pending: collections.deque[int] = collections.deque()
        self._sent = 0

    def submit(self, items: Sequence[tuple[str, bytes | None]]) -> None:
        """Hand ``items`` to the workers; the first requests are sent at once."""
        self._chunks = [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]
        self._pending.clear()
        self._sent = 0
        self._send_ahead()

    def narrow(self, wanted: Container[str]) -> None:
        """Leave the items not in ``wanted`` out of the requests not sent yet (those
        sent are read all the same, and their outcomes come)."""
        rest = [item for chunk in self._chunks[self._sent :] for item in chunk if item[0] in wanted]
        self._chunks[self._sent :] = [rest[i : i + CHUNK] for i in range(0, len(rest), CHUNK)]

    def outcomes(self) -> Iterator[Outcome]:
        """Every submitted item's outcome, in order; raises OSError or EOFError if a
        worker fails (the items already yielded are done; the caller reads the rest)."""
        while self._pending:
            index = self._pending.popleft()
            answer = self._receive(index % len(self._procs))
            self._send_ahead()
            yield from answer

    def _send_ahead(self) -> None:
        while self._sent < len(self._chunks) and len(self._pending) < AHEAD * len(self._procs):
            self._send(self._sent % len(self._procs), self._chunks[self._sent])
            self._pending.append(self._sent)
            self._sent += 1

    def _send(self, worker: int, chunk: Sequence[tuple[str, bytes | None]]) -> None:
        stdin = self._procs[worker].stdin
        assert stdin is not None
        pickle.dump((str(self.root), self.bounds, list(chunk)), stdin)
        stdin.flush()

    def _receive(self, worker: int) -> list[Outcome]:
        stdout = self._procs[worker].stdout
        assert stdout is not None
        answer = pickle.load(stdout)
        if not isinstance(answer, list):
            raise EOFError("a reader process answered with something else than outcomes")
        return [_received(*sent) for sent in answer]

    def close(self) -> None:
        _end(self._procs)


def _end(procs: Sequence[subprocess.Popen[bytes]]) -> None:
    """Workers told there is nothing more to read, and waited for."""
    import subprocess  # noqa: PLC0415  (see _started)

    for proc in procs:
        if proc.stdin is not None:
            proc.stdin.close()
        if proc.stdout is not None:
            # A worker still writing an answer that will not be read (the pass
            # stopped early) then fails at once, instead of waiting for a reader.
            proc.stdout.close()
    for proc in procs:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    """A worker's loop (``reader_worker.py``): requests in, outcomes out, until EOF."""
    while True:
        try:
            root, bounds, items = pickle.load(requests)
        except EOFError:
            return
        sent = [_sent(outcome) for outcome in read_files(Path(root), items, bounds)]
        pickle.dump(sent, answers, pickle.HIGHEST_PROTOCOL)
        answers.flush()


#: An outcome as a worker sends it: its fields, its sections plain tuples.
#: Pickle makes a named tuple or a dataclass through a call in Python each;
#: plain tuples cost a third less to send and receive, made into sections
#: again included (docs/performance.md, "The full build's own work, done once").
_Sent = tuple[str, Kind, int, bytes, list[tuple[object, ...]], tuple[RuleFailure, ...], str]


def _sent(outcome: Outcome) -> _Sent:
    sections: list[tuple[object, ...]] = list(map(tuple, outcome.sections))
    return (
        outcome.path,
        outcome.kind,
        outcome.size,
        outcome.digest,
        sections,
        outcome.problems,
        outcome.reason,
    )


#: A section made from its fields' tuple as ``Section._make`` would, without a call in Python.
_section = functools.partial(tuple.__new__, Section)


def _received(
    path: str,
    kind: Kind,
    size: int,
    digest: bytes,
    sections: list[tuple[object, ...]],
    problems: tuple[RuleFailure, ...],
    reason: str,
) -> Outcome:
    return Outcome(path, kind, size, digest, list(map(_section, sections)), problems, reason)
