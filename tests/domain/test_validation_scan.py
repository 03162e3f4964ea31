"""The secret rules' prefilters change no finding: the same failures as running every
pattern on every text, and ``fnmatch`` on every name."""

from __future__ import annotations

import fnmatch

from hypothesis import given, settings
from hypothesis import strategies as st

from hearth.domain import secret_text
from hearth.domain.text import with_article
from hearth.domain.validation import (
    _SECRET_NAME_PATTERNS,
    Bounds,
    check_path,
    check_text,
)
from hearth.errors import RuleFailure
from tests.conftest import examples


def reference(path: str, text: str) -> list[tuple[str, str]]:
    """The secret findings without any prefilter: ``(rule, message)`` each."""
    found = []
    name = path.rsplit("/", 1)[-1]
    if any(fnmatch.fnmatchcase(name.lower(), p) for p in _SECRET_NAME_PATTERNS):
        message = f"files named like {name!r} hold credentials and must never enter history"
        found.append(("secret-file", message))
    for line, what in secret_text.find(text, prefilter=False):
        found.append(("secret-text", f"line {line} looks like {with_article(what)}"))
    return found


def secrets_of(failures: list[RuleFailure]) -> list[tuple[str, str]]:
    return [(f.rule, f.message) for f in failures if f.rule.startswith("secret")]


FRAGMENT = st.one_of(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzAKSIGHPZ0123456789_- \n\t.:=", max_size=30),
    st.text(max_size=10),
    st.sampled_from(
        [
            "-----BEGIN ",
            "-----BEGIN RSA PRIVATE KEY-----",
            "-----BEGIN OPENSSH PRIVATE KEY BLOCK-----",
            "-----BEGIN PUBLIC KEY-----",
            "AKIA",
            "ASIA",
            "AKIAIOSFODNN7EXAMPLE",
            "ASIAIOSFODNN7EXAMPLEX",
            "ghp_",
            "gho_" + "a" * 36,
            "github_pat_" + "b" * 40,
            "ghx_" + "c" * 36,
            "glpat-",
            "glpat-" + "x" * 20,
            "xox",
            "xoxb-1234567890-abc",
            "xoxz-1234567890",
            "AIza",
            "AIza" + "d" * 35,
            "sk-",
            "sk-ant-" + "e" * 32,
            "sk-proj-" + "f" * 31,
            "task-" + "g" * 40,
            "k_live_",
            "sk_live_" + "h" * 20,
            "rk_live_" + "i" * 19,
            "pk_live_" + "j" * 20,
            "hth_",
            "hthk_" + "k" * 43,
            "hearth-local.admin.YQ.",
            "AWS_SECRET_ACCESS_KEY=",
            "aws",
            "l" * 40,
            "Z2hwX2FhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFh",
            "Z2xwYXQteHh4eHh4eHh4eHh4eHh4eHh4eHg=",  # glpat- and 20: 35 characters of base64
            "A",
            "_",
            "-",
            "\n",
        ]
    ),
)
NAME = st.one_of(
    st.sampled_from(
        [
            "notes.md",
            ".env",
            ".ENV.local",
            "server.pem",
            "id.KEY",
            "a.key.md",
            "cert.p12",
            "x.PFX",
            "env",
            ".envrc",
            "[a].pem",
        ]
    ),
    st.text(alphabet="abc.envpmkyfx*?[]", min_size=1, max_size=12),
)


@settings(max_examples=examples(1000))
@given(st.lists(FRAGMENT, max_size=20), st.sampled_from(["", "memory/", "keys/"]), NAME)
def test_the_secret_rules_find_what_every_pattern_finds(
    fragments: list[str], folder: str, name: str
) -> None:
    text = "".join(fragments)
    path = folder + name
    got = secrets_of(check_text(path, text, Bounds()))
    assert got == reference(path, text)


def test_the_comparison_sees_findings() -> None:
    # The property above compares something: these texts and names have findings.
    text = "x\n-----BEGIN RSA PRIVATE KEY-----\nAKIAIOSFODNN7EXAMPLE sk_live_" + "h" * 20
    assert len(reference("keys/.env", text)) == 4
    assert secrets_of(check_text("keys/.env", text, Bounds())) == reference("keys/.env", text)
    assert [f.rule for f in check_path("a/b/SERVER.PEM")] == ["secret-file"]
    assert check_path("a/b/server.pem.md") == []
