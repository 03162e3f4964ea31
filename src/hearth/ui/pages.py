"""The review page's routes under ``/ui/``: parse, one call on the service, render.

Pages are plain functions (FastAPI runs them on its thread pool; the service
takes the home's lock). Every form posts back here with the CSRF value and the
blob ids the page was made from (``expected``), which the operation checks at
commit time: a stale page is refused with a visible conflict, never applied.
A successful post redirects (303) to the page it came from, with what was done
in the query string, so a reload never posts twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, quote, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from hearth.app.results import BatchResult, WriteResult
from hearth.app.served import ServedHearth
from hearth.domain import layout, records
from hearth.domain.active import needs_attention
from hearth.domain.layout import ACTIVE_PATH, KINDS
from hearth.domain.policy import may, put_operation, refusal
from hearth.errors import Conflict, HearthError, InvalidInput
from hearth.ui.auth import COOKIE_PATH, LOGIN_COOKIE, SESSION_COOKIE, Gate, Visitor
from hearth.ui.render import HEADERS, STYLESHEET, Views

PERSONA_FILES = ("SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md", "AGENTS.md", "TOOLS.md")
HISTORY_LIMIT = 50
SEARCH_LIMIT = 20
#: Form bodies are small; the BodyLimit middleware bounds them anyway.
FORM_TYPE = "application/x-www-form-urlencoded"

DONE = {
    "merged": "Merged the proposal",
    "rejected": "Rejected the proposal",
    "edited": "Saved the proposal's entries",
    "resolved": "Resolved the open loop",
    "withdrawn": "Withdrew the decision",
    "restored": "Restored the earlier version as a new commit",
    "merged-many": "Merged the chosen proposals in one commit",
    "rejected-many": "Rejected the chosen proposals in one commit",
}

StatusOf = Callable[[HearthError], int]


def build_ui(service: ServedHearth, status_of: StatusOf) -> APIRouter:
    """The ``/ui`` routes; ``status_of`` is the API's error table (one table)."""
    gate = Gate(service.tokens)
    views = Views()
    router = APIRouter(prefix="/ui", include_in_schema=False)

    def who(request: Request) -> Visitor | None:
        return gate.visitor(
            request.headers.get("authorization", ""), request.cookies.get(SESSION_COOKIE)
        )

    def page(request: Request, visitor: Visitor, template: str, **ctx: Any) -> Response:
        return views.page(
            template,
            200,
            visitor=visitor,
            # The page shows only the actions the one policy lets this token take.
            may=lambda operation: may(visitor.info.scope, operation),
            csrf=gate.csrf(visitor),
            here=request.url.path,
            done=DONE.get(request.query_params.get("done", "")),
            commit=request.query_params.get("commit", "")[:40],
            **ctx,
        )

    def refused(
        visitor: Visitor | None, status: int, message: str, back: str = "/ui/", code: str = ""
    ) -> Response:
        return views.page(
            "refused.html",
            status,
            visitor=visitor,
            csrf=gate.csrf(visitor) if visitor else "",
            message=message,
            back=back,
            conflict=code == "conflict",
        )

    def to_login(request: Request) -> Response:
        if request.headers.get("authorization"):
            return refused(None, 401, "unknown or revoked token", "/ui/login")
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/ui/login?{urlencode({'next': target})}", 303, HEADERS)

    def reading(render: Callable[[Request, Visitor], Response]) -> Callable[[Request], Response]:
        def handler(request: Request) -> Response:
            visitor = who(request)
            if visitor is None:
                return to_login(request)
            try:
                return render(request, visitor)
            except HearthError as exc:
                return refused(visitor, status_of(exc), exc.message)

        return handler

    async def acting(
        request: Request,
        operation: str,
        back: str,
        done: str,
        call: Callable[[Visitor, dict[str, str]], WriteResult | BatchResult],
    ) -> Response:
        """A form post: who, CSRF, scope, then one call; a refusal is a page."""
        visitor = who(request)
        if visitor is None:
            return refused(None, 401, "log in first: this needs a token", "/ui/login")
        form = await _form(request)
        if form is None:
            return refused(visitor, 415, f"send the form as {FORM_TYPE}", back)
        if not gate.csrf_ok(visitor, form.get("csrf", "")):
            return refused(
                visitor, 403, "this form did not come from this page (CSRF check failed)", back
            )
        if not may(visitor.info.scope, operation):
            return refused(visitor, 403, refusal(visitor.info.scope, operation), back)
        try:
            result = await run_in_threadpool(call, visitor, form)
        except HearthError as exc:
            code = "conflict" if isinstance(exc, Conflict) else exc.code
            return refused(visitor, status_of(exc), exc.message, back, code)
        query = urlencode({"done": done, "commit": result.commit or ""})
        return RedirectResponse(f"{back}?{query}", 303, HEADERS)

    # -- static, login, logout -------------------------------------------------------

    @router.get("/static/hearth.css")
    def stylesheet() -> Response:
        headers = {**HEADERS, "Cache-Control": "max-age=3600"}
        return Response(STYLESHEET(), media_type="text/css", headers=headers)

    @router.get("/login")
    def login_form(request: Request, next: str = "/ui/") -> Response:
        nonce, field = gate.login_nonce()
        response = views.page(
            "login.html", 200, login_csrf=field, next=_safe_next(next), error=None
        )
        _set_cookie(request, response, LOGIN_COOKIE, nonce)
        return response

    @router.post("/login")
    async def login(request: Request) -> Response:
        form = await _form(request) or {}
        if not gate.login_ok(request.cookies.get(LOGIN_COOKIE), form.get("login_csrf", "")):
            return refused(None, 403, "the login form expired; open it again", "/ui/login")
        found = gate.login(form.get("token", ""))
        if found is None:
            nonce, field = gate.login_nonce()
            response = views.page(
                "login.html",
                401,
                login_csrf=field,
                next=_safe_next(form.get("next", "")),
                error="unknown or revoked token",
            )
            _set_cookie(request, response, LOGIN_COOKIE, nonce)
            return response
        session_id, _info = found
        done = RedirectResponse(_safe_next(form.get("next", "")), 303, HEADERS)
        _set_cookie(request, done, SESSION_COOKIE, session_id)
        done.delete_cookie(LOGIN_COOKIE, path=COOKIE_PATH)
        return done

    @router.post("/logout")
    async def logout(request: Request) -> Response:
        visitor = who(request)
        form = await _form(request) or {}
        if visitor is not None and not gate.csrf_ok(visitor, form.get("csrf", "")):
            return refused(visitor, 403, "this form did not come from this page")
        if visitor is not None and visitor.session is not None:
            gate.end(visitor.session)
        response = RedirectResponse("/ui/login", 303, HEADERS)
        response.delete_cookie(SESSION_COOKIE, path=COOKIE_PATH)
        return response

    # -- review: proposals, open loops, decisions ----------------------------------------------

    def review(request: Request, visitor: Visitor) -> Response:
        proposals = []
        views = service.records("proposal")
        board = service.review_board(views)
        for view in views:
            preview, error = None, view.error
            if view.record is not None:
                try:
                    preview = service.merge_preview(view.key)
                except HearthError as exc:
                    error = exc.message
            found = board.proposals.get(view.key)
            proposals.append(
                {
                    "view": view,
                    "preview": preview,
                    "error": error,
                    "review": found,
                    "matches": {m.entry: m.matches for m in found.matches} if found else {},
                }
            )
        loops = service.records("loop")
        # Newest first, as ACTIVE.md lists them.
        decisions = sorted(
            service.records("decision"),
            key=lambda v: (getattr(v.record, "updated", ""), v.key),
            reverse=True,
        )
        oids = service.head_oids([v.path for v in (*loops, *decisions)])
        return page(
            request,
            visitor,
            "review.html",
            proposals=proposals,
            blocks=_blocks(proposals, board.groups),
            board=board,
            titles={v.key: v.record.title if v.record is not None else v.key for v in views},
            loops=loops,
            decisions=decisions,
            oids=oids,
        )

    router.add_api_route("/", reading(review), methods=["GET"])

    def _expected(form: dict[str, str], *pairs: tuple[str, str]) -> dict[str, str | None]:
        return {
            form.get(path_field, ""): form.get(oid_field) or None for path_field, oid_field in pairs
        }

    @router.post("/proposals/{key}/merge")
    async def merge(request: Request, key: str) -> Response:
        def call(visitor: Visitor, form: dict[str, str]) -> WriteResult:
            expected = _expected(form, ("path", "oid"), ("target", "target_oid"))
            return service.merge(key, visitor.actor, expected=expected)

        return await acting(request, "merge", "/ui/", "merged", call)

    @router.post("/proposals/{key}/reject")
    async def reject(request: Request, key: str) -> Response:
        def call(visitor: Visitor, form: dict[str, str]) -> WriteResult:
            expected = _expected(form, ("path", "oid"))
            return service.reject(key, form.get("reason", ""), visitor.actor, expected=expected)

        return await acting(request, "reject", "/ui/", "rejected", call)

    @router.post("/proposals/{key}/entries")
    async def edit_entries(request: Request, key: str) -> Response:
        def call(visitor: Visitor, form: dict[str, str]) -> WriteResult:
            entries = form.get("entries", "").splitlines()
            expected = _expected(form, ("path", "oid"))
            return service.revise_proposal(key, entries, visitor.actor, expected=expected)

        return await acting(request, "edit", "/ui/", "edited", call)

    @router.post("/batch/merge")
    async def merge_many(request: Request) -> Response:
        chosen = await _form_lists(request)

        def call(visitor: Visitor, form: dict[str, str]) -> BatchResult:
            keys, expected = _batch(chosen)
            return service.merge_many(keys, visitor.actor, expected=expected)

        return await acting(request, "merge.many", "/ui/", "merged-many", call)

    @router.post("/batch/reject")
    async def reject_many(request: Request) -> Response:
        chosen = await _form_lists(request)

        def call(visitor: Visitor, form: dict[str, str]) -> BatchResult:
            keys, expected = _batch(chosen)
            reason = form.get("reason", "")
            return service.reject_many(keys, reason, visitor.actor, expected=expected)

        return await acting(request, "reject.many", "/ui/", "rejected-many", call)

    @router.post("/loops/{key}/resolve")
    async def resolve(request: Request, key: str) -> Response:
        def call(visitor: Visitor, form: dict[str, str]) -> WriteResult:
            expected = _expected(form, ("path", "oid"))
            note = form.get("note", "")
            return service.resolve_loop(key, visitor.actor, note, expected=expected)

        return await acting(request, "loop.resolve", "/ui/", "resolved", call)

    @router.post("/decisions/{key}/withdraw")
    async def withdraw(request: Request, key: str) -> Response:
        def call(visitor: Visitor, form: dict[str, str]) -> WriteResult:
            expected = _expected(form, ("path", "oid"))
            reason = form.get("reason", "")
            return service.withdraw_decision(key, reason, visitor.actor, expected=expected)

        return await acting(request, "decision.withdraw", "/ui/", "withdrawn", call)

    # -- persona files: timeline, diffs, restore -------------------------------------

    def persona(request: Request, visitor: Visitor) -> Response:
        latest = {path: service.history(path, 1) for path in PERSONA_FILES}
        return page(request, visitor, "persona.html", files=PERSONA_FILES, latest=latest)

    router.add_api_route("/persona", reading(persona), methods=["GET"])

    def history(request: Request, visitor: Visitor) -> Response:
        path = request.path_params["path"]
        rev = request.query_params.get("rev")
        commits = service.history(path, HISTORY_LIMIT)
        shown = service.commit_diff(path, rev) if rev else None
        oid = service.head_oids([path])[path]
        return page(
            request,
            visitor,
            "history.html",
            path=path,
            commits=commits,
            shown=shown,
            oid=oid,
            restore_operation=put_operation(path, "restore"),
        )

    router.add_api_route("/history/{path:path}", reading(history), methods=["GET"])

    @router.post("/restore/{path:path}")
    async def restore(request: Request, path: str) -> Response:
        def call(visitor: Visitor, form: dict[str, str]) -> WriteResult:
            expected = {path: form.get("oid") or None}
            return service.restore(path, form.get("rev", ""), visitor.actor, expected=expected)

        operation = put_operation(path, "restore")
        return await acting(request, operation, f"/ui/history/{quote(path)}", "restored", call)

    # -- files, search, health -------------------------------------------------------

    def file_view(request: Request, visitor: Visitor) -> Response:
        path = request.path_params["path"]
        view = service.get_file(path, request.query_params.get("rev"))
        first, last = _line_range(request.query_params.get("lines", ""))
        lines = view.content.split("\n")
        return page(request, visitor, "file.html", file=view, lines=lines, first=first, last=last)

    router.add_api_route("/files/{path:path}", reading(file_view), methods=["GET"])

    def search(request: Request, visitor: Visitor) -> Response:
        q = request.query_params.get("q", "")[:500]
        kind = request.query_params.get("kind") or None
        if kind not in KINDS:
            kind = None
        found = service.search(q, kind, None, SEARCH_LIMIT) if q.strip() else None
        hits = found.hits if found is not None else []
        ranking = found.ranking if found is not None else None
        return page(
            request,
            visitor,
            "search.html",
            q=q,
            kind=kind,
            kinds=KINDS,
            hits=hits,
            ranking=ranking,
        )

    router.add_api_route("/search", reading(search), methods=["GET"])

    def health(request: Request, visitor: Visitor) -> Response:
        # status() already scans the tree once; ACTIVE.md is read as a file rather
        # than through active(), which would scan it a second time.
        status = service.status().as_dict()
        attention = needs_attention(service.get_file(ACTIVE_PATH).content)
        return page(request, visitor, "health.html", status=status, attention=attention)

    router.add_api_route("/health", reading(health), methods=["GET"])

    return router


async def _form(request: Request) -> dict[str, str] | None:
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != FORM_TYPE:
        return None
    body = (await request.body()).decode("utf-8", "replace")
    return {k: v[0] for k, v in parse_qs(body, keep_blank_values=True).items()}


async def _form_lists(request: Request) -> dict[str, list[str]]:
    """A form's fields with every value (checkboxes send one ``keys`` per box)."""
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != FORM_TYPE:
        return {}
    body = (await request.body()).decode("utf-8", "replace")
    return parse_qs(body, keep_blank_values=True)


def _batch(form: dict[str, list[str]]) -> tuple[list[str], dict[str, str | None]]:
    """The chosen keys, and the blob ids the page was made from: ``seen`` holds,
    for every proposal on the page, ``KEY OID TARGET_OID TARGET`` (``-``: the
    file was absent). Only the chosen proposals' files and their targets are
    checked: a change to a proposal nobody chose does not make this stale."""
    keys = list(dict.fromkeys(k for k in form.get("keys", []) if k))
    if not keys:
        raise InvalidInput("choose at least one proposal (tick its box) before acting on them")
    seen: dict[str, tuple[str, str, str]] = {}
    for value in form.get("seen", []):
        parts = value.split(" ", 3)
        if len(parts) == 4 and parts[3]:
            seen[parts[0]] = (parts[1], parts[2], parts[3])
    expected: dict[str, str | None] = {}
    for key in keys:
        if key not in seen or not records.is_key(key):
            raise InvalidInput(
                f"the page did not say which version of proposal {key} it showed; "
                "reload the page and choose again"
            )
        oid, target_oid, target = seen[key]
        expected[layout.record_path("proposal", key)] = None if oid == "-" else oid
        expected[target] = None if target_oid == "-" else target_oid
    return keys, expected


def _blocks(
    proposals: list[dict[str, Any]], found_groups: tuple[tuple[str, ...], ...]
) -> list[dict[str, Any]]:
    """The proposals in page order, each group of near-duplicates together at
    the place of its first member."""
    by_key = {p["view"].key: p for p in proposals}
    group_of = {k: g for g in found_groups for k in g}
    blocks: list[dict[str, Any]] = []
    shown: set[str] = set()
    for item in proposals:
        key = item["view"].key
        if key in shown:
            continue
        group = group_of.get(key)
        members = [by_key[k] for k in group if k in by_key] if group else [item]
        shown.update(m["view"].key for m in members)
        blocks.append({"group": group, "members": members})
    return blocks


def _safe_next(target: str) -> str:
    """Only a path of this page: never another site after logging in."""
    if target.startswith("/ui/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/ui/"


def _set_cookie(request: Request, response: Response, name: str, value: str) -> None:
    response.set_cookie(
        name,
        value,
        path=COOKIE_PATH,
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
