"""Credentials in a file's text: the patterns the secret rule looks for.

Hand-written and specific, so ordinary prose never matches (docs/security.md
has the figures that chose them over a general detector): each pattern names a
credential by a prefix or a label its issuer puts in it. Three ways of hiding
one are looked through as well:

- a credential cut over two lines (a line ending inside it, the rest on the
  next line): the word holding a pattern's literal is joined with the next
  line's first word and looked at again;
- a credential wrapped in base64 (as in a config blob or a basic-auth value):
  long base64 runs are decoded and their text looked at once more;
- spacing and case that change nothing for the program reading it (a private
  key's header with two spaces).

Every pattern has literals one of which every match holds (a pattern that
ignores case has them in lower case, looked for in the text's lower-case
copy): most text holds none, and ``in`` on a str is far faster than a regex
scan, so a pattern's regex runs only on a text that holds one of its literals.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence

#: (what it is, literals, pattern). A pattern starts with its literal and checks the
#: word boundary before it after it (``sk-(?<=\bsk-)``): a regex that starts with
#: a literal is searched for that literal first, many times faster than ``\b``.
PATTERNS: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    (
        "private key block",
        ("begin",),
        re.compile(
            r"-----[ \t]*BEGIN[ \t]+(?:[A-Z0-9]+[ \t]+)*PRIVATE[ \t]+KEY"
            r"(?:[ \t]+BLOCK)?[ \t]*-----",
            re.IGNORECASE,
        ),
    ),
    ("AWS access key id", ("AKIA", "ASIA"), re.compile(r"(?:AKIA|ASIA)(?<=\b....)[0-9A-Z]{16}\b")),
    (
        "AWS secret access key",
        ("aws_secret", "awssecret"),
        # The label AWS's tools use (an environment variable, a credentials file,
        # a JSON field) and then the 40 characters of the secret.
        re.compile(
            r"aws_?secret_?(?:access_?)?key[\"']?[ \t]*[:=][ \t]*[\"']?"
            r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])",
            re.IGNORECASE,
        ),
    ),
    (
        "GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        re.compile(
            r"(?:gh[pousr]_(?<=\b....)[A-Za-z0-9]{36,}|github_pat_(?<=\b...........)[A-Za-z0-9_]{40,})"
        ),
    ),
    ("GitLab token", ("glpat-",), re.compile(r"glpat-(?<=\bglpat-)[A-Za-z0-9_-]{20,}")),
    ("Slack token", ("xox",), re.compile(r"xox[abposr]-(?<=\bxox.-)[A-Za-z0-9-]{10,}")),
    ("Google API key", ("AIza",), re.compile(r"AIza(?<=\bAIza)[0-9A-Za-z_-]{35}")),
    (
        "OpenAI/Anthropic API key",
        ("sk-",),
        re.compile(r"sk-(?<=\bsk-)(?:ant-|proj-)?[A-Za-z0-9_-]{32,}"),
    ),
    ("Stripe secret key", ("k_live_",), re.compile(r"k_live_(?<=\b[rs]k_live_)[A-Za-z0-9]{20,}")),
    # hearth's own: API tokens (store/tokens.py), the server's hook key
    # (store/server_file.py) and the local tokens made from it.
    ("hearth token", ("hth_", "hthk_"), re.compile(r"hth(?<=\bhth)k?_[A-Za-z0-9_-]{40,}")),
    (
        "hearth local token",
        ("hearth-local.",),
        re.compile(r"hearth-local\.(?:read|write|admin)\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{20,}"),
    ),
)

#: A run of base64 long enough to hold a credential (the shortest above is 20
#: characters after its prefix, 32 once encoded).
_RUN_CHARS = 32
_BASE64_RUN = re.compile(rf"[A-Za-z0-9+/_-]{{{_RUN_CHARS},}}={{0,2}}")
#: Characters a credential is made of: a line ending in one and the next line
#: starting with one may be a credential cut in two.
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_/+=-]+")
_LEADING_SPACE = re.compile(r"[ \t>#*]*")


#: Each byte's class for ``_holds_run``: ``a`` for a character of a base64
#: run (all of them ASCII), a space for any other byte.
_RUN_CLASSES = bytes(
    ord("a") if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "+/_-") else ord(" ")
    for b in range(256)
)


def _holds_run(text: str) -> bool:
    """Whether ``text`` holds a base64 run (``_BASE64_RUN``): ``_RUN_CHARS`` of
    its characters in a row among the text's bytes, each byte given its class
    in one pass in C, where the pattern tried at every character of ordinary
    prose, or splitting it into words, took several times as long."""
    run = b"a" * _RUN_CHARS
    return run in text.encode("utf-8", "surrogatepass").translate(_RUN_CLASSES)


def find(text: str, prefilter: bool = True) -> list[tuple[int, str]]:
    """The credentials in ``text``: (line, what) each, one per kind, in the
    patterns' order. ``prefilter=False`` runs every pattern on every text (the
    tests' reference)."""
    found: dict[str, int] = {}
    lower = text.lower()
    # The patterns one of whose literals the text holds: a literal found
    # neither in the text nor in its lower-case copy is in no line of it, so
    # no joined line (made of the text's own words) holds it either.
    held = [scan for scan in _SCANS if _holds(text, lower, scan)] if prefilter else list(_SCANS)
    # ``held`` is already filtered by literal: each of its patterns runs.
    _scan(text, held, False, found, lambda start: text.count("\n", 0, start) + 1)
    if held:
        # A joined line is looked at for every pattern: a literal may span the
        # two words it joins.
        for line, joined in _joined_lines(text, lower, held):
            _scan(joined, _SCANS, prefilter, found, lambda _start, line=line: line)
    for line, decoded in _decoded_runs(text, prefilter):
        _scan(decoded, _SCANS, prefilter, found, lambda _start, line=line: line)
    return [(found[what], what) for what, _l, _p in PATTERNS if what in found]


#: Each pattern with whether it ignores case (read once: ``Flag`` arithmetic
#: is slow enough to count when every file of a home is checked) and a
#: character each of its literals holds, if one does: most prose holds no
#: ``_``, and one look for a character is far cheaper than one for each literal.
_Scan = tuple[str, tuple[str, ...], re.Pattern[str], bool, str]
_SCANS: tuple[_Scan, ...] = tuple(
    (
        what,
        literals,
        pattern,
        bool(pattern.flags & re.IGNORECASE),
        next((c for c in "_-." if all(c in literal for literal in literals)), ""),
    )
    for what, literals, pattern in PATTERNS
)


def _holds(text: str, lower: str, scan: _Scan) -> bool:
    where = lower if scan[3] else text
    if scan[4] and scan[4] not in where:
        return False
    return any(literal in where for literal in scan[1])


def _scan(
    text: str,
    scans: Sequence[_Scan],
    prefilter: bool,
    found: dict[str, int],
    line_of: object,
) -> None:
    lower = text.lower() if prefilter else ""
    for scan in scans:
        what, _literals, pattern, _folded, _mark = scan
        if what in found:
            continue
        if prefilter and not _holds(text, lower, scan):
            continue
        match = pattern.search(text)
        if match:
            found[what] = line_of(match.start())  # type: ignore[operator]


def _joined_lines(text: str, lower: str, scans: Sequence[_Scan]) -> list[tuple[int, str]]:
    """Each line whose last word holds a literal of ``scans``, that word joined with
    the next line's first word (its line number, the joined words). A private
    key's header is one line and not looked for here."""
    ends: set[int] = set()
    for what, literals, _pattern, folded, _mark in scans:
        if what == PATTERNS[0][0]:
            continue
        where = lower if folded else text
        for literal in literals:
            start = where.find(literal)
            while start != -1:
                end = text.find("\n", start)
                if end != -1:
                    ends.add(end)
                start = where.find(literal, start + 1)
    joined = []
    for end in sorted(ends):
        stop = end  # before a CRLF's carriage return or a continuation backslash
        while stop > 0 and text[stop - 1] in "\r\\":
            stop -= 1
        head = stop
        while head > 0 and not text[head - 1].isspace():
            head -= 1
        word = text[head:stop]
        if word:
            rest = _continued(text, end)
            if rest:
                joined.append((text.count("\n", 0, end) + 1, word + rest))
    return joined


#: How many lines a credential is followed over (a key wrapped at a narrow width).
_WRAPPED_LINES = 4


def _continued(text: str, end: int) -> str:
    """The words that carry on a credential cut at the newline at ``end``: the
    next line's first word, and while a word is all its line holds, the one
    after it too (up to ``_WRAPPED_LINES`` lines in all)."""
    out = ""
    for _ in range(_WRAPPED_LINES - 1):
        after = _LEADING_SPACE.match(text, end + 1)
        rest = _TOKEN_CHARS.match(text, after.end() if after else end + 1)
        if rest is None:
            break
        out += rest.group()
        tail = rest.end()
        while tail < len(text) and text[tail] in "\r\\":
            tail += 1
        if tail >= len(text) or text[tail] != "\n":
            break
        end = tail
    return out


def _decoded_runs(text: str, prefilter: bool = True) -> list[tuple[int, str]]:
    """Long base64 runs of ``text`` decoded, when they decode to text."""
    decoded: list[tuple[int, str]] = []
    if prefilter and not _holds_run(text):
        return decoded
    for match in _BASE64_RUN.finditer(text):
        run = match.group().rstrip("=")
        alphabet = "-_" if ("-" in run or "_" in run) else "+/"
        if alphabet == "-_" and ("+" in run or "/" in run):
            continue
        padded = run[: len(run) - len(run) % 4] if len(run) % 4 == 1 else run
        padded += "=" * (-len(padded) % 4)
        try:
            raw = base64.b64decode(padded, altchars=alphabet.encode(), validate=True)
        except (binascii.Error, ValueError):
            continue
        try:
            plain = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if plain.isprintable() or all(c.isprintable() or c in "\n\r\t" for c in plain):
            decoded.append((text.count("\n", 0, match.start()) + 1, plain))
    return decoded
