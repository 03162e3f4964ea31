"""Record keys, computed exactly as LionClaw computes them.

A record's key is its file stem, ``{slug}--{uuid5}``, so the same title gives
the same file in hearth and in LionClaw (crates/lionclaw/src/kernel/
continuity.rs: ``normalized_title_key``, ``sanitize_slug``, ``title_file_name``):

- the *normalized title* is the title's words, split on Unicode whitespace as
  Rust's ``str::split_whitespace`` splits (the ``White_Space`` property, which
  is not what Python's ``str.split`` uses: Python also splits on U+001C..U+001F),
  joined by one space, with ASCII letters lower-cased and every other
  character kept as it is;
- the *slug* maps each ASCII letter or digit to itself (lower-cased) and every
  other character to ``-``, collapses runs of ``-``, trims them, and is
  ``item`` when nothing is left; it has no length cap;
- the UUID is version 5, of the normalized title's UTF-8 bytes, in namespace
  ``5f026ae9-551b-4d3e-a511-f0f2d74cf241``.

Homes written by older hearth releases used another slug (Unicode
lower-casing, ASCII folding, a 60-character cap) and Python's whitespace.
Those *legacy keys* are still recognised, so such homes keep working, and
``hearth check --fix-keys`` renames their files to the keys above.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
import uuid

from hearth.domain.paths import MAX_COMPONENT_BYTES

KEY_NAMESPACE = uuid.UUID("5f026ae9-551b-4d3e-a511-f0f2d74cf241")

#: A title's bound, so that every record can be archived: its archive file is
#: ``{slug}--{uuid5}--{uuid4}.md`` (layout.archive_path), with a slug of at most one
#: character per title character, and a file name is at most MAX_COMPONENT_BYTES.
MAX_TITLE_CHARS = MAX_COMPONENT_BYTES - 2 * len(f"--{KEY_NAMESPACE}") - len(".md")

#: Unicode's White_Space property (PropList.txt), which Rust's ``char::is_whitespace``
#: and so ``split_whitespace`` use.
WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
#: WHITE_SPACE spelled for inside a regex character class of a schema's pattern.
WHITE_SPACE_CLASS = "".join(f"\\u{ord(c):04x}" for c in WHITE_SPACE)
_WORD = re.compile(f"[^{re.escape(WHITE_SPACE)}]+")
_NOT_ASCII_ALNUM = re.compile("[^A-Za-z0-9]+")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
#: A record's key (the schemas declare it; ``is_key`` enforces it).
KEY_PATTERN = rf"^[a-z0-9]+(?:-[a-z0-9]+)*--{_UUID}$"
_KEY_RE = re.compile(KEY_PATTERN)


def words(title: str) -> list[str]:
    """The title split as Rust's ``split_whitespace`` splits it."""
    return _WORD.findall(title)


def normalized_title_key(title: str) -> str:
    """Words joined by one space, ASCII letters lower-cased: what a key is derived from."""
    return " ".join(words(title)).translate(_ASCII_LOWER)


def sanitize_slug(text: str) -> str:
    """ASCII letters and digits kept (lower-cased), everything else one ``-``, trimmed."""
    return _NOT_ASCII_ALNUM.sub("-", text).translate(_ASCII_LOWER).strip("-")


def _uuid5(name: bytes) -> uuid.UUID:
    # uuid.uuid5 in Python 3.11 takes only str and encodes it strictly; this is
    # the same RFC 4122 computation over the bytes themselves.
    digest = hashlib.sha1(KEY_NAMESPACE.bytes + name, usedforsecurity=False).digest()
    return uuid.UUID(bytes=digest[:16], version=5)


def record_key(title: str) -> str:
    """``{slug}--{uuid5}``: the file stem LionClaw gives a record with this title."""
    normalized = normalized_title_key(title)
    slug = sanitize_slug(normalized) or "item"
    return f"{slug}--{_uuid5(normalized.encode('utf-8', 'surrogatepass'))}"


def is_key(text: str) -> bool:
    return bool(_KEY_RE.fullmatch(text))


LEGACY_SLUG_CHARS = 60


def legacy_record_key(title: str) -> str:
    """The key older hearth releases gave ``title`` (still recognised; see the module doc)."""
    normalized = " ".join(title.split()).lower()
    folded = unicodedata.normalize("NFKD", normalized).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    slug = slug[:LEGACY_SLUG_CHARS].rstrip("-") or "item"
    return f"{slug}--{_uuid5(normalized.encode('utf-8', 'surrogatepass'))}"


def key_of_archive_stem(stem: str) -> str:
    """``{key}--{uuid4}`` -> ``{key}``."""
    return stem.rsplit("--", 1)[0]
