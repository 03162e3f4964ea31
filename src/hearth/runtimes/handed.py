"""What each runtime is handed at session start, counted by the code that hands it.

``hearth status`` (and the Health page, and ``GET /v1/status``) show it for each
runtime hearth knows: the characters and approximate tokens of the text, and
each hot file cut or left out (characters kept of the file's, the line of the
file where the cut falls). The counts come from the functions that build the
text: ``agent_context.session_handed`` (the session-start hook of Claude Code,
Codex and Gemini CLI, within the runtime's limit) and ``prompt_handed`` here
(MCP's ``session_start`` prompt, which Cursor and OpenCode take), over the
main context bundle as ``/v1/context`` answers it. OpenClaw reads the home's
files itself at its own bootstrap; hearth builds nothing for it, so it is not
counted here (docs/runtimes.md).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from hearth.domain import context
from hearth.domain.settings import ContextBounds
from hearth.errors import HearthError
from hearth.runtimes import agent_context as ac
from hearth.runtimes.known import RUNTIMES, Runtime
from hearth.runtimes.wired import wired_runtimes

MCP_INSTRUCTIONS = """\
hearth is this assistant's home: its persona (SOUL.md, IDENTITY.md, AGENTS.md, \
TOOLS.md), what it knows about its person (USER.md) and its long-term memory \
(MEMORY.md, memory/topics/, daily notes in memory/), as Markdown in git. Every \
change is one commit with the actor recorded.

At session start call `context` (or use the session_start prompt) and `review`. \
Before answering from memory, `search`, then `read` the lines you need. Record \
what happened with `note`; keep USER.md and MEMORY.md current one line at a time \
with `memory`; put longer notes in `topic`; track unfinished threads with \
`add_loop` / `resolve_loop`; record what the person and you settled with \
`decide` (check `decisions` first). Changes to who the assistant is go through \
`propose`: a person merges them. What you write into a persona or memory file \
yourself is recorded as an agent's change, which the person sees and can undo \
(a home may keep those files to proposals for agents); the person's own loops \
and decisions are theirs: you cannot resolve or withdraw them, and `decide` on \
the title of one of theirs proposes the change. Errors are JSON {"error": {"code", "message"}}; \
read the message, it says what to do."""

#: Characters per token, roughly, for English prose: the count shown is an
#: estimate (each runtime's tokenizer differs, other scripts take more tokens).
CHARS_PER_TOKEN = 4


def approx_tokens(chars: int) -> int:
    return -(-chars // CHARS_PER_TOKEN)


def prompt_handed(bundle: Mapping[str, Any]) -> ac.Handed:
    """MCP's ``session_start`` prompt: the instructions, then each hot file as
    the bundle holds it (capped by ``[context]``, cut files marked)."""
    parts = [MCP_INSTRUCTIONS]
    kept = []
    for f in bundle.get("files", []):
        if not isinstance(f, Mapping):
            continue
        text = str(f.get("content") or "").rstrip()
        kept.append(ac.file_handed(f, text, None))
        if f.get("missing"):
            continue
        note = " (cut to fit; read the whole file with `read`)" if f.get("truncated") else ""
        parts.append(f"===== {f['path']}{note} =====\n{text}")
    return ac.Handed("\n\n".join(parts), tuple(kept))


def handed(runtime: Runtime, bundle: Mapping[str, Any], home: str) -> tuple[str, ac.Handed]:
    """How ``runtime`` is handed the session's start, and what it is handed."""
    if runtime.hooks:
        return "session-start hook", ac.session_handed(bundle, runtime.session_chars, home)
    return "MCP prompt session_start", prompt_handed(bundle)


def runtime_rows(
    bundle: Mapping[str, Any], home: str, wired: Collection[str]
) -> list[dict[str, Any]]:
    """Each runtime's row of ``status.runtimes``: how it is handed the session's
    start, the text's size, and each file cut or left out."""
    rows = []
    for runtime in RUNTIMES.values():
        how, given = handed(runtime, bundle, home)
        rows.append(
            {
                "runtime": runtime.name,
                "wired": runtime.name in wired,
                "handed_by": how,
                "limit": runtime.session_chars if runtime.hooks else None,
                "chars": len(given.text),
                "approx_tokens": approx_tokens(len(given.text)),
                "cut": [
                    dict(f.__dict__) for f in given.files if f.left_out or f.cut_line is not None
                ],
            }
        )
    return rows


def home_rows(
    read: Callable[[str], bytes | None], bounds: ContextBounds, home: Path
) -> list[dict[str, Any]]:
    """``runtime_rows`` for the home at ``home`` as its files are now: the main
    bundle built by ``context.bundle`` within ``[context]``'s ``bounds`` from
    the hot files ``read`` gives, without the reconcile pass a ``/v1/context``
    runs first (a status answers at once). A hot file that cannot be read (the
    pass names it) is counted as missing."""
    texts: list[tuple[str, str | None]] = []
    for path in context.hot_files("main"):
        try:
            data = read(path)
        except HearthError:
            data = None
        texts.append((path, None if data is None else data.decode("utf-8", "replace")))
    bundle = context.bundle("main", texts, bounds.file_chars, bounds.total_chars)
    return runtime_rows(bundle.as_dict(), str(home), wired_runtimes(home))
