"""A runtime's hook input in, the line ``hearth agent-hook`` prints out.

One flow for both places that answer a hook: the home's running server
(``POST /v1/hooks/agent/{runtime}/{event}``, which the lean launcher asks,
``client/hook.py``) and the command itself when no server answers (with the
home opened in-process). Each hands it the context bundle its own way; the
text (``agent_context``) and the line are the same bytes either way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from hearth.runtimes import agent_context as ac
from hearth.runtimes.known import RUNTIMES, Event

#: The runtimes that take hooks (``agent-hook``'s RUNTIME argument).
HOOKED = tuple(name for name, r in RUNTIMES.items() if r.hooks)
#: A prompt shorter than this is not searched: nothing is added to it.
MIN_PROMPT = 3

#: Gets the bundle (``/v1/context``'s JSON) of a session, for a query or none.
Bundle = Callable[[str, str | None], Mapping[str, Any]]


def hook_input(raw: str) -> dict[str, Any]:
    """The runtime's hook JSON (empty input: an empty object); ValueError otherwise."""
    found = json.loads(raw) if raw.strip() else {}
    if not isinstance(found, dict):
        raise ValueError("the hook input is not a JSON object")
    return found


def answer(runtime: str, event: str, raw: str, bundle: Bundle, home: str) -> str | None:
    """What ``agent-hook RUNTIME EVENT`` prints for the hook input ``raw`` (a line
    of JSON), or None when it adds nothing. ``home`` is named in the session text.
    Raises ValueError (KeyError for an unknown runtime) for input it cannot take."""
    spec = RUNTIMES[runtime]
    if runtime not in HOOKED:
        raise KeyError(runtime)
    chosen: Event = "session-start" if event == "session-start" else "prompt"
    given = hook_input(raw)
    query = ac.prompt_of(spec, given) if chosen == "prompt" else ""
    if chosen == "prompt" and len(query) < MIN_PROMPT:
        return None
    _path, params = ac.request_for(chosen, query)
    session = "main" if params["session"] == "main" else "subagent"
    found = bundle(session, query or None)
    limit = ac.limit_for(spec, chosen)
    if chosen == "session-start":
        text = ac.session_text(found, limit, home)
    else:
        text = ac.recall_text(found, limit)
    output = ac.hook_output(spec, chosen, text)
    return None if output is None else json.dumps(output, ensure_ascii=False) + "\n"
