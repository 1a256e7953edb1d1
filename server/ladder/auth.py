"""Tokens: random, shown once, only their SHA-256 stored; checked in constant time (every stored
hash compared, none skipped); wrong tokens rate limited per source (a web client's address,
``cli``), the failures kept in the database so that separate processes share the count.

    who = authenticate(engine, token, "10.0.0.9", now)   # blocking: a thread under trio
    # Identity("team", 3, "ann"); LadderError("wrong token"); Throttled (its retry_after)
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, delete, false, func, insert, select

from server.ladder import schema
from server.ladder.db import LadderError

__all__ = [
    "ATTEMPTS",
    "WINDOW",
    "Identity",
    "Throttled",
    "authenticate",
    "new_token",
    "token_hash",
]

#: Wrong tokens: at most this many per source in WINDOW seconds, then every try is refused.
ATTEMPTS, WINDOW = 5, 60.0


class Throttled(LadderError):
    """A source that used up its wrong tokens: refused, its token not even looked at."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many wrong tokens: try again in {retry_after} s")
        self.retry_after = retry_after


@dataclass(frozen=True)
class Identity:
    role: str  # "team" | "admin"
    team_id: int | None = None
    team: str | None = None

    @property
    def actor(self) -> str:
        return "admin" if self.role == "admin" else f"team:{self.team}"


def new_token() -> str:
    """A fresh token: 32 random bytes, URL-safe (43 characters), never starting with ``-``
    (a command line would read ``--token -x...`` as a flag)."""
    while (token := secrets.token_urlsafe(32)).startswith("-"):
        pass
    return token


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def authenticate(engine: Engine, token: str, source: str, now: float) -> Identity:
    """Whose ``token`` is; :class:`LadderError` for a wrong one (counted, in a transaction of
    its own), :class:`Throttled` when ``source`` used up its wrong tokens (nothing checked
    then). The one place a token is compared: the pages, the command line and the upload all
    call it (in a worker thread when on the event loop)."""
    with engine.begin() as db:
        found = _check(db, token, source, now)
    if isinstance(found, LadderError):
        raise found
    return found


def _check(db: Connection, token: str, source: str, now: float) -> Identity | LadderError:
    db.execute(delete(schema.auth_failures).where(schema.auth_failures.c.at <= now - WINDOW))
    recent = db.execute(
        select(func.count(), func.min(schema.auth_failures.c.at)).where(
            schema.auth_failures.c.source == source
        )
    ).one()
    if recent[0] >= ATTEMPTS:
        wait = max(1, math.ceil(recent[1] + WINDOW - now))
        return Throttled(wait)
    given = token_hash(token).encode()
    found = None
    rows = db.execute(
        select(schema.tokens.c.token_hash, schema.tokens.c.role, schema.tokens.c.team_id).where(
            schema.tokens.c.revoked.is_(false())
        )
    ).all()
    for stored, role, team_id in rows:
        if hmac.compare_digest(stored.encode(), given) and found is None:
            found = (role, team_id)
    if found is None:
        db.execute(insert(schema.auth_failures).values(source=source, at=now))
        return LadderError("wrong token")
    role, team_id = found
    if role == "admin":
        return Identity("admin")
    name = db.execute(select(schema.teams.c.name).where(schema.teams.c.id == team_id)).scalar()
    return Identity("team", team_id, name)
