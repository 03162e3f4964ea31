"""An independent port of LionClaw's key functions, written to be read against the
Rust (crates/lionclaw/src/kernel/continuity.rs), character by character, with
none of hearth's code: the oracle the key tests compare hearth with.

- ``normalized_title_key``: ``title.split_whitespace().collect::<Vec<_>>().join(" ")
  .trim().to_ascii_lowercase()``; ``char::is_whitespace`` is Unicode's White_Space
  property, listed here from PropList.txt as code point ranges.
- ``sanitize_slug``: each char ``is_ascii_alphanumeric`` -> ``to_ascii_lowercase``,
  else ``'-'``; ``while contains("--") { replace("--", "-") }``; ``trim_matches('-')``.
- ``title_file_name``: slug, or ``item`` when empty; ``Uuid::new_v5`` of the
  normalized title's UTF-8 bytes in namespace 0x5f026ae9551b4d3ea511f0f2d74cf241.
"""

from __future__ import annotations

import hashlib

# PropList.txt, White_Space.
WHITE_SPACE_RANGES = (
    (0x0009, 0x000D),
    (0x0020, 0x0020),
    (0x0085, 0x0085),
    (0x00A0, 0x00A0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
)
NAMESPACE = bytes.fromhex("5f026ae9551b4d3ea511f0f2d74cf241")


def rust_is_whitespace(ch: str) -> bool:
    return any(low <= ord(ch) <= high for low, high in WHITE_SPACE_RANGES)


def split_whitespace(text: str) -> list[str]:
    words, current = [], ""
    for ch in text:
        if rust_is_whitespace(ch):
            if current:
                words.append(current)
            current = ""
        else:
            current += ch
    if current:
        words.append(current)
    return words


def to_ascii_lowercase(text: str) -> str:
    return "".join(chr(ord(ch) + 32) if "A" <= ch <= "Z" else ch for ch in text)


def is_ascii_alphanumeric(ch: str) -> bool:
    return "a" <= ch <= "z" or "A" <= ch <= "Z" or "0" <= ch <= "9"


def normalized_title_key(title: str) -> str:
    joined = " ".join(split_whitespace(title))
    return to_ascii_lowercase(joined)  # .trim() is a no-op after the join


def sanitize_slug(slug: str) -> str:
    normalized = "".join(
        to_ascii_lowercase(ch) if is_ascii_alphanumeric(ch) else "-" for ch in slug
    )
    while "--" in normalized:
        normalized = normalized.replace("--", "-")
    return normalized.strip("-")


def uuid_v5(name: bytes) -> str:
    digest = bytearray(hashlib.sha1(NAMESPACE + name).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def title_file_name(title: str) -> str:
    normalized = normalized_title_key(title)
    slug = sanitize_slug(normalized) or "item"
    return f"{slug}--{uuid_v5(normalized.encode('utf-8'))}.md"
