"""What each runtime is handed, as ``hearth status`` and ``hearth context
--explain`` print it: the session-start text's size and cuts (``status.runtimes``,
counted by ``runtimes/handed.py``), and for one turn the recall the prompt hook
would add."""

from __future__ import annotations

from typing import Any

import click

from hearth.cli.support import _emit, _State, served_or_local
from hearth.client.printed import row_lines

#: The keys of a context bundle (``/v1/context``, ``hearth context --json``).
BUNDLE_KEYS = ("session", "truncated", "total_chars", "files", "query", "recall")


def explain(
    state: _State, query: str | None, user: str | None, as_json: bool, verbose: bool
) -> None:
    """``hearth context --explain``: for each runtime, the session-start text
    the main bundle becomes and, given ``query`` (the turn's prompt), the recall
    its prompt hook would add, each counted by the code that builds it."""
    from hearth.domain.context import Session  # noqa: PLC0415
    from hearth.runtimes import agent_context as ac  # noqa: PLC0415
    from hearth.runtimes.handed import approx_tokens, runtime_rows  # noqa: PLC0415
    from hearth.runtimes.known import RUNTIMES  # noqa: PLC0415
    from hearth.runtimes.wired import wired_runtimes  # noqa: PLC0415

    def bundle(session: Session, q: str | None) -> dict[str, Any]:
        params: dict[str, str | int | None] = {"session": session, "q": q, "user": user}
        if session != "main":
            params.pop("user")
        return served_or_local(
            state,
            "context",
            params,
            BUNDLE_KEYS,
            lambda: state.app().context(session, q, user if session == "main" else None).as_dict(),
            verbose,
        )

    root = state.root
    rows = runtime_rows(bundle("main", None), str(root), wired_runtimes(root))
    recalls: dict[str, dict[str, Any]] = {}
    for row in rows:
        runtime = RUNTIMES[row["runtime"]]
        if query is None or not runtime.hooks:
            continue
        q = ac.prompt_of(runtime, {"prompt": query})
        if q not in recalls:
            _path, params = ac.request_for("prompt", q)
            recalls[q] = bundle("main" if params["session"] == "main" else "subagent", q)
        given = ac.recall_handed(recalls[q], runtime.recall_chars)
        row["recall"] = {
            "chars": len(given.text),
            "approx_tokens": approx_tokens(len(given.text)),
            "limit": runtime.recall_chars,
            "passages": [dict(p.__dict__) for p in given.files],
        }
    data = {"query": query, "runtimes": rows}
    head = f"what each runtime is handed{f' for the prompt {query!r}' if query else ''}:"
    _emit(as_json, data, lambda: "\n".join([head] + [ln for r in rows for ln in row_lines(r)]))


def no_explain_of_subagent(session: str) -> None:
    if session != "main":
        raise click.UsageError("--explain shows the main session's bundle; leave out --session")
