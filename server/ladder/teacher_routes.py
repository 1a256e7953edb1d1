"""The ladder site's teacher's page: the ladder's state, re-runs and retirements (every change
needs the teacher's credential: :class:`server.web.TeacherGate`), the grades as CSV and a
team's evidence bundle."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from typing import Any

import trio
from sqlalchemy import select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from server.ladder import pages, teacher, views
from server.ladder import schema as s
from server.ladder.db import LadderError
from server.ladder.site_access import SiteAccess
from server.ladder.store import StoreError
from server.web.auth import form_fields

__all__ = ["TeacherRoutes"]


class TeacherRoutes:
    """``/admin`` and its actions, ``/admin/grades.csv``, ``/admin/bundles/{name}.zip``."""

    def __init__(self, access: SiteAccess) -> None:
        self.access = access
        self.gate = access.gate

    def routes(self) -> list[Route]:
        get, post = ["GET"], ["POST"]
        return [
            Route("/admin", self._admin, methods=get),
            Route("/admin/state", self._admin_state, methods=post),
            Route("/admin/rerun", self._admin_rerun, methods=post),
            Route("/admin/retire", self._admin_retire, methods=post),
            Route("/admin/grades.csv", self._grades, methods=get),
            Route("/admin/bundles/{name}.zip", self._bundle, methods=get),
        ]

    async def _admin(self, request: Request, message: str = "", status: int = 200) -> Response:
        if not await self.gate.is_teacher(request):
            return Response(status_code=303, headers={"Location": "/login"})
        info = await self.access.info()

        def read(db: Any) -> tuple[list[views.TeamView], list[tuple[float, str, str, str]]]:
            names = list(db.execute(select(s.teams.c.name).order_by(s.teams.c.name)).scalars())
            teams = [team for name in names if (team := views.team_view(db, name, 0))]
            audit = [
                (row.at, row.actor, row.action, row.detail)
                for row in db.execute(select(s.audit).order_by(s.audit.c.id.desc()).limit(50))
            ]
            return teams, audit

        teams, audit = await self.access.read(read)
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
            _, state = teacher.set_state(self.access.ladder.engine, action, "admin")
            return f"the ladder is now {state}"

        return await self._act(request, act)

    async def _admin_rerun(self, request: Request) -> Response:
        form = await self._teacher_form(request)
        number, why = views.parse_number(form.get("match", "")), form.get("why", "").strip()
        if number is None or not why:
            return await self._admin(request, "a re-run needs a match number and a reason", 400)

        def act() -> str:
            new = teacher.rerun(self.access.ladder.engine, number, why, "admin")
            return f"match {number} will be re-run as match {new}"

        return await self._act(request, act)

    async def _admin_retire(self, request: Request) -> Response:
        form = await self._teacher_form(request)
        team, _, text = form.get("version", "").partition("/")
        number, why = views.parse_number(text), form.get("why", "").strip()
        if number is None or not why:
            return await self._admin(request, "retiring needs a version and a reason", 400)

        def act() -> str:
            engine = self.access.ladder.engine
            with engine.connect() as db:
                version = views.find_version(db, team, number)
            if version is None:
                raise LadderError(f"{team} has no version {number}")
            teacher.retire(engine, version, why, "admin")
            return f"{team} v{number} is retired"

        return await self._act(request, act)

    async def _require_teacher(self, request: Request) -> None:
        if not await self.gate.is_teacher(request):
            raise HTTPException(401, "the teacher's credential is needed: log in at /login")

    async def _grades(self, request: Request) -> Response:
        await self._require_teacher(request)
        rows = await trio.to_thread.run_sync(teacher.grades, self.access.ladder.engine)
        text = teacher.grades_csv(rows)
        headers = {"Content-Disposition": 'attachment; filename="grades.csv"'}
        return Response(text, media_type="text/csv; charset=utf-8", headers=headers)

    async def _bundle(self, request: Request) -> Response:
        await self._require_teacher(request)
        team = await self.access.team_view(request.path_params["name"], limit=None)  # all
        data = await trio.to_thread.run_sync(self._bundle_bytes, team)
        headers = {"Content-Disposition": f'attachment; filename="{team.name}.zip"'}
        return Response(data, media_type="application/zip", headers=headers)

    def _bundle_bytes(self, team: views.TeamView) -> bytes:
        """A team's evidence: a report, each version's build and pre-flight output, and each of
        its matches' log and the team's captured output."""
        text, store = self.access.text, self.access.ladder.store
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
                        bundle.writestr(f"versions/v{version.number}-{kind}.txt", text(digest))
            report.append("")
            for match in team.matches:
                report.append(f"match {match.id}: {match.outcome(team.name)}")
                if match.log_hash:
                    try:
                        bundle.writestr(f"matches/{match.id}.log", store.read(match.log_hash))
                    except StoreError:
                        report.append(f"  (match {match.id}'s log is missing from the store)")
                for seat in match.seats:
                    if seat.team == team.name and seat.output_hash:
                        bundle.writestr(
                            f"matches/{match.id}-seat{seat.seat}-output.txt",
                            text(seat.output_hash),
                        )
            bundle.writestr("report.txt", "\n".join(report) + "\n")
        return buffer.getvalue()
