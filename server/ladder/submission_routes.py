"""The ladder site's upload form and its POST: a submission carries its team's token as a
bearer token or in the form before its file, checked before the file is read; one upload at a
time per team, so a team's uploads hold at most one upload's worth of disk."""

from __future__ import annotations

import contextlib
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio
from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from server.ladder import pages
from server.ladder import schema as s
from server.ladder.auth import Throttled, authenticate
from server.ladder.db import LadderError
from server.ladder.ladder import DEFAULT_LIMITS, Ladder
from server.ladder.site_access import Denied, SiteAccess, refusal
from server.ladder.upload import OVERHEAD, read_upload
from server.web.auth import client_address, same_origin

__all__ = ["SubmissionRoutes", "Submit"]

Submit = Callable[[Ladder, str, Path, str], Any]


class SubmissionRoutes:
    """``GET /submit`` (the form) and ``POST /submit``. ``submit(ladder, token, path,
    address)`` checks and records a submission (awaitable;
    :func:`server.ladder.submit.submit` with the game's players)."""

    def __init__(self, access: SiteAccess, submit: Submit) -> None:
        self.access = access
        self.submit = submit
        self._uploads: set[str] = set()  # teams with an upload in progress
        self._uploads_lock = threading.Lock()

    def routes(self) -> list[Route]:
        return [
            Route("/submit", self._submit_form, methods=["GET"]),
            Route("/submit", self._submit, methods=["POST"]),
        ]

    async def _team_names(self) -> list[str]:
        return await self.access.read(lambda db: list(db.execute(select(s.teams.c.name)).scalars()))

    async def _submit_form(self, request: Request) -> Response:
        return HTMLResponse(pages.submit_page(await self._team_names()))

    def _upload_limit(self) -> int:
        limits = {**DEFAULT_LIMITS, **self.access.ladder.settings.get("limits", {})}
        return int(limits["upload_bytes"])

    def _claim(self, token: str, address: str, now: float) -> str:
        """The team whose upload may go on: refuse (:class:`LadderError`) a token that is not a
        team's, or a team with an upload still in progress (blocking: called in a worker
        thread, before the upload's file is read). Its caller must :meth:`_release` it."""
        if not token:
            raise Denied("the form has no team token before its file", 401)
        try:
            who = authenticate(self.access.ladder.engine, token, address, now)
        except Throttled:
            raise
        except LadderError as error:
            raise Denied(str(error), 401) from None
        if who.role != "team" or who.team is None:
            raise Denied("the admin token cannot submit: use the team's own token", 403)
        with self._uploads_lock:
            if who.team in self._uploads:
                message = f"{who.team}'s previous upload is still being checked: wait for it"
                raise Denied(message, 409)
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
        now = self.access.clock()

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
                done = await self.submit(self.access.ladder, token, upload.path, address)
        except LadderError as error:
            status = error.status if isinstance(error, Denied) else 400
            if "larger than" in str(error):
                status = 413
            status, headers = refusal(error, status)
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
