"""``hearth agent-hook`` as one request to the home's running server.

A runtime runs the hook before every prompt a person sends and waits for it,
so its start-up is felt at every turn. When the home's server runs, the
launcher (``hearth.launch``) comes here without loading click, the CLI,
pydantic or the application: the hook input read from stdin goes to
``POST /v1/hooks/agent/{runtime}/{event}`` over the home's socket with the
server's hook key, and the line the server answers (the same flow as the
command's own, ``runtimes/hook_answer.py``) is printed as it is.

Anything else (no server, a refusal, a server still starting or whose index is
catching up, an answer not understood) answers None, and the command does it
as before: it starts a server on demand or opens the home itself, and never
fails the runtime's turn.
"""

from __future__ import annotations

import json

from hearth.client import transport

#: The route (``api/hooks.py``'s ``AGENT_PATH``).
PATH = "/v1/hooks/agent/{runtime}/{event}"
#: Seconds to wait for the whole answer: the server waits up to three for its
#: index. A server that does not answer in time (stopped, stuck) gets the turn
#: no answer at all rather than a second wait for the command's own
#: (docs/hooks.md).
TIMEOUT = 5.0


class _Run:
    #: Whether the running server already said it has no current answer.
    asked = False


def asked() -> bool:
    """Whether this process already asked the running server for the hook's
    answer and it had none to give (503: starting, or its index still catching
    up after waiting): the command (``cli/agents.py``) then answers it itself
    rather than wait for the server again. A server without the hook's route
    (an older hearth's, still running after an upgrade) is asked the old way."""
    return _Run.asked


def ask(
    server: transport.Server, runtime: str, event: str, raw: str, home: str | None
) -> str | None:
    """The server's line for the hook (``""`` when it adds nothing); None when it
    gave no answer to take."""
    body = {"input": raw} if home is None else {"input": raw, "home": home}
    path = PATH.format(runtime=runtime, event=event)
    headers = {
        "Authorization": f"Bearer {server.key}",
        "Content-Type": "application/json",
        "Accept": "application/json",
    }
    try:
        status, _headers, answer = transport.exchange(
            server, "POST", path, headers, json.dumps(body).encode(), TIMEOUT
        )
        data = json.loads(answer) if status == 200 else None
    except TimeoutError:
        import sys  # noqa: PLC0415  (built in: free)

        sys.stderr.write(
            f"hearth agent-hook: the home's server at {server.url} did not answer in "
            f"{TIMEOUT:.0f} s; this turn goes on without recall\n"
        )
        return ""
    except (OSError, ValueError):
        return None
    if status == 503:
        _Run.asked = True
    if not isinstance(data, dict) or "output" not in data:
        return None
    output = data["output"]
    if output is None:
        return ""
    return output if isinstance(output, str) else None


def run(home: str, runtime: str, event: str) -> bool:
    """The hook answered by the running server of ``home`` (an absolute path):
    True when printed; False when the command is to do it, with ``sys.stdin``
    holding the same input again."""
    import io  # noqa: PLC0415  (built in: free)
    import sys  # noqa: PLC0415

    server = transport.find(home)
    if server is None:
        return False  # stdin untouched
    stdin = sys.stdin
    data = stdin.buffer.read()

    def again() -> io.TextIOWrapper:
        # The input as the command reads it: the same decoding, newlines and errors.
        return io.TextIOWrapper(io.BytesIO(data), encoding=stdin.encoding, errors=stdin.errors)

    line = None
    try:
        raw: str | None = again().read()
    except ValueError:
        raw = None  # the command says why
    if raw is not None:
        line = ask(server, runtime, event, raw, home if event == "session-start" else None)
    if line is None:
        sys.stdin = again()
        return False
    sys.stdout.write(line)
    return True
