"""What markdown reads as one block, as far as entries need it.

Where a fenced code block runs (``unfenced``), and which line right after a
list item's text is still that item's (``continues``): markdown reads a line
indented deeper as the item's, and a line at the item's depth or less too (a
lazy continuation line, what nano's hard wrap, ``fmt`` of a list or a person
pressing Enter in a plain editor writes) unless it starts a block of its own.
Pure: lines in, answers out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def unfenced(lines: Sequence[str]) -> list[bool]:
    """For each line, whether it lies outside a fenced code block (fences included: no)."""
    outside: list[bool] = []
    fence: str | None = None
    for line in lines:
        marker = _FENCE.match(line)
        if fence is None and marker:
            fence = marker.group(1)[0] * 3
            outside.append(False)
        elif fence is not None:
            if marker and marker.group(1).startswith(fence):
                fence = None
            outside.append(False)
        else:
            outside.append(True)
    return outside


#: What starts a block of its own at an entry's depth or less, so is no lazy
#: continuation of the entry's text: a heading, a bullet (``-``, ``*``, ``+``,
#: numbered; an empty one too), a thematic break or setext underline (``---``,
#: ``___``, ``***``), a quote, an HTML block that may cut a paragraph (a
#: comment, as hearth's templates write), a code fence.
_STARTS_BLOCK = re.compile(
    r"^(?:`{3,}|~{3,}|#{1,6}(?:[ \t]|$)|[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)"
    r"|(?:-[ \t]*){3,}$|(?:_[ \t]*){3,}$|(?:\*[ \t]*){3,}$|>"
    r"|<(?:!|\?|/?(?:script|pre|style|textarea|div|p|table|details|section|ul|ol|li|h[1-6])\b))",
    re.IGNORECASE,
)


def continues(line: str, depth: int) -> bool:
    """Whether ``line``, right after a line of an entry that stands at ``depth``,
    is still that entry's: indented deeper (a continuation or a sub-bullet), or
    a lazy continuation line, which markdown reads as the text above it even at
    the margin (a hard wrap by nano, ``fmt`` or a person pressing Enter) unless
    it starts a block of its own. A blank line ends the entry."""
    said = line.rstrip()  # a CRLF file read as it is: ``$`` does not match before "\r"
    if not said:
        return False
    # Measured from the line's own text: an entry indented four spaces or more
    # (re-indented by a person) is followed by its siblings as deep.
    bare = said.lstrip()
    return len(said) - len(bare) > depth or not _STARTS_BLOCK.match(bare)
