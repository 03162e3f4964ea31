"""A generated home for the benchmarks: N topic files of about 2 KB, committed with git."""

from __future__ import annotations

import datetime as dt
import itertools
import os
import random
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}

WORDS = [
    "garden",
    "tomato",
    "seeds",
    "compost",
    "river",
    "kettle",
    "lantern",
    "orchard",
    "meadow",
    "letter",
    "harbor",
    "window",
    "pepper",
    "ladder",
    "basket",
    "violin",
    "marble",
    "cedar",
    "thistle",
    "bramble",
    "copper",
]


def paragraph(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def topic_path(i: int) -> str:
    return f"memory/topics/t{i // 500:02d}/topic-{i:05d}.md"


def generate(root: Path, count: int, rng: random.Random) -> None:
    for i in range(count):
        path = root / topic_path(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(f"## Part {p}\n\n{paragraph(rng, 90)}" for p in range(3))
        path.write_text(f"# Topic {i}\n\n{body}\n")


#: The words of English notes that say little: the most frequent of a generated
#: home's text (``generate_home``).
FUNCTION_WORDS = (  # noqa: SIM905 (a list of 40 words)
    "the and to of a i in was it that for on with my is at we this but not be had "
    "have as so from they all about when out up just one were me our what there then"
).split()
_ONSETS = ("b", "br", "c", "ch", "d", "f", "g", "gr", "h", "l", "m", "n", "p", "r", "s", "st",
           "t", "tr", "v", "w")  # fmt: skip
_NUCLEI = ("a", "e", "i", "o", "u", "ai", "ea", "ou")
_CODAS = ("", "l", "n", "r", "s", "t", "nd", "rk", "st")


class Vocabulary:
    """The words of a generated home (``generate_home``), most frequent first:
    :data:`FUNCTION_WORDS`, then :data:`WORDS`, then made-up words of two or
    three syllables, ``size`` in all. Word ``r`` (from 0) turns up with a
    weight of ``1 / (r + 2.7)`` (a Zipf-Mandelbrot law, as in English text)."""

    def __init__(self, size: int = 5000) -> None:
        made = random.Random(1)
        words = [*FUNCTION_WORDS, *WORDS]
        seen = set(words)
        while len(words) < size:
            syllables = made.choice((2, 2, 3))
            word = "".join(
                made.choice(_ONSETS) + made.choice(_NUCLEI) + made.choice(_CODAS)
                for _ in range(syllables)
            )
            if word not in seen:
                seen.add(word)
                words.append(word)
        self.words = words
        self.weights = [1 / (rank + 2.7) for rank in range(len(words))]
        self._cumulative = list(itertools.accumulate(self.weights))

    def text(self, rng: random.Random, count: int) -> str:
        return " ".join(rng.choices(self.words, cum_weights=self._cumulative, k=count))

    def query(self, rng: random.Random) -> str:
        """One to three different words of the home's, each drawn as often as it
        turns up in the text: a random word of the notes, so mostly common ones
        ("the", "garden"), as a person's queries are."""
        picked: list[str] = []
        want = rng.choice((1, 1, 2, 3))
        while len(picked) < want:
            (word,) = rng.choices(self.words, cum_weights=self._cumulative)
            if word not in picked:
                picked.append(word)
        return " ".join(picked)


def generate_home(root: Path, count: int, rng: random.Random) -> Vocabulary:
    """A folder of ``count`` markdown files as a person's home holds them: the
    persona files (SOUL, IDENTITY, USER, MEMORY), a daily note
    (``memory/YYYY-MM-DD.md``, two to five entries) for every fourth file, back
    from 2026-11-26 a day each, and topic notes (``memory/topics/<slug>.md``,
    three or four sections of 60 to 120 words: about 2 KB) for the rest."""
    vocab = Vocabulary()
    persona = {
        "SOUL.md": "who you are",
        "IDENTITY.md": "your name and manner",
        "USER.md": "the person you work with",
        "MEMORY.md": "long-term memory",
    }
    for name, what in persona.items():
        lines = "\n".join(f"- {vocab.text(rng, rng.randint(8, 20))}" for _ in range(12))
        body = f"# {name} — {what}\n\n{vocab.text(rng, 60)}\n\n## Entries\n\n{lines}\n"
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(body)
    files = max(0, count - len(persona))
    daily = files // 4
    day = dt.date(2026, 11, 26)
    (root / "memory/topics").mkdir(parents=True, exist_ok=True)
    for n in range(daily):
        entries = []
        minute = rng.randrange(6 * 60, 9 * 60)
        for _ in range(rng.randint(2, 5)):
            minute += rng.randrange(10, 120)
            stamp = f"{minute // 60 % 24:02d}:{minute % 60:02d}"
            title = vocab.text(rng, rng.randint(2, 4))
            entries.append(f"## {stamp} UTC — {title}\n\n{vocab.text(rng, rng.randint(30, 90))}\n")
        date = day - dt.timedelta(days=n)
        (root / f"memory/{date.isoformat()}.md").write_text(
            f"# {date.isoformat()}\n\n" + "\n".join(entries)
        )
    for n in range(files - daily):
        (root / workload_topic(n, vocab)).write_text(topic_text(n, vocab, rng))
    return vocab


def workload_topic(n: int, vocab: Vocabulary) -> str:
    """The path of ``generate_home``'s topic number ``n``."""
    first = len(FUNCTION_WORDS)
    a = vocab.words[first + n % 97]
    b = vocab.words[first + (n // 97) % (len(vocab.words) - first)]
    return f"memory/topics/{a}-{b}-{n}.md"


def topic_text(n: int, vocab: Vocabulary, rng: random.Random) -> str:
    sections = "\n".join(
        f"## {vocab.text(rng, rng.randint(1, 3))}\n\n{vocab.text(rng, rng.randint(60, 120))}\n"
        for _ in range(rng.choice((3, 4)))
    )
    return f"# Topic {n}: {vocab.text(rng, 3)}\n\n{sections}"


def in_work(work: Path | None, run: Callable[[Path], None]) -> None:
    """``run`` in ``work`` (made if missing, kept for the next run), or in a
    temporary folder removed afterwards when no ``--work`` was given."""
    import tempfile

    if work is not None:
        work.mkdir(parents=True, exist_ok=True)
        run(work)
        return
    with tempfile.TemporaryDirectory(prefix="hearth-bench-") as tmp:
        run(Path(tmp))


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def summary(name: str, samples: list[float]) -> float:
    ms = sorted(s * 1000 for s in samples)
    p50 = statistics.median(ms)
    p90 = ms[int(len(ms) * 0.9) - 1]
    print(f"  {name:<38} p50 {p50:7.1f} ms   p90 {p90:7.1f} ms   (n={len(ms)})")
    return p50


def use_git_identity(*, semantic: bool = False) -> dict[str, str]:
    """The bench's git identity, for this process and its children.

    Semantic ranking is off unless asked for: the timing benches measure
    keyword indexing and search, and filling the vectors of a 10,000-file
    home takes many minutes of CPU that would run under their figures.
    bench/recall.py measures hybrid ranking.
    """
    os.environ.update(GIT_ENV)
    if semantic:
        os.environ.pop("HEARTH_SEMANTIC", None)
    else:
        os.environ["HEARTH_SEMANTIC"] = "off"
    return dict(os.environ)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def seed_home(root: Path, files: int, rng: random.Random) -> None:
    """A new home at ``root`` with ``files`` generated topic files, committed with git."""
    from hearth import wiring

    wiring.initialize(root)
    generate(root, files, rng)
    git(root, "add", "-A")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "bench: seed")


def create_token(root: Path, scope: str = "write", name: str = "bench") -> str:
    """A new token of the home (``hearth token create``)."""
    import sys

    hearth = str(Path(sys.executable).parent / "hearth")
    return subprocess.run(
        [hearth, "--home", str(root), "token", "create", "--name", name, "--scope", scope],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def serve(root: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    """``hearth serve`` on a free loopback port, started (not yet answering)."""
    import socket
    import sys

    hearth = str(Path(sys.executable).parent / "hearth")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    server = subprocess.Popen(
        [hearth, "--home", str(root), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    return server, port


def wait_answering(port: int) -> None:
    """Until the server on ``port`` answers ``/healthz`` with 200."""
    import http.client

    while True:
        try:
            probe = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            probe.request("GET", "/healthz")
            if probe.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.05)  # not listening yet, or 503 while its start-up pass runs


def start_server(
    root: Path, env: dict[str, str], scope: str = "write", name: str = "bench"
) -> tuple[subprocess.Popen[bytes], int, str]:
    """``hearth serve`` on a free loopback port, once it answers: (process, port, token)."""
    token = create_token(root, scope, name)
    server, port = serve(root, env)
    wait_answering(port)
    return server, port, token


def wait_idle(pid: int, timeout: float = 120.0) -> float:
    """Wait until the server's start-up work (its first pass, the watcher's
    set-up, the first listing of every section's passage for the vectors) is
    done: under 5% of a core for half a second. Returns the seconds waited."""
    t0 = time.perf_counter()
    ticks = os.sysconf("SC_CLK_TCK")

    def used() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    before = used()
    while time.perf_counter() - t0 < timeout:
        time.sleep(0.5)
        now = used()
        if now - before < 0.025:
            break
        before = now
    return time.perf_counter() - t0


def workload_queries(work: Path, files: int, count: int) -> list[str]:
    """bench/workload.py's hybrid queries (its home generated aside for the
    same draws), each once."""
    rng = random.Random(files + 1)
    vocab = generate_home(work / "scratch", files, rng)
    shutil.rmtree(work / "scratch")
    return list(dict.fromkeys(vocab.query(rng) for _ in range(count)))
