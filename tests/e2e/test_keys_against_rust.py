"""The key oracle (tests/domain/lionclaw_port.py) against Rust itself.

Compiles a few lines of Rust that call the std functions LionClaw's key code
is made of (``split_whitespace``, ``to_ascii_lowercase``, ``is_ascii_alphanumeric``,
``trim_matches``) and compares, over thousands of titles, its normalized titles
and slugs with the port's and with hearth's. Skipped where no ``rustc`` is found.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from hearth.domain import keys
from tests.domain import lionclaw_port as port

RUSTC = shutil.which("rustc")
# rustup finds its toolchains under the user's home, which the tests replace.
RUST_ENV = {
    "RUSTUP_HOME": os.environ.get("RUSTUP_HOME", str(Path.home() / ".rustup")),
    "CARGO_HOME": os.environ.get("CARGO_HOME", str(Path.home() / ".cargo")),
}

# Reads hex-encoded UTF-8 titles, one per line; writes "<normalized hex> <slug hex>".
ORACLE = r"""
use std::io::{self, BufRead, Write};

fn to_hex(text: &str) -> String {
    text.bytes().map(|b| format!("{:02x}", b)).collect()
}

fn from_hex(hex: &str) -> String {
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect::<Vec<u8>>();
    String::from_utf8(bytes).unwrap()
}

fn main() {
    let mut out = io::stdout();
    for line in io::stdin().lock().lines() {
        let title = from_hex(line.unwrap().trim());
        let normalized = title
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .trim()
            .to_ascii_lowercase();
        let mut slug: String = normalized
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
            .collect();
        while slug.contains("--") {
            slug = slug.replace("--", "-");
        }
        let slug = slug.trim_matches('-').to_string();
        writeln!(out, "{} {}", to_hex(&normalized), to_hex(&slug)).unwrap();
    }
}
"""


def _titles(count: int) -> list[str]:
    rng = random.Random(13)
    pool = [
        chr(c)
        for c in (
            *range(0x00, 0x250),
            *range(0x1680, 0x1690),
            *range(0x180B, 0x1810),
            *range(0x2000, 0x2070),
            0x3000,
            0xFEFF,
            0x1F600,
            0x10FFFF,
        )
    ]
    titles = ["", "   ", "CAFÉ au lait", "a\x1cb\x1fc", "x\x85y", "İı ſ K"]
    titles += ["".join(rng.choice(pool) for _ in range(rng.randint(0, 16))) for _ in range(count)]
    return titles


@pytest.mark.skipif(RUSTC is None, reason="rustc is not installed")
def test_port_and_hearth_agree_with_rust(tmp_path: Path) -> None:
    assert RUSTC is not None
    source = tmp_path / "oracle.rs"
    source.write_text(ORACLE)
    binary = tmp_path / "oracle"
    subprocess.run(
        [RUSTC, "-O", "-o", str(binary), str(source)],
        check=True,
        timeout=300,
        env={**os.environ, **RUST_ENV},
    )
    titles = _titles(5000)
    answer = subprocess.run(
        [str(binary)],
        input="".join(t.encode().hex() + "\n" for t in titles),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.splitlines()
    assert len(answer) == len(titles)
    for title, line in zip(titles, answer, strict=True):
        normalized_hex, slug_hex = line.split(" ")
        normalized = bytes.fromhex(normalized_hex).decode()
        slug = bytes.fromhex(slug_hex).decode()
        assert port.normalized_title_key(title) == normalized, repr(title)
        assert port.sanitize_slug(normalized) == slug, repr(title)
        assert keys.normalized_title_key(title) == normalized, repr(title)
        assert keys.record_key(title).rsplit("--", 1)[0] == (slug or "item"), repr(title)
