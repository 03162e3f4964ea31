"""What ``hearth agent-hook`` hands a runtime: the persona at session start and
the recall for each prompt, as text within the runtime's limit.

The input is the context bundle as ``/v1/context`` answers it (the same JSON
in-process or from the running server). The session text puts the files
that say who the assistant is and for whom first, because a runtime that cuts
context cuts the end: SOUL, IDENTITY, USER, AGENTS, MEMORY, ACTIVE, then
TOOLS (the runtime brings its own tools). No file may take more than
``FILE_SHARE`` of the limit while others wait, what one leaves goes to the
next, and every cut says so in the text. The recall text lists the hits
search judged evidence for the prompt (above the relevance floor,
``index/floor.py``), at most ``RECALL_PASSAGES``, with path and line range;
it is empty when none is (or none outside the session's own files), so the
prompt gets nothing rather than noise, and it is never padded to the limit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from hearth.catalogue import route_of
from hearth.domain import layout
from hearth.domain.context import cut
from hearth.runtimes.known import Event, Runtime

PRIORITY = (
    "SOUL.md",
    "IDENTITY.md",
    "USER.md",
    "AGENTS.md",
    "MEMORY.md",
    layout.ACTIVE_PATH,
    "TOOLS.md",
)
#: The most of the session limit one file takes before the files after it had theirs.
FILE_SHARE = 0.4
#: Passages a prompt's recall shows at most.
RECALL_PASSAGES = 3
#: Characters of a prompt used as the search query.
QUERY_CHARS = 500
_HOOK_CONTEXT = re.compile(r"<hook_context>.*?</hook_context>", re.DOTALL)


def session_text(bundle: Mapping[str, Any], limit: int, home: str) -> str:
    """The main bundle's files as one text of at most ``limit`` characters."""
    head = (
        f"# hearth: the assistant's home ({home})\n"
        "Your persona and memory, kept by hearth in git. Search and write them with "
        "the hearth MCP tools; what you are told below is a bounded excerpt.\n"
    )
    files = {f["path"]: f for f in bundle.get("files", []) if isinstance(f, Mapping)}
    order = [p for p in PRIORITY if p in files] + [p for p in files if p not in PRIORITY]
    missing = [p for p in order if files[p].get("missing")]
    present = [p for p in order if not files[p].get("missing") and files[p].get("content")]
    tail = f"\n(not in the home: {', '.join(missing)})\n" if missing else ""
    remaining = limit - len(head) - len(tail)
    parts = [head]
    for index, path in enumerate(present):
        title = f"\n## {path}\n"
        room = remaining - len(title) - 1
        later = len(present) - index - 1
        share = room if later == 0 else max(int(limit * FILE_SHARE), room // (later + 1))
        content = str(files[path]["content"]).strip()
        text, _ = cut(path, content, min(room, share))
        if not text:
            parts.append(f"\n[… hearth left out {path}: over the {limit}-character limit …]\n")
            remaining -= len(parts[-1])
            continue
        parts.append(title + text + "\n")
        remaining -= len(parts[-1])
    return ("".join(parts) + tail)[:limit]


def recall_text(bundle: Mapping[str, Any], limit: int) -> str:
    """The passages recalled for the prompt, best first, or "" when none."""
    session_files = set(PRIORITY)
    passages = [
        p
        for p in bundle.get("recall", [])
        if isinstance(p, Mapping) and p.get("path") not in session_files and p.get("text")
    ][:RECALL_PASSAGES]
    if not passages:
        return ""
    head = "# hearth recalled for this prompt (from the assistant's memory; cite path:lines)\n"
    parts = [head]
    remaining = limit - len(head)
    for p in passages:
        where = f"\n## {p['path']}:{p['start_line']}-{p['end_line']}\n"
        room = remaining - len(where) - 1
        text, was_cut = cut(str(p["path"]), str(p["text"]).strip(), room)
        if not text or (was_cut and len(text) < 200):
            break  # a sliver of a passage says nothing
        parts.append(where + text + "\n")
        remaining -= len(parts[-1])
    return "".join(parts) if len(parts) > 1 else ""


def prompt_of(runtime: Runtime, hook_input: Mapping[str, Any]) -> str:
    """The person's prompt from the runtime's hook input, as a search query."""
    prompt = hook_input.get("prompt")
    if not isinstance(prompt, str):
        return ""
    if runtime.strips_hook_context:
        prompt = _HOOK_CONTEXT.sub(" ", prompt)
    return " ".join(prompt.split())[:QUERY_CHARS]


def hook_output(runtime: Runtime, event: Event, text: str) -> dict[str, Any] | None:
    """The runtime's hook answer carrying ``text``; None when there is nothing to add."""
    if not text:
        return None
    spec = next(h for h in runtime.hooks if h.event == event)
    return {"hookSpecificOutput": {"hookEventName": spec.runtime_event, "additionalContext": text}}


def limit_for(runtime: Runtime, event: Event) -> int:
    return runtime.session_chars if event == "session-start" else runtime.recall_chars


def request_for(event: Event, query: str) -> tuple[str, dict[str, str | int | None]]:
    """The ``context`` operation's route (the catalogue's) and its arguments (the
    in-process call's too) for an event."""
    path = route_of("context")
    if event == "session-start":
        return path, {"session": "main", "q": None}
    return path, {"session": "subagent", "q": query}


def runtimes_with_hooks(runtimes: Sequence[Runtime]) -> list[str]:
    return [r.name for r in runtimes if r.hooks]
