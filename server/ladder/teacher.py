"""The teacher's side of the ladder: the grades (one row per team, ``grades.csv``) and the
corrections (pause, freeze or resume the ladder; re-run a match; retire a version), each in one
transaction with its line in the audit. The runner plays and records matches; these read and
correct what it recorded."""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, func, select, update

from server.ladder import schema as s
from server.ladder.db import LadderError, ladder_row
from server.ladder.rating import Rating

__all__ = [
    "GRADE_COLUMNS",
    "STATES",
    "grades",
    "grades_csv",
    "rerun",
    "retire",
    "set_state",
]

#: What a new state is called in the audit, and which states it may follow.
STATES = {"pause": "paused", "freeze": "frozen", "resume": "running"}


def _now() -> float:
    return time.time()


def set_state(engine: Engine, action: str, actor: str = "cli") -> tuple[str, str]:
    """``pause``, ``freeze`` or ``resume`` the ladder (or name the state: ``paused``, ``frozen``,
    ``running``); (state before, state after)."""
    new = STATES.get(action, action)
    if new not in s.LADDER_STATES:
        raise LadderError(f"{action}: not a ladder state (pause, freeze, resume)")
    action = {v: k for k, v in STATES.items()}[new]
    with engine.begin() as db:
        old = ladder_row(db)["state"]
        db.execute(update(s.ladder).where(s.ladder.c.id == 1).values(state=new, changed=_now()))
        db.execute(
            s.audit.insert().values(
                at=_now(), actor=actor, action=action, detail=json.dumps({"from": old, "to": new})
            )
        )
    return old, new


GRADE_COLUMNS = (
    "rank", "team", "version", "rating", "rating_low", "rating_high", "mu", "sigma", "games",
    "wins", "draws", "losses", "failures",
)  # fmt: skip


def grades(source: Engine | Connection) -> list[dict[str, Any]]:
    """One row per team: its active version (else its newest that played) and that version's
    rating (mu, the interval mu -+ 2 sigma), games, W/D/L and failures; ranked by the
    interval's low end (a version is placed by the rating it has almost surely earned, so a new
    one with few games does not jump ahead), then mu, then name; a team that has not played
    comes after every team that has. ``source``: the ladder's engine (one transaction of its
    own) or a connection already in one (the pages read with it)."""
    with _transaction(source) as db:
        teams = list(db.execute(select(s.teams.c.id, s.teams.c.name)).mappings())
        versions = list(
            db.execute(
                select(
                    s.versions.c.id, s.versions.c.team_id, s.versions.c.number, s.versions.c.status
                ).order_by(s.versions.c.number)
            ).mappings()
        )
        rated = {row["version_id"]: row for row in db.execute(select(s.ratings)).mappings()}
        failures: dict[int, int] = {
            version: count
            for version, count in db.execute(
                select(s.seats.c.version_id, func.count())
                .join(s.matches, s.matches.c.id == s.seats.c.match_id)
                .where(s.matches.c.state == "done", s.seats.c.reason.is_not(None))
                .group_by(s.seats.c.version_id)
            )
        }
    rows = []
    for team in teams:
        own = [v for v in versions if v["team_id"] == team["id"]]
        active = [v for v in own if v["status"] == "active"]
        played = [v for v in own if v["id"] in rated]
        chosen = (active or played)[-1] if active or played else None
        rating_row = rated.get(chosen["id"]) if chosen else None
        rating = Rating(rating_row["mu"], rating_row["sigma"]) if rating_row else Rating()
        rows.append(
            {
                "team": team["name"],
                "version": chosen["number"] if chosen else "",
                "rating": round(rating.mu, 3), "rating_low": round(rating.low, 3),
                "rating_high": round(rating.high, 3),
                "mu": round(rating.mu, 6), "sigma": round(rating.sigma, 6),
                "games": rating_row["games"] if rating_row else 0,
                "wins": rating_row["wins"] if rating_row else 0,
                "draws": rating_row["draws"] if rating_row else 0,
                "losses": rating_row["losses"] if rating_row else 0,
                "failures": failures.get(chosen["id"], 0) if chosen else 0,
            }
        )  # fmt: skip
    rows.sort(key=lambda row: (row["games"] == 0, -row["rating_low"], -row["rating"], row["team"]))
    for place, row in enumerate(rows, 1):
        row["rank"] = place
    return rows


@contextmanager
def _transaction(source: Engine | Connection) -> Iterator[Connection]:
    if isinstance(source, Connection):
        yield source
    else:
        with source.begin() as db:
            yield db


def grades_csv(source: Engine | list[dict[str, Any]]) -> str:
    """``grades.csv``: the columns of :data:`GRADE_COLUMNS`, one row per team: the ladder's
    (an engine) or the rows :func:`grades` gave."""
    rows = grades(source) if isinstance(source, Engine) else source
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=GRADE_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def rerun(engine: Engine, match_id: int, why: str, actor: str = "cli") -> int:
    """Queue match ``match_id`` again (same seed, same versions, unless one was retired since):
    when the new one is recorded it replaces the old one's result (the old one becomes void,
    kept and shown as replaced) and the ratings are computed again; the new match's id."""
    if not 0 <= match_id <= s.MAX_ID:
        raise LadderError(f"match {match_id}: no such match")
    with engine.begin() as db:
        ladder_row(db, lock=True)
        old = db.execute(
            select(s.matches.c.seed, s.matches.c.state).where(s.matches.c.id == match_id)
        ).first()
        if old is None:
            raise LadderError(f"match {match_id}: no such match")
        if old.state not in ("done", "failed"):
            raise LadderError(f"match {match_id}: {old.state}, not finished: nothing to re-run")
        pending = db.execute(
            select(s.matches.c.id).where(
                s.matches.c.replaces == match_id, s.matches.c.state.in_(("queued", "running"))
            )
        ).scalar()
        if pending is not None:
            raise LadderError(f"match {match_id}: already being re-run as match {pending}")
        versions = list(
            db.execute(
                select(s.seats.c.version_id)
                .where(s.seats.c.match_id == match_id)
                .order_by(s.seats.c.seat)
            ).scalars()
        )
        new = db.execute(
            s.matches.insert().values(
                seed=old.seed, state="queued", created=_now(), replaces=match_id, why=why[:500]
            )
        ).inserted_primary_key
        assert new is not None
        db.execute(
            s.seats.insert(),
            [
                {"match_id": new[0], "seat": seat, "version_id": v}
                for seat, v in enumerate(versions)
            ],
        )
        db.execute(s.audit.insert().values(
            at=_now(), actor=actor, action="rerun",
            detail=json.dumps({"match": match_id, "new": new[0], "why": why}),
        ))  # fmt: skip
    return int(new[0])


def retire(engine: Engine, version_id: int, why: str, actor: str = "cli") -> None:
    """Retire a version (it plays no more; its queued matches become void); its rating and
    matches stay."""
    with engine.begin() as db:
        changed = db.execute(
            update(s.versions)
            .where(s.versions.c.id == version_id)
            .values(status="retired", reason=why[:500])
        ).rowcount
        if changed != 1:
            raise LadderError(f"version {version_id}: no such version")
        db.execute(s.audit.insert().values(
            at=_now(), actor=actor, action="retire",
            detail=json.dumps({"version": version_id, "why": why}),
        ))  # fmt: skip
