"""The ladder's pages, served by the shared web layer (Starlette on Hypercorn's trio worker):
the ladder, each team's page, matches with their replays, the upload form, the teacher's page
and the live view.

    site = LadderSite(ladder, submit=partial(submit, players=PLAYERS))
    port = await nursery.start(serve_web, site.app(), "127.0.0.1", 8080)

Who may do what: anyone may read the ladder, team pages, matches and replays. A team's build,
pre-flight and match output opens with that team's token (the team's login sets a cookie
signed for that team, until the team logs out) or the teacher's credential. A submission
carries its team's token as a bearer token or in the form before its file, checked before the
file is read. Every state change of the teacher's page needs the teacher's credential (the
admin token: bearer, or the login cookie plus the page's CSRF token;
:class:`server.web.TeacherGate`). Every token is checked by
:func:`server.ladder.auth.authenticate` (its wrong ones counted per address: then 429).
Every database read runs in a worker thread, so a slow database never stalls the pages.

This module holds the pages anyone may read, a team's login and the live view; the shared
reading and credentials are :mod:`server.ladder.site_access`, the upload
:mod:`server.ladder.submission_routes`, the teacher's page :mod:`server.ladder.teacher_routes`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import trio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from server.ladder import pages, views
from server.ladder.db import LadderError
from server.ladder.ladder import Ladder
from server.ladder.site_access import TEAM_COOKIE, TEAM_SESSION_SECONDS, SiteAccess, refusal
from server.ladder.submission_routes import SubmissionRoutes, Submit
from server.ladder.teacher_routes import TeacherRoutes
from server.web import escape, event_stream, sse_event, web_app
from server.web.app import SANDBOXED, STRICT_POLICY
from server.web.auth import client_address, form_fields, same_origin

__all__ = ["LadderSite"]

#: How often the live view looks at the database for a change.
LIVE_POLL = 1.0
#: A tournament replay page's link back to its standings (the viewer's data, JSON).
TOURNAMENT_STANDINGS = re.compile(r'"standings":\s*"\.\./index\.html"')


@dataclass
class LadderSite:
    """The pages of one ladder. ``submit(ladder, token, path, address)`` checks and records a
    submission (awaitable; :func:`server.ladder.submit.submit` with the game's players)."""

    ladder: Ladder
    submit: Submit
    clock: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        self.access = SiteAccess(self.ladder, self.clock)
        self.gate = self.access.gate
        self.submissions = SubmissionRoutes(self.access, self.submit)
        self.teacher = TeacherRoutes(self.access)

    # -- the app -------------------------------------------------------------------------------

    def app(self) -> Starlette:
        get, post = ["GET"], ["POST"]
        routes = [
            Route("/", self._ladder, methods=get),
            Route("/teams/{name}", self._team, methods=get),
            Route("/teams/{name}/login", self._team_login, methods=post),
            Route("/teams/{name}/logout", self._team_logout, methods=post),
            Route("/teams/{name}/versions/{number:int}", self._version_output, methods=get),
            Route("/matches/{match:int}", self._match, methods=get),
            Route("/matches/{match:int}/replay", self._replay, methods=get),
            Route("/matches/{match:int}/log", self._log, methods=get),
            Route("/matches/{match:int}/output/{seat:int}", self._seat_output, methods=get),
            *self.submissions.routes(),
            *self.teacher.routes(),
            Route("/live", self._live, methods=get),
            Route("/live/events", self._live_events, methods=get),
            *self.gate.routes(),
        ]
        return web_app(routes, {"ladder": "server.ladder"}, policy=STRICT_POLICY)

    # -- pages anyone may read -----------------------------------------------------------------

    async def _ladder(self, request: Request) -> Response:
        info = await self.access.info()
        table = await self.access.read(views.standings)
        recent = await self.access.read(views.recent_matches)
        return HTMLResponse(pages.ladder_page(info, table, recent))

    async def _team(self, request: Request) -> Response:
        team = await self.access.team_view(request.path_params["name"])
        logged_in = await self.access.team_logged_in(request, team.name)
        can_see = logged_in or await self.gate.is_teacher(request)
        return HTMLResponse(pages.team_page(team, can_see, logged_in=logged_in))

    async def _team_login(self, request: Request) -> Response:
        same_origin(request)
        team = await self.access.team_view(request.path_params["name"])
        name = team.name
        form = await form_fields(request)
        try:
            who = await self.access.identity(form.get("token", ""), client_address(request))
        except LadderError as error:
            status, headers = refusal(error, 401)
            return HTMLResponse(pages.team_page(team, False, str(error)), status, headers)
        if who.role != "admin" and who.team != name:
            message = "this token is another team's"
            return HTMLResponse(pages.team_page(team, False, message), status_code=403)
        response = Response(status_code=303, headers={"Location": f"/teams/{name}"})
        if who.team is not None:
            value = await self.access.team_cookie(who.team, form.get("token", ""))
            response.set_cookie(
                TEAM_COOKIE, value, max_age=int(TEAM_SESSION_SECONDS), httponly=True,
                samesite="strict", path="/",
            )  # fmt: skip
        return response

    async def _team_logout(self, request: Request) -> Response:
        """End the team's logins: this browser forgets its cookie and, when it carried the
        team's login, every login of the team made before ends on the server too (a copy of
        the cookie on a lab machine the next student uses opens nothing any more)."""
        same_origin(request)
        team = await self.access.team_view(request.path_params["name"])
        await self.access.end_team_logins(request, team.name)
        response = Response(status_code=303, headers={"Location": f"/teams/{team.name}"})
        response.delete_cookie(TEAM_COOKIE, path="/", httponly=True, samesite="strict")
        return response

    async def _version_output(self, request: Request) -> Response:
        name, number = request.path_params["name"], request.path_params["number"]
        team = await self.access.team_view(name)
        if not await self.access.may_see(request, name):
            page = pages.team_page(team, False, "give your team's token to see its output")
            return HTMLResponse(page, status_code=403)
        version = next((v for v in team.versions if v.number == number), None)
        if version is None:
            raise HTTPException(404, f"{name} has no version {number}")
        build = await trio.to_thread.run_sync(self.access.text, version.build_output_hash)
        check = await trio.to_thread.run_sync(self.access.text, version.preflight_output_hash)
        title = f"{name} v{number}: {version.status}" + (
            f" ({version.reason})" if version.reason else ""
        )
        return HTMLResponse(pages.output_page(title, [("build", build), ("pre-flight", check)]))

    async def _match_row(self, request: Request) -> views.MatchRow:
        match_id = request.path_params["match"]
        match = await self.access.read(lambda db: views.match_view(db, match_id))
        if match is None:
            raise HTTPException(404, f"no match {match_id} in this ladder")
        return match

    async def _match(self, request: Request) -> Response:
        match = await self._match_row(request)
        may_see = self.access.may_see
        visible = [seat.seat for seat in match.seats if await may_see(request, seat.team)]
        return HTMLResponse(pages.match_page(match, visible))

    async def _replay(self, request: Request) -> Response:
        match = await self._match_row(request)
        digest = match.replay_hash
        if digest is None:
            raise HTTPException(404, f"match {match.id} has no replay page")
        html = await trio.to_thread.run_sync(self.access.text, digest)
        # A tournament's viewer links back to its standings as ../index.html: here, the ladder.
        html, linked = TOURNAMENT_STANDINGS.subn('"standings":"/"', html, count=1)
        back = (
            "<p class='ladder-back' style='font:14px system-ui;margin:0;padding:.4em 1em;"
            "background:#fff;color:#111'>"
            f"<a href='/' style='color:#1d4ed8'>back to the ladder</a> \u00b7 "
            f"<a href='/matches/{match.id}' style='color:#1d4ed8'>match {match.id}</a>: "
            f"{escape(match.outcome())}</p>"
        )
        head, tag, rest = html.partition("<body")
        if tag and not linked:  # a viewer page has its own way back, drawn in its header
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
        if not await self.access.may_see(request, seat.team):
            return HTMLResponse(
                pages.message_page("Not yours", f"this output is {seat.team}'s", "bad"), 403
            )
        text = await trio.to_thread.run_sync(self.access.text, seat.output_hash)
        title = f"match {match.id}: {seat.team} v{seat.version}'s output"
        return HTMLResponse(pages.output_page(title, [("stdout and stderr", text)]))

    # -- the live view -------------------------------------------------------------------------

    async def _live_state(self) -> tuple[views.LadderInfo, list[views.MatchRow]]:
        info = await self.access.info()
        return info, await self.access.read(views.live_matches)

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
