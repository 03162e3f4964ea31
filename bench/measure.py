"""What the benchmarks measure with, beyond a generated home (``homegen.py``)
and LoCoMo's conversations (``locomo.py``): a client of a running server, a
latency line, a process's memory, a command's timed runs, and the SQLite FTS5
baseline. The benchmarks are scripts; these three modules are what they share,
so no script imports another.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from homegen import percentile


class Client:
    def __init__(self, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Authorization": f"Bearer {token}"}

    def call(self, method: str, path: str, body: object = None) -> Any:
        headers = dict(self.headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            # The server closes keep-alive connections idle for 5 s: reconnect once.
            self.conn.close()
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        payload = response.read()
        if response.status != 200:
            raise RuntimeError(f"{method} {path}: {response.status} {payload[:200]!r}")
        return json.loads(payload)

    def search(self, query: str) -> list[dict[str, object]]:
        result = self.call("GET", "/v1/search?" + urlencode({"q": query, "limit": 10}))
        assert isinstance(result, dict)
        return list(result["hits"])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """A process's user and system CPU time so far, every thread's (``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def latency(name: str, samples: list[float], tail: float = 0.99) -> float:
    ms = [s * 1000 for s in samples]
    p50, high = statistics.median(ms), percentile(ms, tail)
    label = f"p{int(tail * 100)}"
    print(f"  {name:<46} p50 {p50:7.2f} ms   {label} {high:7.2f} ms   (n={len(ms)})")
    return p50


def wait_for_vectors(client: Client, deadline: float = 3600.0) -> dict[str, object]:
    """The index's vector coverage once every section has its vector."""
    end = time.monotonic() + deadline
    while True:
        status = client.call("GET", "/v1/status")
        assert isinstance(status, dict)
        vectors = status["index"]["vectors"]
        if vectors is None:
            raise SystemExit("semantic ranking is off in the served home")
        if vectors["complete"] or time.monotonic() > end:
            return dict(vectors)
        time.sleep(1.0)


def memory_kb(pid: int) -> dict[str, int]:
    """A process's resident memory in KB: VmRSS, its peak VmHWM, and VmRSS's
    anonymous, file-backed and shared-memory parts (RssAnon, RssFile,
    RssShmem), and ``private``: RssAnon + RssShmem, the memory that is the
    process's own (file-backed pages, the index's mapped files among them,
    are cache the kernel can drop and read again)."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem"):
            found[key] = int(value.split()[0])
    found["private"] = found.get("RssAnon", 0) + found.get("RssShmem", 0)
    return found


HEARTH = str(Path(sys.executable).parent / "hearth")
#: The baseline's git: no hooks, and no automatic gc (after a commit of thousands of
#: loose objects it would detach and pack them, under the next figures).
NO_HOOKS = ("-c", "core.hooksPath=/dev/null", "-c", "gc.auto=0")


@dataclass
class Run:
    """One child process: wall and CPU seconds, and its peak resident memory."""

    seconds: float
    cpu: float
    peak_kb: int


def run(command: list[str], env: dict[str, str], cwd: Path | None = None) -> Run:
    """Run ``command`` to the end; its output is dropped, a failure stops the bench."""
    with tempfile.TemporaryFile() as errors:
        t0 = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=errors)
        _pid, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            errors.seek(0)
            raise SystemExit(f"{' '.join(command)} failed: {errors.read().decode()[-2000:]}")
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


def median_run(runs: list[Run]) -> Run:
    ordered = sorted(runs, key=lambda r: r.seconds)
    return ordered[len(ordered) // 2]


def folder_mb(path: Path) -> float:
    total = 0
    for folder, _dirs, names in os.walk(path):
        for name in names:
            try:
                total += (Path(folder) / name).lstat().st_size
            except OSError:
                continue
    return total / 1e6


FTS5_BUILD = r"""
import os, sqlite3, sys
root, db = sys.argv[1], sys.argv[2]
conn = sqlite3.connect(db)
conn.execute("CREATE VIRTUAL TABLE docs USING fts5(path UNINDEXED, title, body, "
             "tokenize='porter unicode61 remove_diacritics 2')")
rows = []
for folder, dirs, names in os.walk(root):
    dirs[:] = [d for d in dirs if d != ".git"]
    for name in names:
        if name.endswith(".md"):
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            rows.append((os.path.relpath(path, root), text.split("\n", 1)[0], text))
with conn:
    conn.executemany("INSERT INTO docs VALUES (?, ?, ?)", rows)
conn.close()
"""


# The same documents as hearth's index: heading-delimited sections with line ranges.
#: The baseline's search: top 10 by BM25 with a snippet, as hearth answers.
FTS5_SEARCH = (
    "SELECT path, snippet(docs, 2, '**', '**', '…', 24), bm25(docs, 0, 2.5, 1.0) AS r "
    "FROM docs WHERE docs MATCH ? ORDER BY r LIMIT 10"
)


def fts5_search_times(fts_db: Path, queries: list[str], warm: int = 0) -> list[float]:
    """Seconds of each query against the FTS5 table (the first ``warm`` asked once before)."""
    conn = sqlite3.connect(fts_db)
    try:
        for query in queries[:warm]:
            conn.execute(FTS5_SEARCH, (query,)).fetchall()
        times = []
        for query in queries:
            t0 = time.perf_counter()
            rows = conn.execute(FTS5_SEARCH, (query,)).fetchall()
            times.append(time.perf_counter() - t0)
            assert rows, query
        return times
    finally:
        conn.close()
