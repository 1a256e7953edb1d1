"""The ladder's queue of matches in the database: kept topped up with the scheduler's pairings
of the active versions, claimed one at a time, given back when a match could not be played.

Claiming is a conditional update (``queued`` to ``running``, only if it still is), so no match
is played by two runners. A runner killed mid-match (kill -9) leaves it ``running``:
:func:`recover` puts every ``running`` match back in the queue before the next runner starts. A
match that cannot be played (a worker lost, the cluster gone) is queued again, up to
:data:`ATTEMPTS` times, then ``failed`` with its reason. A queued match whose version is no
longer active when its turn comes is ``void``. Paused or frozen, nothing is claimed.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, and_, func, select, update

from server.competition.teams import DEFAULT_SEATS, OPTION_KEYS
from server.ladder import schema as s
from server.ladder.db import ladder_row
from server.ladder.rating import Rating
from server.ladder.schedule import Entrant, Ledger, plan

__all__ = [
    "ATTEMPTS",
    "Claim",
    "claim",
    "give_back",
    "idle_reason",
    "match_settings",
    "recover",
    "seats_of",
    "top_up",
]

#: Times a match is started before it is given up as ``failed``.
ATTEMPTS = 3
#: The ``[tournament]`` keys a ladder's settings pass to its matches (limits, game options).
MATCH_KEYS = {
    "match_seconds",
    "connect_seconds",
    "memory_mb",
    "cpu_seconds",
    "config",
    *OPTION_KEYS,
}


def _now() -> float:
    return time.time()


def match_settings(ladder: dict[str, Any]) -> dict[str, Any]:
    """The ``[tournament]`` keys of the ladder's settings its matches are played with."""
    table = ladder["settings"].get("tournament", {})
    return {key: value for key, value in table.items() if key in MATCH_KEYS}


def seats_of(ladder: dict[str, Any]) -> int:
    table = ladder["settings"].get("tournament", {})
    return int(table.get("players_per_game") or DEFAULT_SEATS.get(ladder["game"], 2))


def recover(engine: Engine) -> list[int]:
    """Queue again every match a runner left ``running`` (it was killed); their ids."""
    with engine.begin() as db:
        ids = list(
            db.execute(select(s.matches.c.id).where(s.matches.c.state == "running")).scalars()
        )
        if ids:
            db.execute(
                update(s.matches)
                .where(s.matches.c.state == "running")
                .values(state="queued", worker=None, started=None)
            )
    return ids


def _active(db: Connection) -> list[dict[str, Any]]:
    query = (
        select(
            s.versions.c.id,
            s.versions.c.submitted,
            s.versions.c.checked,
            s.teams.c.name,
            s.ratings.c.mu,
            s.ratings.c.sigma,
        )
        .join(s.teams, s.teams.c.id == s.versions.c.team_id)
        .outerjoin(s.ratings, s.ratings.c.version_id == s.versions.c.id)
        .where(s.versions.c.status == "active")
        .order_by(s.versions.c.id)
    )
    return [dict(row) for row in db.execute(query).mappings()]


def top_up(engine: Engine, queued: int) -> int:
    """Queue new matches until ``queued`` wait (none unless the ladder is running); how many."""
    with engine.begin() as db:
        ladder = ladder_row(db)
        if ladder["state"] != "running":
            return 0
        waiting = db.execute(
            select(func.count()).select_from(s.matches).where(s.matches.c.state == "queued")
        ).scalar_one()
        if waiting >= queued:
            return 0
        active = _active(db)
        ids = [row["id"] for row in active]
        played = (
            select(s.seats.c.match_id, s.seats.c.seat, s.seats.c.version_id)
            .join(s.matches, s.matches.c.id == s.seats.c.match_id)
            .where(s.matches.c.state.in_(("queued", "running", "done", "failed")))
            .where(s.seats.c.version_id.in_(ids))
            .order_by(s.seats.c.match_id, s.seats.c.seat)
        )
        by_match: dict[int, list[int]] = {}
        for match_id, _, version in db.execute(played):
            by_match.setdefault(match_id, []).append(version)
        ledger = Ledger.of(by_match.values(), seats=seats_of(ladder))
        entrants = [
            Entrant(
                row["id"], row["name"],
                mu=row["mu"] if row["mu"] is not None else Rating().mu,
                sigma=row["sigma"] if row["sigma"] is not None else Rating().sigma,
                activated=row["checked"] or row["submitted"],
            )
            for row in active
        ]  # fmt: skip
        first = (db.execute(select(func.max(s.matches.c.id))).scalar() or 0) + 1
        seed = int(ladder["settings"].get("tournament", {}).get("seed", 0))
        pairings = plan(entrants, ledger, queued - waiting, first_number=first, ladder_seed=seed)
        now = _now()
        for pairing in pairings:
            match_id = db.execute(
                s.matches.insert().values(seed=pairing.seed, state="queued", created=now)
            ).inserted_primary_key
            assert match_id is not None
            db.execute(
                s.seats.insert(),
                [
                    {"match_id": match_id[0], "seat": seat, "version_id": version}
                    for seat, version in enumerate(pairing.seats)
                ],
            )
    return len(pairings)


def idle_reason(engine: Engine) -> str | None:
    """Why no match can start now (the ladder paused or frozen, too few active versions), in
    one line; None when one could."""
    with engine.begin() as db:
        ladder = ladder_row(db)
        if ladder["state"] != "running":
            return f"ladder {ladder['state']}: no match starts until arena ladder resume"
        teams = {row["name"] for row in _active(db)}
    seats = seats_of(ladder)
    if len(teams) < seats:
        return (
            f"waiting for versions: {len(teams)} team(s) with an active version, "
            f"a match needs {seats}"
        )
    return None


@dataclass(frozen=True, eq=False)
class Claim:
    """A match this runner has claimed: what it needs to play it and to record it."""

    match_id: int
    attempt: int
    seed: int
    game: str
    settings: dict[str, Any]
    #: Per seat: version id, program name, program manifest digest, command.
    seats: tuple[tuple[int, str, str, tuple[str, ...]], ...]
    #: The match this one re-runs (its result is replaced when this one is recorded).
    replaces: int | None = None

    def still_ours(self) -> ColumnElement[bool]:
        """The condition that the match is still this claim's: running, at this attempt (a
        runner that lost it, given back or re-claimed, must not write over it)."""
        return and_(
            s.matches.c.id == self.match_id,
            s.matches.c.state == "running",
            s.matches.c.attempts == self.attempt,
        )


def _program_name(team: str, number: int, taken: set[str]) -> str:
    suffix = f"-v{number}"
    name = team[: 32 - len(suffix)] + suffix
    if name in taken:
        name = f"{name[:28]}-s{len(taken)}"
    taken.add(name)
    return name


def claim(engine: Engine, worker: str) -> Claim | None:
    """Claim the oldest queued match (``queued`` to ``running``); None when none waits or the
    ladder is not running. A match whose version is no longer active is made ``void``."""
    while True:
        with engine.begin() as db:
            ladder = ladder_row(db)
            if ladder["state"] != "running":
                return None
            match = (
                db.execute(
                    select(
                        s.matches.c.id,
                        s.matches.c.seed,
                        s.matches.c.attempts,
                        s.matches.c.replaces,
                    )
                    .where(s.matches.c.state == "queued")
                    .order_by(s.matches.c.id)
                    .limit(1)
                )
                .mappings()
                .first()
            )
            if match is None:
                return None
            seated = list(
                db.execute(
                    select(
                        s.seats.c.version_id,
                        s.versions.c.number,
                        s.versions.c.status,
                        s.versions.c.program_hash,
                        s.versions.c.command,
                        s.teams.c.name,
                    )
                    .join(s.versions, s.versions.c.id == s.seats.c.version_id)
                    .join(s.teams, s.teams.c.id == s.versions.c.team_id)
                    .where(s.seats.c.match_id == match["id"])
                    .order_by(s.seats.c.seat)
                ).mappings()
            )
            # (a re-run plays the versions of the match it replaces, unless one was retired)
            gone = [
                row for row in seated
                if row["status"] == "retired"
                or (row["status"] != "active" and match["replaces"] is None)
            ]  # fmt: skip
            changed = db.execute(
                update(s.matches)
                .where(s.matches.c.id == match["id"], s.matches.c.state == "queued")
                .values(
                    state="void" if gone else "running",
                    started=None if gone else _now(),
                    finished=_now() if gone else None,
                    worker=None if gone else worker,
                    attempts=match["attempts"] + (0 if gone else 1),
                    why=f"{gone[0]['name']} v{gone[0]['number']} is {gone[0]['status']}"
                    if gone
                    else None,
                )
            ).rowcount
            if changed != 1 or gone:
                continue  # (another runner took it, or it was made void: the next one)
            taken: set[str] = set()
            return Claim(
                match_id=match["id"],
                attempt=match["attempts"] + 1,
                seed=match["seed"],
                game=ladder["game"],
                settings=match_settings(ladder),
                replaces=match["replaces"],
                seats=tuple(
                    (
                        row["version_id"],
                        _program_name(row["name"], row["number"], taken),
                        row["program_hash"],
                        tuple(json.loads(row["command"])),
                    )
                    for row in seated
                ),
            )


def give_back(engine: Engine, claimed: Claim, error: str) -> str:
    """A claimed match that could not be played: ``queued`` again, or ``failed`` after
    :data:`ATTEMPTS` starts (or at once when ``error`` is the match's own fault); its state."""
    final = claimed.attempt >= ATTEMPTS
    state = "failed" if final else "queued"
    with engine.begin() as db:
        db.execute(
            update(s.matches)
            .where(claimed.still_ours())
            .values(
                state=state,
                worker=None,
                why=error[:500],
                finished=_now() if final else None,
                started=None if not final else _now(),
            )
        )
    return state
