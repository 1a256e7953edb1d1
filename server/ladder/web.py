"""The ladder's pages, served by the shared web layer (Starlette on Hypercorn's trio worker):
the ladder, each team's page, matches with their replays, the upload form, the teacher's page
and the live view.

    site = LadderSite(ladder, submit=partial(submit, players=PLAYERS))
    port = await nursery.start(serve_web, site.app(), "127.0.0.1", 8080)

Who may do what: anyone may read the ladder, team pages, matches and replays. A team's build,
pre-flight and match output opens with that team's token (the team's login sets a cookie
signed for that team) or the teacher's credential. A submission carries its team's token as a
bearer token or in the form before its file, checked before the file is read. Every state
change of the teacher's page needs the teacher's credential (the admin token: bearer, or the
login cookie plus the page's CSRF token; :class:`server.web.TeacherGate`). Every token is
checked by :func:`server.ladder.auth.authenticate` (its wrong ones counted per address: then
429). Every database read runs in a worker thread, so a slow database never stalls the pages.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import json
import secrets
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import trio
from sqlalchemy import select
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from server.ladder import pages, teacher, views
from server.ladder import schema as s
from server.ladder.auth import Identity, Throttled, authenticate
from server.ladder.db import LadderError
from server.ladder.ladder import DEFAULT_LIMITS, Ladder
from server.ladder.store import StoreError
from server.ladder.upload import OVERHEAD, read_upload
from server.web import escape, event_stream, sse_event, web_app
from server.web.app import SANDBOXED, STRICT_POLICY
from server.web.auth import (
    TeacherGate,
    TooManyTries,
    client_address,
    form_fields,
    same_origin,
)

__all__ = ["LadderSite"]

#: The cookie a team's browser carries after it gave its token.
TEAM_COOKIE = "arena_team"
#: How often the live view looks at the database for a change.
LIVE_POLL = 1.0

T = TypeVar("T")


class _Denied(LadderError):
    """A credential refused: 401 (none, or a wrong one) or 403 (not one that may do this)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _refusal(error: LadderError, status: int) -> tuple[int, dict[str, str] | None]:
    """The status of a refused token: ``status``, or 429 with ``Retry-After`` for a client
    that used up its wrong tokens."""
    if isinstance(error, Throttled):
        return 429, {"Retry-After": str(error.retry_after)}
    return status, None


Submit = Callable[[Ladder, str, Path, str], Any]


@dataclass
class LadderSite:
    """The pages of one ladder. ``submit(ladder, token, path, address)`` checks and records a
    submission (awaitable; :func:`server.ladder.submit.submit` with the game's players)."""

    ladder: Ladder
    submit: Submit
    clock: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        self._key = secrets.token_bytes(32)  # team sessions end with the server
        # Teams with an upload in progress: one each, so a team's uploads hold at most one
        # upload's worth of disk at a time.
        self._uploads: set[str] = set()
        self._uploads_lock = threading.Lock()
        self.gate = TeacherGate(check=self._is_admin_token, clock=self.clock, home="/admin")

    # -- the app -------------------------------------------------------------------------------

    def app(self) -> Starlette:
        get, post = ["GET"], ["POST"]
        routes = [
            Route("/", self._ladder, methods=get),
            Route("/teams/{name}", self._team, methods=get),
            Route("/teams/{name}/login", self._team_login, methods=post),
            Route("/teams/{name}/versions/{number:int}", self._version_output, methods=get),
            Route("/matches/{match:int}", self._match, methods=get),
            Route("/matches/{match:int}/replay", self._replay, methods=get),
            Route("/matches/{match:int}/log", self._log, methods=get),
            Route("/matches/{match:int}/output/{seat:int}", self._seat_output, methods=get),
            Route("/submit", self._submit_form, methods=get),
            Route("/submit", self._submit, methods=post),
            Route("/admin", self._admin, methods=get),
            Route("/admin/state", self._admin_state, methods=post),
            Route("/admin/rerun", self._admin_rerun, methods=post),
            Route("/admin/retire", self._admin_retire, methods=post),
            Route("/admin/grades.csv", self._grades, methods=get),
            Route("/admin/bundles/{name}.zip", self._bundle, methods=get),
            Route("/live", self._live, methods=get),
            Route("/live/events", self._live_events, methods=get),
            *self.gate.routes(),
        ]
        return web_app(routes, {"ladder": "server.ladder"}, policy=STRICT_POLICY)

    async def _read(self, read: Callable[[Any], T]) -> T:
        """``read(connection)`` in a worker thread, in one read transaction."""

        def run() -> T:
            with self.ladder.engine.connect() as db:
                return read(db)

        return await trio.to_thread.run_sync(run)

    async def _info(self) -> views.LadderInfo:
        info = await self._read(views.ladder_info)
        if info is None:
            raise HTTPException(503, "this ladder has no data yet: run 'arena ladder init'")
        return info

    # -- credentials ---------------------------------------------------------------------------

    async def _identity(self, token: str, address: str) -> Identity:
        """Whose ``token`` is (:func:`server.ladder.auth.authenticate`, in a worker thread:
        its wrong tokens counted in the database per address)."""
        now = self.clock()
        return await trio.to_thread.run_sync(authenticate, self.ladder.engine, token, address, now)

    async def _is_admin_token(self, given: str, address: str) -> bool:
        try:
            who = await self._identity(given, address)
        except Throttled as error:
            raise TooManyTries(error.retry_after) from None
        except LadderError:
            return False
        return who.role == "admin"

    def _team_mac(self, team: str) -> str:
        return hmac.new(self._key, b"team:" + team.encode(), hashlib.sha256).hexdigest()

    def _signed_team(self, request: Request) -> str | None:
        name, _, mac = request.cookies.get(TEAM_COOKIE, "").rpartition(":")
        if name and hmac.compare_digest(mac.encode(), self._team_mac(name).encode()):
            return name
        return None

    async def _may_see(self, request: Request, team: str) -> bool:
        return self._signed_team(request) == team or await self.gate.is_teacher(request)

    # -- pages anyone may read -----------------------------------------------------------------

    async def _ladder(self, request: Request) -> Response:
        info = await self._info()
        table = await self._read(views.standings)
        recent = await self._read(views.recent_matches)
        return HTMLResponse(pages.ladder_page(info, table, recent))

    async def _team_view(self, name: str, limit: int | None = views.RECENT) -> views.TeamView:
        team = await self._read(lambda db: views.team_view(db, name, limit))
        if team is None:
            raise HTTPException(404, f"no team {name!r} in this ladder")
        return team

    async def _team(self, request: Request) -> Response:
        team = await self._team_view(request.path_params["name"])
        return HTMLResponse(pages.team_page(team, await self._may_see(request, team.name)))

    async def _team_login(self, request: Request) -> Response:
        same_origin(request)
        team = await self._team_view(request.path_params["name"])
        name = team.name
        form = await form_fields(request)
        try:
            who = await self._identity(form.get("token", ""), client_address(request))
        except LadderError as error:
            status, headers = _refusal(error, 401)
            return HTMLResponse(pages.team_page(team, False, str(error)), status, headers)
        if who.role != "admin" and who.team != name:
            message = "this token is another team's"
            return HTMLResponse(pages.team_page(team, False, message), status_code=403)
        response = Response(status_code=303, headers={"Location": f"/teams/{name}"})
        if who.team is not None:
            value = f"{who.team}:{self._team_mac(who.team)}"
            response.set_cookie(TEAM_COOKIE, value, httponly=True, samesite="strict", path="/")
        return response

    def _text(self, digest: str | None) -> str:
        if not digest:
            return ""
        try:
            return self.ladder.store.read(digest).decode("utf-8", "replace")
        except StoreError:
            return "(this output is missing from the store)"

    async def _version_output(self, request: Request) -> Response:
        name, number = request.path_params["name"], request.path_params["number"]
        team = await self._team_view(name)
        if not await self._may_see(request, name):
            page = pages.team_page(team, False, "give your team's token to see its output")
            return HTMLResponse(page, status_code=403)
        version = next((v for v in team.versions if v.number == number), None)
        if version is None:
            raise HTTPException(404, f"{name} has no version {number}")
        build = await trio.to_thread.run_sync(self._text, version.build_output_hash)
        check = await trio.to_thread.run_sync(self._text, version.preflight_output_hash)
        title = f"{name} v{number}: {version.status}" + (
            f" ({version.reason})" if version.reason else ""
        )
        return HTMLResponse(pages.output_page(title, [("build", build), ("pre-flight", check)]))

    async def _match_row(self, request: Request) -> views.MatchRow:
        match_id = request.path_params["match"]
        match = await self._read(lambda db: views.match_view(db, match_id))
        if match is None:
            raise HTTPException(404, f"no match {match_id} in this ladder")
        return match

    async def _match(self, request: Request) -> Response:
        match = await self._match_row(request)
        visible = [seat.seat for seat in match.seats if await self._may_see(request, seat.team)]
        return HTMLResponse(pages.match_page(match, visible))

    async def _replay(self, request: Request) -> Response:
        match = await self._match_row(request)
        digest = match.replay_hash
        if digest is None:
            raise HTTPException(404, f"match {match.id} has no replay page")
        html = await trio.to_thread.run_sync(self._text, digest)
        back = (
            "<p class='ladder-back' style='font:14px system-ui;margin:.4em 1em'>"
            f"<a href='/'>back to the ladder</a> \u00b7 <a href='/matches/{match.id}'>"
            f"match {match.id}</a>: {escape(match.outcome())}</p>"
        )
        head, tag, rest = html.partition("<body")
        if tag:
            opened, _, after = rest.partition(">")
            html = f"{head}{tag}{opened}>{back}{after}"
        # Self-contained (inline scripts): a sandbox of its own, away from the site's cookies.
        return HTMLResponse(html, headers={"Content-Security-Policy": SANDBOXED})

    async def _log(self, request: Request) -> Response:
        match = await self._match_row(request)
        if not match.log_hash:
            raise HTTPException(404, f"match {match.id} has no log")
        data = await trio.to_thread.run_sync(self.ladder.store.read, match.log_hash)
        filename = f"ladder-match-{match.id}.log"
        headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
        return Response(data, media_type="application/octet-stream", headers=headers)

    async def _seat_output(self, request: Request) -> Response:
        match = await self._match_row(request)
        seat = next((x for x in match.seats if x.seat == request.path_params["seat"]), None)
        if seat is None or not seat.output_hash:
            raise HTTPException(404, "no such output")
        if not await self._may_see(request, seat.team):
            return HTMLResponse(
                pages.message_page("Not yours", f"this output is {seat.team}'s", "bad"), 403
            )
        text = await trio.to_thread.run_sync(self._text, seat.output_hash)
        title = f"match {match.id}: {seat.team} v{seat.version}'s output"
        return HTMLResponse(pages.output_page(title, [("stdout and stderr", text)]))

    # -- submissions ---------------------------------------------------------------------------

    async def _team_names(self) -> list[str]:
        return await self._read(lambda db: list(db.execute(select(s.teams.c.name)).scalars()))

    async def _submit_form(self, request: Request) -> Response:
        return HTMLResponse(pages.submit_page(await self._team_names()))

    def _upload_limit(self) -> int:
        limits = {**DEFAULT_LIMITS, **self.ladder.settings.get("limits", {})}
        return int(limits["upload_bytes"])

    def _claim(self, token: str, address: str, now: float) -> str:
        """The team whose upload may go on: refuse (:class:`LadderError`) a token that is not a
        team's, or a team with an upload still in progress (blocking: called in a worker
        thread, before the upload's file is read). Its caller must :meth:`_release` it."""
        if not token:
            raise _Denied("the form has no team token before its file", 401)
        try:
            who = authenticate(self.ladder.engine, token, address, now)
        except Throttled:
            raise
        except LadderError as error:
            raise _Denied(str(error), 401) from None
        if who.role != "team" or who.team is None:
            raise _Denied("the admin token cannot submit: use the team's own token", 403)
        with self._uploads_lock:
            if who.team in self._uploads:
                message = f"{who.team}'s previous upload is still being checked: wait for it"
                raise _Denied(message, 409)
            self._uploads.add(who.team)
        return who.team

    def _release(self, teams: list[str]) -> None:
        with self._uploads_lock:
            self._uploads.difference_update(teams)

    async def _submit(self, request: Request) -> Response:
        """The credential first: a bearer token before the body is read, else the form's token
        field as soon as the file's part begins, before a byte of it is written."""
        same_origin(request)
        limit = self._upload_limit()
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit + OVERHEAD:
            return await self._refused(f"the upload is larger than {limit >> 20} MiB", 413)
        address, kind = client_address(request), request.headers.get("content-type", "")
        scheme, _, bearer = request.headers.get("authorization", "").partition(" ")
        bearer = bearer.strip() if scheme.lower() == "bearer" else ""
        now = self.clock()

        claimed: list[str] = []  # the team, once its credential is checked

        def authorize(fields: dict[str, str]) -> None:
            claimed.append(self._claim(fields.get("token", ""), address, now))

        try:
            if bearer:
                claimed.append(await trio.to_thread.run_sync(self._claim, bearer, address, now))
            with tempfile.TemporaryDirectory(prefix="ladder-upload-") as scratch:
                async with contextlib.aclosing(request.stream()) as chunks:
                    upload = await read_upload(
                        chunks, kind, Path(scratch), limit, None if bearer else authorize
                    )
                token = bearer or upload.fields.get("token", "")
                if upload.path is None or upload.path.stat().st_size == 0:
                    return await self._refused("the form has no program file", 400)
                done = await self.submit(self.ladder, token, upload.path, address)
        except LadderError as error:
            status = error.status if isinstance(error, _Denied) else 400
            if "larger than" in str(error):
                status = 413
            status, headers = _refusal(error, status)
            return await self._refused(str(error), status, headers)
        finally:
            self._release(claimed)
        verdict = "active" if done.status == "active" else f"FAILED: {done.reason}"
        lines = [f"{done.team} version {done.number}: {verdict}"]
        for title, text in (("build", done.build_output), ("pre-flight", done.preflight_output)):
            if text and done.status != "active":
                lines.append(f"--- {title} output ---\n{text.rstrip()}")
        good = done.status == "active"
        page = pages.submit_page(await self._team_names(), "\n".join(lines), good=good)
        return HTMLResponse(page, status_code=200 if good else 422)

    async def _refused(
        self, message: str, status: int, headers: dict[str, str] | None = None
    ) -> Response:
        page = pages.submit_page(await self._team_names(), message)
        return HTMLResponse(page, status, headers)

    # -- the teacher's page --------------------------------------------------------------------

    async def _admin(self, request: Request, message: str = "", status: int = 200) -> Response:
        if not await self.gate.is_teacher(request):
            return Response(status_code=303, headers={"Location": "/login"})
        info = await self._info()

        def read(db: Any) -> tuple[list[views.TeamView], list[tuple[float, str, str, str]]]:
            names = list(db.execute(select(s.teams.c.name).order_by(s.teams.c.name)).scalars())
            teams = [team for name in names if (team := views.team_view(db, name, 0))]
            audit = [
                (row.at, row.actor, row.action, row.detail)
                for row in db.execute(select(s.audit).order_by(s.audit.c.id.desc()).limit(50))
            ]
            return teams, audit

        teams, audit = await self._read(read)
        page = pages.admin_page(info, teams, self.gate.csrf_for(request), audit, message)
        return HTMLResponse(page, status_code=status)

    async def _teacher_form(self, request: Request) -> dict[str, str]:
        form = await form_fields(request)
        await self.gate.require(request, form)
        return form

    async def _act(self, request: Request, action: Callable[[], str]) -> Response:
        try:
            message = await trio.to_thread.run_sync(action)
        except LadderError as error:
            return await self._admin(request, str(error), 400)
        return await self._admin(request, message)

    async def _admin_state(self, request: Request) -> Response:
        form = await self._teacher_form(request)
        action = form.get("action", "")
        if action not in teacher.STATES:
            return await self._admin(request, f"unknown action {action!r}", 400)

        def act() -> str:
            _, state = teacher.set_state(self.ladder.engine, action, "admin")
            return f"the ladder is now {state}"

        return await self._act(request, act)

    async def _admin_rerun(self, request: Request) -> Response:
        form = await self._teacher_form(request)
        number, why = views.parse_number(form.get("match", "")), form.get("why", "").strip()
        if number is None or not why:
            return await self._admin(request, "a re-run needs a match number and a reason", 400)

        def act() -> str:
            new = teacher.rerun(self.ladder.engine, number, why, "admin")
            return f"match {number} will be re-run as match {new}"

        return await self._act(request, act)

    async def _admin_retire(self, request: Request) -> Response:
        form = await self._teacher_form(request)
        team, _, text = form.get("version", "").partition("/")
        number, why = views.parse_number(text), form.get("why", "").strip()
        if number is None or not why:
            return await self._admin(request, "retiring needs a version and a reason", 400)

        def act() -> str:
            with self.ladder.engine.connect() as db:
                version = views.find_version(db, team, number)
            if version is None:
                raise LadderError(f"{team} has no version {number}")
            teacher.retire(self.ladder.engine, version, why, "admin")
            return f"{team} v{number} is retired"

        return await self._act(request, act)

    async def _require_teacher(self, request: Request) -> None:
        if not await self.gate.is_teacher(request):
            raise HTTPException(401, "the teacher's credential is needed: log in at /login")

    async def _grades(self, request: Request) -> Response:
        await self._require_teacher(request)
        rows = await trio.to_thread.run_sync(teacher.grades, self.ladder.engine)
        text = teacher.grades_csv(rows)
        headers = {"Content-Disposition": 'attachment; filename="grades.csv"'}
        return Response(text, media_type="text/csv; charset=utf-8", headers=headers)

    async def _bundle(self, request: Request) -> Response:
        await self._require_teacher(request)
        team = await self._team_view(request.path_params["name"], limit=None)  # all of them
        data = await trio.to_thread.run_sync(self._bundle_bytes, team)
        headers = {"Content-Disposition": f'attachment; filename="{team.name}.zip"'}
        return Response(data, media_type="application/zip", headers=headers)

    def _bundle_bytes(self, team: views.TeamView) -> bytes:
        """A team's evidence: a report, each version's build and pre-flight output, and each of
        its matches' log and the team's captured output."""
        buffer = io.BytesIO()
        report = [f"{team.name}: {len(team.versions)} versions, {len(team.matches)} matches", ""]
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
            for version in team.versions:
                rated = "" if version.mu is None else f", rating {version.mu:.1f}"
                report.append(
                    f"v{version.number}: {version.status}"
                    + (f" ({version.reason})" if version.reason else "")
                    + f", {version.games} games{rated}"
                )
                for kind, digest in (
                    ("build", version.build_output_hash),
                    ("preflight", version.preflight_output_hash),
                ):
                    if digest:
                        name = f"versions/v{version.number}-{kind}.txt"
                        bundle.writestr(name, self._text(digest))
            report.append("")
            for match in team.matches:
                report.append(f"match {match.id}: {match.outcome(team.name)}")
                if match.log_hash:
                    try:
                        bundle.writestr(
                            f"matches/{match.id}.log", self.ladder.store.read(match.log_hash)
                        )
                    except StoreError:
                        report.append(f"  (match {match.id}'s log is missing from the store)")
                for seat in match.seats:
                    if seat.team == team.name and seat.output_hash:
                        bundle.writestr(
                            f"matches/{match.id}-seat{seat.seat}-output.txt",
                            self._text(seat.output_hash),
                        )
            bundle.writestr("report.txt", "\n".join(report) + "\n")
        return buffer.getvalue()

    # -- the live view -------------------------------------------------------------------------

    async def _live_state(self) -> tuple[views.LadderInfo, list[views.MatchRow]]:
        info = await self._info()
        return info, await self._read(views.live_matches)

    async def _live(self, request: Request) -> Response:
        info, matches = await self._live_state()
        return HTMLResponse(pages.live_page(info, matches, self.clock()))

    async def _live_events(self, request: Request) -> Response:
        async def events() -> Any:
            last = ""
            while True:
                info, matches = await self._live_state()
                data = {
                    "state": pages.STATE_NOTES.get(info.state, info.state),
                    "ladder": info.state,
                    "rows": pages.live_rows(matches, self.clock()),
                    "counts": f"{info.matches_done} played \u00b7 {info.matches_queued} queued",
                }
                text = json.dumps(data, sort_keys=True)
                if text != last:
                    last = text
                    yield sse_event("live", data)
                await trio.sleep(LIVE_POLL)

        return event_stream(events())
