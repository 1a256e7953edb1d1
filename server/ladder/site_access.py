"""What every route of the ladder's site shares: reading the database in a worker thread, the
credentials (a team's signed cookie, the teacher's gate, :func:`server.ladder.auth.authenticate`
with its wrong tokens counted per address) and the store's texts."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from typing import Any, TypeVar

import trio
from sqlalchemy import update
from starlette.exceptions import HTTPException
from starlette.requests import Request

from server.ladder import schema, views
from server.ladder.auth import Identity, Throttled, authenticate, token_hash
from server.ladder.db import LadderError
from server.ladder.ladder import Ladder
from server.ladder.store import StoreError
from server.web.auth import SESSION_SECONDS, TeacherGate, TooManyTries

__all__ = ["TEAM_COOKIE", "TEAM_SESSION_SECONDS", "Denied", "SiteAccess", "refusal"]

#: The cookie a team's browser carries after it gave its token.
TEAM_COOKIE = "arena_team"
#: How long a team's login lasts (as the teacher's session).
TEAM_SESSION_SECONDS = SESSION_SECONDS

T = TypeVar("T")


class Denied(LadderError):
    """A credential refused: 401 (none, or a wrong one) or 403 (not one that may do this)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def refusal(error: LadderError, status: int) -> tuple[int, dict[str, str] | None]:
    """The status of a refused token: ``status``, or 429 with ``Retry-After`` for a client
    that used up its wrong tokens."""
    if isinstance(error, Throttled):
        return 429, {"Retry-After": str(error.retry_after)}
    return status, None


class SiteAccess:
    """One ladder's database, store and credentials, as its routes use them."""

    def __init__(self, ladder: Ladder, clock: Callable[[], float] = time.time) -> None:
        self.ladder = ladder
        self.clock = clock
        self._key = secrets.token_bytes(32)  # team sessions end with the server
        self.gate = TeacherGate(check=self._is_admin_token, clock=clock, home="/admin")

    # -- reading -------------------------------------------------------------------------------

    async def read(self, read: Callable[[Any], T]) -> T:
        """``read(connection)`` in a worker thread, in one read transaction."""

        def run() -> T:
            with self.ladder.engine.connect() as db:
                return read(db)

        return await trio.to_thread.run_sync(run)

    async def info(self) -> views.LadderInfo:
        info = await self.read(views.ladder_info)
        if info is None:
            raise HTTPException(503, "this ladder has no data yet: run 'arena ladder init'")
        return info

    async def team_view(self, name: str, limit: int | None = views.RECENT) -> views.TeamView:
        team = await self.read(lambda db: views.team_view(db, name, limit))
        if team is None:
            raise HTTPException(404, f"no team {name!r} in this ladder")
        return team

    def text(self, digest: str | None) -> str:
        """A stored output as text (blocking: call it in a worker thread)."""
        if not digest:
            return ""
        try:
            return self.ladder.store.read(digest).decode("utf-8", "replace")
        except StoreError:
            return "(this output is missing from the store)"

    # -- credentials ---------------------------------------------------------------------------

    async def identity(self, token: str, address: str) -> Identity:
        """Whose ``token`` is (:func:`server.ladder.auth.authenticate`, in a worker thread:
        its wrong tokens counted in the database per address)."""
        now = self.clock()
        return await trio.to_thread.run_sync(authenticate, self.ladder.engine, token, address, now)

    async def _is_admin_token(self, given: str, address: str) -> bool:
        try:
            who = await self.identity(given, address)
        except Throttled as error:
            raise TooManyTries(error.retry_after) from None
        except LadderError:
            return False
        return who.role == "admin"

    async def team_cookie(self, team: str, token: str) -> str:
        """The value of :data:`TEAM_COOKIE` that proves ``team`` gave its ``token``, until
        :data:`TEAM_SESSION_SECONDS` from now; signed with the name, the expiry, the token's
        hash and the team's logout count, so a new token for the team (``arena ladder token``)
        ends it, and so does the team's next logout (:meth:`end_team_logins`)."""
        expires = int(self.clock() + TEAM_SESSION_SECONDS)
        logins = await self.read(lambda db: views.team_logins(db, team))
        logouts = logins.logouts if logins is not None else 0
        return f"{team}:{expires}:{self._team_mac(team, expires, logouts, token_hash(token))}"

    def _team_mac(self, team: str, expires: int, logouts: int, digest: str) -> str:
        signed = f"team:{team}:{expires}:{logouts}:{digest}".encode()
        return hmac.new(self._key, signed, hashlib.sha256).hexdigest()

    async def team_logged_in(self, request: Request, team: str) -> bool:
        """Whether ``request`` carries ``team``'s login cookie, still valid."""
        rest, _, mac = request.cookies.get(TEAM_COOKIE, "").rpartition(":")
        name, _, expires = rest.rpartition(":")
        if not (name == team and expires.isdigit() and self.clock() < int(expires)):
            return False
        logins = await self.read(lambda db: views.team_logins(db, team))
        if logins is None:
            return False
        return any(
            hmac.compare_digest(
                mac.encode(), self._team_mac(team, int(expires), logins.logouts, d).encode()
            )
            for d in logins.token_hashes
        )

    async def end_team_logins(self, request: Request, team: str) -> bool:
        """When ``request`` carries ``team``'s login cookie: end every login of the team made
        until now (its logout count goes up, so no cookie signed before opens anything, a copy
        on another machine included) and say True. A request without it changes nothing."""
        if not await self.team_logged_in(request, team):
            return False

        def count_one_more() -> None:
            with self.ladder.engine.begin() as db:
                db.execute(
                    update(schema.teams)
                    .where(schema.teams.c.name == team)
                    .values(logouts=schema.teams.c.logouts + 1)
                )

        await trio.to_thread.run_sync(count_one_more)
        return True

    async def may_see(self, request: Request, team: str) -> bool:
        """Whether ``request`` carries ``team``'s cookie (made with a token the team still
        holds) or the teacher's credential."""
        return await self.team_logged_in(request, team) or await self.gate.is_teacher(request)
