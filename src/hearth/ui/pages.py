"""The review page's routes under ``/ui/``: parse, one call on the service, render.

Pages are plain functions (FastAPI runs them on its thread pool; the service
takes the home's lock). Every form posts back here with the CSRF value and the
blob ids the page was made from (``expected``), which the operation checks at
commit time: a stale page is refused with a visible conflict, never applied.
A successful post redirects (303) to the page it came from, at the anchor the
form named, with the id of a message the server keeps for that visitor
(``kit.Flashes``), so a reload never posts twice and the address cannot make
the page claim anything. The Review page and its forms are ``review.py``.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response

from hearth.domain.active import needs_attention
from hearth.domain.layout import ACTIVE_PATH, KINDS
from hearth.domain.paths import normalize
from hearth.domain.searching import MAX_LIMIT
from hearth.errors import NotFound
from hearth.operations import is_agent, put_operation
from hearth.ui.auth import LOGIN_COOKIE, LOGIN_PATH, PLACES, PLAIN_BASE, SESSION_COOKIE, Visitor
from hearth.ui.kit import (
    Done,
    Kit,
    MaybeVisitor,
    PageRoute,
    Reader,
    Served,
    UiKit,
    first,
    form_lists,
)
from hearth.ui.render import FAVICON, HEADERS, SCRIPT, STYLESHEET

HISTORY_LIMIT = 50
#: Hits a search page shows before "show all".
SEARCH_SHOWN = 20

#: The page's routes but the Review tab's (``review.py``); ``hearth.ui.install`` includes them.
router = APIRouter(prefix="/ui", include_in_schema=False, route_class=PageRoute)

# -- static, login, logout -------------------------------------------------------


@router.get("/static/hearth.css")
def stylesheet() -> Response:
    headers = {**HEADERS, "Cache-Control": "max-age=3600"}
    return Response(STYLESHEET(), media_type="text/css", headers=headers)


@router.get("/static/hearth.js")
def script() -> Response:
    headers = {**HEADERS, "Cache-Control": "max-age=3600"}
    return Response(SCRIPT(), media_type="text/javascript", headers=headers)


@router.get("/static/favicon.svg")
def favicon() -> Response:
    headers = {**HEADERS, "Cache-Control": "max-age=86400"}
    return Response(FAVICON(), media_type="image/svg+xml", headers=headers)


@router.get("/login")
def login_form(request: Request, kit: UiKit, next: str = "/ui/") -> Response:
    return _login_page(request, kit, 200, next, None)


@router.post("/login")
async def login(request: Request, kit: UiKit) -> Response:
    form = {k: v[0] for k, v in (await form_lists(request) or {}).items()}
    if not kit.gate.login_ok(request.cookies.get(LOGIN_COOKIE), form.get("login_csrf", "")):
        return kit.refused(None, 403, "the login form expired; open it again", "/ui/login")
    found = kit.gate.login(form.get("token", ""))
    if found is None:
        return _login_page(request, kit, 401, form.get("next", ""), "unknown or revoked token")
    # The session's pages, and its cookie, live at its own secret place.
    target = found.base + _safe_next(form.get("next", ""))[len(PLAIN_BASE) :]
    done = RedirectResponse(target, 303, HEADERS)
    _set_cookie(request, done, SESSION_COOKIE, found.session, found.base)
    done.delete_cookie(LOGIN_COOKIE, path=LOGIN_PATH)
    return done


@router.post("/logout")
async def logout(request: Request, kit: UiKit, visitor: MaybeVisitor) -> Response:
    form = {k: v[0] for k, v in (await form_lists(request) or {}).items()}
    if visitor is not None and not kit.gate.csrf_ok(visitor, form.get("csrf", "")):
        return kit.refused(visitor, 403, "this form did not come from this page")
    response = RedirectResponse("/ui/login", 303, HEADERS)
    if visitor is not None and visitor.session is not None:
        kit.gate.end(visitor.session)
        response.delete_cookie(SESSION_COOKIE, path=visitor.base)
    return response


# -- persona files: timeline, diffs, restore -------------------------------------


@router.get("/persona")
def persona(request: Request, visitor: Reader, kit: UiKit, service: Served) -> Response:
    files = service.persona_files()
    latest = {path: service.history(path, 1) for path in files}
    return kit.page(request, visitor, "persona.html", files=files, latest=latest)


@router.get("/history/{path:path}")
def history(
    request: Request,
    visitor: Reader,
    kit: UiKit,
    service: Served,
    path: str,
    rev: str | None = None,
) -> Response:
    commits = service.history(path, HISTORY_LIMIT)
    oid = service.head_oids([path])[path]
    if not commits and oid is None:
        raise NotFound(f"{path} is not in the home and no commit ever touched it")
    shown = service.commit_diff(path, rev) if rev else None
    # "As of" a commit: the text right after it. Restoring the text HEAD holds
    # would change nothing: the page says so instead of offering it.
    current = False
    if shown is not None:
        try:
            current = service.get_file(path, shown.to_rev).oid == oid
        except NotFound:
            current = False
    return kit.page(
        request,
        visitor,
        "history.html",
        path=path,
        commits=commits,
        shown=shown,
        oid=oid,
        current=current,
        restore_operation=put_operation(path, "restore"),
    )


@router.post("/restore/{path:path}")
async def restore(
    request: Request, path: str, visitor: MaybeVisitor, kit: UiKit, service: Served
) -> Response:
    def call(visitor: Visitor, form: dict[str, list[str]]) -> Done:
        rev = first(form, "rev")
        # The oid the page was made from is checked against the file the restore
        # writes, under its canonical name (``./MEMORY.md`` is MEMORY.md).
        canonical = normalize(path)
        result = service.restore(
            canonical,
            rev,
            visitor.actor,
            expected={canonical: first(form, "oid") or None},
            agent=is_agent(visitor.info.scope),
        )
        if not result.changed:
            return Done(
                f"{path} already reads as it did right after commit {rev[:12]}: "
                "nothing to restore, no commit made"
            )
        return Done(
            f"Restored {path} to its text right after commit {rev[:12]}, as a new commit",
            result.commit,
        )

    back = f"/ui/history/{quote(path)}"
    return await kit.acting(request, visitor, put_operation(path, "restore"), back, call)


# -- files, search, health -------------------------------------------------------


@router.get("/files/{path:path}")
def file_view(
    request: Request,
    visitor: Reader,
    kit: UiKit,
    service: Served,
    path: str,
    rev: str | None = None,
    lines: str = "",
) -> Response:
    view = service.get_file(path, rev)
    start, end = _line_range(lines)
    text = view.content.split("\n")
    return kit.page(request, visitor, "file.html", file=view, lines=text, first=start, last=end)


@router.get("/search")
def search(
    request: Request,
    visitor: Reader,
    kit: UiKit,
    service: Served,
    q: str = "",
    kind: str | None = None,
    everything: Annotated[str | None, Query(alias="all")] = None,
) -> Response:
    q = q[:500]
    kind = kind or None
    if kind not in KINDS:
        kind = None
    # The same search as `hearth search` (the app's), asked for as many hits as
    # the CLI may show: the count is the CLI's, the page shows the first ones.
    found = service.search(q, kind, None, MAX_LIMIT) if q.strip() else None
    hits = found.hits if found is not None else []
    return kit.page(
        request,
        visitor,
        "search.html",
        q=q,
        kind=kind,
        kinds=KINDS,
        hits=hits if everything == "1" else hits[:SEARCH_SHOWN],
        total=len(hits),
        at_most=MAX_LIMIT,
        ranking=found.ranking if found is not None else None,
        left_out=found.left_out if found is not None else 0,
        nearest=found.nearest if found is not None else None,
    )


@router.get("/health")
def health(request: Request, visitor: Reader, kit: UiKit, service: Served) -> Response:
    # status() already scans the tree once; ACTIVE.md is read as a file rather
    # than through active(), which would scan it a second time.
    status = service.status().as_dict()
    attention = needs_attention(service.get_file(ACTIVE_PATH).content)
    conflicts = service.entry_conflicts()
    return kit.page(
        request,
        visitor,
        "health.html",
        status=status,
        attention=attention,
        entry_conflicts=conflicts,
    )


@router.post("/settle/{conflict_id}")
async def settle(
    request: Request, conflict_id: str, visitor: MaybeVisitor, kit: UiKit, service: Served
) -> Response:
    def call(visitor: Visitor, form: dict[str, list[str]]) -> Done:
        keep = first(form, "keep")
        result = service.entry_settle(conflict_id, keep, visitor.actor)
        which = "the first version" if keep == "file" else "the other version"
        return Done(
            f"Settled the entry conflict {conflict_id} in {result.path}: kept {which}",
            result.commit if result.changed else None,
        )

    return await kit.acting(request, visitor, "memory.settle", "/ui/health", call)


def _login_page(request: Request, kit: Kit, status: int, next: str, error: str | None) -> Response:
    """The login form, with a new double-submit nonce (cookie and field)."""
    nonce, field = kit.gate.login_nonce()
    response = kit.views.page(
        "login.html", status, login_csrf=field, next=_safe_next(next), error=error
    )
    _set_cookie(request, response, LOGIN_COOKIE, nonce, LOGIN_PATH)
    return response


def _safe_next(target: str) -> str:
    """Only a path of this page: never another site after logging in, and never
    an old session's place (the new session's goes in front)."""
    if target.startswith(PLACES):
        parts = target.split("/", 4)
        target = "/ui/" + (parts[4] if len(parts) == 5 else "")
    if target.startswith("/ui/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/ui/"


def _set_cookie(request: Request, response: Response, name: str, value: str, path: str) -> None:
    response.set_cookie(
        name,
        value,
        path=path,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def _line_range(text: str) -> tuple[int, int]:
    first, _, last = text.partition("-")
    try:
        a = int(first)
        b = int(last or first)
    except ValueError:
        return 0, 0
    return (a, b) if 0 < a <= b else (0, 0)
