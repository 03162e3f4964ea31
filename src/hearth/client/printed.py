"""What the read commands print (``status``, ``search``, ``context``), from the
JSON their answer is: the CLI prints it, and so does the lean read path beside
a running server (``client/read.py``), which loads neither click nor the CLI.
So nothing here imports more than Python starts with; ``counted`` and the
conflicts' folder are spelled here (a test holds them alike with
``domain/text.py`` and ``domain/layout.py``)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs the lean path's start-up
if TYPE_CHECKING:
    from typing import Any

#: ``domain.layout.ENTRY_CONFLICTS_DIR``.
ENTRY_CONFLICTS_DIR = "continuity/conflicts/entries"


def counted(count: int, one: str, many: str | None = None) -> str:
    """``count`` and the noun that agrees with it (``domain.text.counted``)."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def one_line(text: str) -> str:
    """``text`` on one line: ``domain.text.shown(text, keep="")`` (a newline as
    ␊), loaded only for a text that is not plainly printable (a committed name
    may hold a newline that would print a heading the home never said)."""
    if text.isprintable():
        return text
    from hearth.domain.text import shown  # noqa: PLC0415  (rare: such a character)

    return shown(text, keep="")


def status_text(data: dict[str, Any]) -> str:
    """``hearth status``' lines, from its JSON (``server`` included)."""
    index = data["index"]
    lines = [
        f"home: {data['home']}",
        f"branch: {data['branch']}",
        f"head: {(data['head'] or '(no commits)')[:12]}",
        f"dirty: {'yes' if data['dirty'] else 'no'}",
    ]
    lines += [f"  {c['state']}: {c['path']}" for c in data["changes"]]
    server = data["server"]
    lines.append(
        f"server: pid {server['pid']} at {server['url']}, started "
        f"{'on demand' if server['mode'] == 'on-demand' else 'by hearth serve'} "
        f"at {server['started']}"
        if server
        else "server: none running (the next client starts one)"
    )
    lines += [
        f"pending proposals: {data['pending_proposals']}",
        f"open loops: {data['open_loops']}",
        f"active decisions: {data.get('active_decisions', 0)}",
        f"index: {'fresh' if index['fresh'] else 'STALE'}, "
        f"{index['files_indexed']} of {counted(index['files_on_disk'], 'file')}, "
        f"{counted(index['documents'], 'section')}, last reconcile {index['last_reconcile']}",
    ]
    lines += [f"  stale: {why}" for why in index.get("stale_reasons", [])]
    vectors = index.get("vectors")
    if vectors:
        done, sections = vectors["embedded"], vectors["sections"]
        lines.append(
            f"  vectors: all {counted(sections, 'section')} embedded ({vectors['model']})"
            if vectors["complete"]
            else f"  vectors: {done} of {counted(sections, 'section')} embedded "
            f"({done * 100 // max(1, sections)}%; the rest fill in the background, "
            "or with 'hearth reindex')"
        )
    lines += [f"  parked: {one_line(p['path'])}: {p['reason']}" for p in index["parked"]]
    lines += [f"  error: {e}" for e in index["errors"]]
    if index["active_error"]:
        lines.append(f"  {index['active_error']}")
    elif index["active"] != "fresh":
        lines.append(f"  ACTIVE.md: {index['active']} (the next pass writes it again)")
    sync_state = data["sync"]
    if sync_state["upstream"]:
        lines.append(
            f"sync: {sync_state['upstream']}, {sync_state['ahead']} ahead, "
            f"{sync_state['behind']} behind; last {sync_state['last_result'] or 'never'}"
            + (f" at {sync_state['last_time']}" if sync_state["last_time"] else "")
        )
    lines += [conflict_line(c) for c in data["conflicts"]]
    last = data["reflection"]["last"]
    if data["reflection"].get("waiting"):
        lines.append(f"reflection: waiting: {data['reflection']['waiting']}")
    elif data["reflection"]["enabled"] or last:
        outcome = (
            "never"
            if not last
            else (
                f"failed at {last['time']}: {last['error']}"
                if last["error"]
                else f"{counted(len(last['proposed']), 'proposal')} at {last['time']}"
            )
        )
        lines.append(f"reflection: last run {outcome}")
    return "\n".join(lines + handed_lines(data.get("runtimes") or []))


def conflict_line(path: str) -> str:
    """A conflict ``hearth status`` lists: a sync's entry conflict or copy, or an
    entry conflict a plain ``git pull`` left (noted by the merge driver)."""
    if path.startswith(ENTRY_CONFLICTS_DIR + "/"):
        return f"  entry conflict to settle: {path} (hearth memory conflicts)"
    if path.startswith(".git/"):
        name, _, named = path.rsplit("/", 1)[1].removesuffix(".md").rpartition("--")
        return (
            f"  entry conflict {named} in {name.replace('%', '/')}, left by git pull: an entry "
            f"changed two ways; settle with 'hearth memory settle {named}'"
        )
    return f"  conflict copy to resolve: {path}"


def handed_lines(rows: list[dict[str, Any]]) -> list[str]:
    """What each wired runtime is handed at session start (status' ``runtimes``);
    with none wired, what a runtime with hooks would be handed."""
    if not rows:
        return []
    shown = [r for r in rows if r["wired"]]
    lines = ["session start, what each wired runtime is handed:"]
    if not shown:
        shown = [r for r in rows if r["limit"]][:1]
        lines = [
            "session start: no runtime is wired to this home ('hearth setup RUNTIME'); "
            "one with hooks would be handed:"
        ]
    for row in shown:
        lines += row_lines(row)
    return lines


def row_lines(row: dict[str, Any]) -> list[str]:
    how = row["handed_by"] + (f", limit {row['limit']:,}" if row["limit"] else "")
    wired = "" if row["wired"] else " (not wired)"
    lines = [
        f"  {row['runtime']}{wired}: {row['chars']:,} characters, about "
        f"{row['approx_tokens']:,} tokens ({how})"
    ]
    lines += [f"    {cut_line(c)}" for c in row["cut"]]
    recall = row.get("recall")
    if recall is not None:
        lines.append(
            f"    this prompt's recall: {recall['chars']:,} characters, about "
            f"{recall['approx_tokens']:,} tokens"
            + ("" if recall["passages"] else " (nothing recalled: the hook adds nothing)")
        )
        lines += [f"      {cut_line(p)}" for p in recall["passages"]]
    return lines


def cut_line(cut: dict[str, Any]) -> str:
    """One file (or recalled passage) a runtime is handed, and where it was cut."""
    if cut["left_out"]:
        return f"{cut['path']}: left out ({cut['chars']:,} characters)"
    if cut["cut_line"] is None:
        return f"{cut['path']}: whole ({cut['chars']:,} characters)"
    return (
        f"{cut['path']}: {cut['kept']:,} of {cut['chars']:,} characters, "
        f"cut at line {cut['cut_line']}"
    )


def search_text(data: dict[str, Any]) -> str:
    """``hearth search``' lines, from its JSON."""
    hits = data["hits"]
    left_out = int(data.get("left_out") or 0)
    more = f"{left_out} below the relevance floor left out (--all shows them)" if left_out else ""
    if not hits:
        if not more:
            return "no matches"
        near = data.get("nearest")
        why = f"\nnearest: {near['path']}:{near['start_line']}: {near['reason']}" if near else ""
        return f"no matches ({more}){why}"
    lines = [
        f"{h['path']}:{h['start_line']}-{h['end_line']}  [{h['kind']}] {h['title']}"
        + (f" ({h['status']})" if h.get("status") else "")
        + (f" > {h['heading']}" if h["heading"] and h["heading"] != h["title"] else "")
        + f"\n    {h['snippet']}"
        for h in hits
    ]
    return "\n".join([*lines, *([more] if more else [])])


def context_text(found: dict[str, Any]) -> str:
    """``hearth context``' text, from its JSON: each file, then each recalled passage."""
    parts = []
    for f in found["files"]:
        note = " (missing)" if f["missing"] else (" (truncated)" if f["truncated"] else "")
        parts.append(f"===== {f['path']}{note} =====\n{f['content'].rstrip()}")
    for p in found["recall"]:
        note = " (truncated)" if p["truncated"] else ""
        parts.append(
            f"===== recall: {p['path']}:{p['start_line']}-{p['end_line']}{note} =====\n{p['text']}"
        )
    return "\n\n".join(parts)
