"""The secret guard: hearth's patterns against detect-secrets (issue 49).

    .venv/bin/python bench/secret_guard.py LOCOMO_DIR [--repeat N]

Three figures for each detector:

- **cases**: which of the credentials below it refuses (the issue's list and
  the kinds the guard has always refused);
- **false positives**: lines of ordinary text it flags, over every line of
  LOCOMO_DIR's conversations (each turn, date, summary, observation, question
  and answer, read in place) and of ``home_template/``;
- **cost**: seconds per MB of that text, scanned file by file as the
  pre-commit hook does (best of ``--repeat`` runs; timings vary with load).

detect-secrets is optional (``pip install detect-secrets``); without it only
hearth's figures are printed. Asserts nothing; prints figures.
"""

from __future__ import annotations

import argparse
import base64
import json
import time
from pathlib import Path
from typing import Any

from hearth.domain import secret_text

ROOT = Path(__file__).resolve().parent.parent
_GH = "ghp_" + "x1Y2z3W4v5U6t7S8r9Q0p1O2n3M4l5K6j7I8"
#: (name, text): every one a credential a commit must never carry.
CASES = [
    ("hearth API token", "token: hth_" + "q3Jx_k9Lm2Np4Rs6Tv8Wx0Yz1Ab3Cd5Ef7Gh9Ij1Kl"),
    ("hearth hook key", '{"hook_key": "hthk_' + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8Ba7Zy" + '"}'),
    ("hearth local token", "hearth-local.admin.bWU." + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8Ba7Zy"),
    ("AWS secret key", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("base64 GitHub token", "auth: " + base64.b64encode(f"bot:{_GH}".encode()).decode()),
    ("key over two lines", f"my token is {_GH[:20]}\n{_GH[20:]}\n"),
    ("private key, two spaces", "-----BEGIN  RSA PRIVATE KEY-----\nMIIEow\n"),
    ("private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA\n"),
    ("AWS access key id", "key AKIAIOSFODNN7EXAMPLE here"),
    ("GitHub token", f"token {_GH}"),
    ("Slack token", "xoxb-123456789012-abcdefABCDEF"),
    ("OpenAI key", "sk-proj-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"),
]


def locomo_lines(folder: Path) -> list[str]:
    """Every string of every conversation, as the lines it holds."""
    lines: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            lines.extend(value.splitlines())
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted(folder.glob("*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    return lines


def template_texts() -> list[str]:
    return [
        p.read_text(encoding="utf-8")
        for p in sorted((ROOT / "home_template").rglob("*"))
        if p.is_file() and p.suffix in (".md", ".toml", ".txt", "")
    ]


def hearth_flags(text: str) -> list[int]:
    return [line for line, _what in secret_text.find(text)]


def detect_secrets_flags() -> Any:
    try:
        from detect_secrets.core.scan import scan_file
        from detect_secrets.settings import default_settings
    except ImportError:
        return None
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="secret-guard-"))

    def flags(text: str) -> list[int]:
        # As its pre-commit hook runs it: a file (a note is markdown), its
        # default plugins and filters.
        path = folder / "note.md"
        path.write_text(text, encoding="utf-8")
        with default_settings():
            return sorted({secret.line_number for secret in scan_file(str(path))})

    return flags


def measure(name: str, flags: Any, texts: list[str], repeat: int) -> None:
    caught = [case for case, text in CASES if flags(text)]
    missed = [case for case, _text in CASES if case not in caught]
    lines = sum(text.count("\n") + 1 for text in texts)
    flagged = []
    for text in texts:
        rows = text.splitlines()
        flagged += [rows[n - 1] for n in flags(text) if 0 < n <= len(rows)]
    size = sum(len(text.encode()) for text in texts) / 1e6
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for text in texts:
            flags(text)
        best = min(best, time.perf_counter() - start)
    print(f"## {name}")
    print(f"cases refused: {len(caught)} of {len(CASES)}; missed: {', '.join(missed) or 'none'}")
    print(f"false positives: {len(flagged)} of {lines} lines")
    for row in flagged[:10]:
        print(f"    {row[:100]!r}")
    print(f"cost: {best / size:.3f} s per MB ({size:.2f} MB, best of {repeat})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("locomo", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    # One text per conversation turn block as a home holds it: a day's note of
    # a few hundred lines each.
    lines = locomo_lines(args.locomo)
    texts = ["\n".join(lines[i : i + 200]) for i in range(0, len(lines), 200)]
    texts += template_texts()
    measure("hearth's patterns", hearth_flags, texts, args.repeat)
    other = detect_secrets_flags()
    if other is None:
        print("## detect-secrets: not installed (pip install detect-secrets)")
    else:
        measure("detect-secrets 1.5 (default plugins)", other, texts, 1)


if __name__ == "__main__":
    main()
