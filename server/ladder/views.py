"""What the ladder's pages show, read from its database: plain rows, no HTML.

    with engine.connect() as db:
        table = standings(db)            # the ladder, best first
        team = team_view(db, "fay")      # a team's versions and matches (None: no such team)
        match = match_view(db, 17)       # one match and its seats
        running = live_matches(db)       # the matches being played now

A team's rank is by the low end of its active version's rating interval (mu - 2 sigma), then
mu, then its name: a new version with few games ranks low until its games tell.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, false, select

from server.ladder import schema as s

__all__ = [
    "LadderInfo",
    "MatchRow",
    "SeatRow",
    "Standing",
    "TeamLogins",
    "TeamView",
    "VersionRow",
    "find_version",
    "ladder_info",
    "live_matches",
    "match_view",
    "parse_number",
    "recent_matches",
    "standings",
    "team_logins",
    "team_view",
]

#: How many matches a team page and the ladder's "recent" list show.
RECENT = 50


@dataclass(frozen=True)
class LadderInfo:
    name: str
    game: str
    state: str
    changed: float
    teams: int
    matches_done: int
    matches_queued: int
    matches_running: int


@dataclass(frozen=True)
class Standing:
    rank: int
    team: str
    version: int | None
    mu: float | None
    sigma: float | None
    games: int
    wins: int
    draws: int
    losses: int
    changed: float | None

    @property
    def interval(self) -> tuple[float, float] | None:
        if self.mu is None or self.sigma is None:
            return None
        return self.mu - 2 * self.sigma, self.mu + 2 * self.sigma


@dataclass(frozen=True)
class VersionRow:
    id: int
    number: int
    status: str
    reason: str | None
    source: str
    submitted: float
    checked: float | None
    files: int
    size: int
    mu: float | None
    sigma: float | None
    games: int
    preflight: dict[str, Any] | None
    build_output_hash: str | None
    preflight_output_hash: str | None


@dataclass(frozen=True)
class SeatRow:
    seat: int
    team: str
    version: int
    points: float | None
    rank: int | None
    reason: str | None
    detail: str | None
    output_hash: str | None


@dataclass(frozen=True)
class MatchRow:
    id: int
    seed: int
    state: str
    created: float
    started: float | None
    finished: float | None
    worker: str | None
    log_hash: str | None
    replaces: int | None
    why: str | None
    result: dict[str, Any] | None
    seats: tuple[SeatRow, ...]

    @property
    def replay_hash(self) -> str | None:
        """The store digest of the match's replay page, when it has one."""
        result = self.result or {}
        digest = (result.get("files") or {}).get(result.get("replay") or "")
        return digest if isinstance(digest, str) else None

    def cpu(self, seat: int) -> dict[str, Any] | None:
        """The CPU a seat's program used in a fair-time match (docs/fair-time.md): seconds,
        requests, per_request; None when the match was not measured."""
        result = self.result or {}
        names, cpu = result.get("seats") or [], result.get("cpu") or {}
        found = cpu.get(names[seat]) if seat < len(names) else None
        return found if isinstance(found, dict) else None

    def outcome(self, team: str | None = None) -> str:
        """One phrase: "fay won", "draw", "fay lost: crashed"; from ``team``'s side when given."""
        if self.state != "done":
            return self.state
        best = [seat for seat in self.seats if seat.rank == 0]
        if len(best) != 1 or len(self.seats) < 2:
            return "draw"
        for seat in self.seats:
            if team is not None and seat.team != team:
                continue
            if seat.rank == 0:
                return f"{seat.team} won"
            return f"{seat.team} lost" + (f": {seat.reason}" if seat.reason else "")
        return f"{best[0].team} won"


@dataclass(frozen=True)
class TeamView:
    name: str
    versions: tuple[VersionRow, ...]
    matches: tuple[MatchRow, ...]

    @property
    def active(self) -> VersionRow | None:
        return next((version for version in self.versions if version.status == "active"), None)


def _json(text: str | None) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def ladder_info(db: Connection) -> LadderInfo | None:
    """The ladder's name, game and state, with counts; None before ``arena ladder init``."""
    row = db.execute(select(s.ladder).where(s.ladder.c.id == 1)).first()
    if row is None:
        return None
    states = {state: 0 for state in s.MATCH_STATES}
    for (state,) in db.execute(select(s.matches.c.state)):
        states[state] = states.get(state, 0) + 1
    teams = len(db.execute(select(s.teams.c.id)).all())
    return LadderInfo(
        name=row.name,
        game=row.game,
        state=row.state,
        changed=row.changed,
        teams=teams,
        matches_done=states["done"],
        matches_queued=states["queued"],
        matches_running=states["running"],
    )


def standings(db: Connection) -> list[Standing]:
    """Every team in the order of ``grades.csv`` (:func:`server.ladder.teacher.grades`: the
    interval's low end, then mu, then name; teams that have not played last), with when its
    rating last changed."""
    from server.ladder.teacher import grades

    changed = {
        (row.name, row.number): row.changed
        for row in db.execute(
            select(s.teams.c.name, s.versions.c.number, s.ratings.c.changed)
            .join(s.versions, s.versions.c.team_id == s.teams.c.id)
            .join(s.ratings, s.ratings.c.version_id == s.versions.c.id)
        )
    }
    return [
        Standing(
            rank=row["rank"],
            team=row["team"],
            version=row["version"] or None,
            mu=row["mu"] if row["games"] else None,
            sigma=row["sigma"] if row["games"] else None,
            games=row["games"],
            wins=row["wins"],
            draws=row["draws"],
            losses=row["losses"],
            changed=changed.get((row["team"], row["version"])),
        )
        for row in grades(db)
    ]


def _matches(db: Connection, ids: list[int]) -> list[MatchRow]:
    if not ids:
        return []
    seat_rows = db.execute(
        select(s.seats, s.versions.c.number, s.teams.c.name.label("team"))
        .select_from(
            s.seats.join(s.versions, s.versions.c.id == s.seats.c.version_id).join(
                s.teams, s.teams.c.id == s.versions.c.team_id
            )
        )
        .where(s.seats.c.match_id.in_(ids))
        .order_by(s.seats.c.match_id, s.seats.c.seat)
    ).all()
    by_match: dict[int, list[SeatRow]] = {}
    for row in seat_rows:
        by_match.setdefault(row.match_id, []).append(
            SeatRow(
                seat=row.seat,
                team=row.team,
                version=row.number,
                points=row.points,
                rank=row.rank,
                reason=row.reason,
                detail=row.detail,
                output_hash=row.output_hash,
            )
        )
    found = db.execute(
        select(s.matches).where(s.matches.c.id.in_(ids)).order_by(s.matches.c.id.desc())
    ).all()
    return [
        MatchRow(
            id=row.id,
            seed=row.seed,
            state=row.state,
            created=row.created,
            started=row.started,
            finished=row.finished,
            worker=row.worker,
            log_hash=row.log_hash,
            replaces=row.replaces,
            why=row.why,
            result=_json(row.result),
            seats=tuple(by_match.get(row.id, ())),
        )
        for row in found
    ]


def parse_number(text: str) -> int | None:
    """A number a form gave (ASCII digits, such as ``17``), or None (``x``, ``-1``, ``\u00b2``)."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() else None


def find_version(db: Connection, team: str, number: int) -> int | None:
    """The id of ``team``'s version ``number``, or None."""
    if not 0 <= number <= s.MAX_ID:
        return None
    found: int | None = db.execute(
        select(s.versions.c.id)
        .select_from(s.versions.join(s.teams, s.teams.c.id == s.versions.c.team_id))
        .where(s.teams.c.name == team, s.versions.c.number == number)
    ).scalar()
    return found


@dataclass(frozen=True)
class TeamLogins:
    """What a team's login cookie is signed with: the team's logout count and the hashes of its
    tokens still valid (a new token revokes the old; a logout counts one more)."""

    logouts: int
    token_hashes: tuple[str, ...]


def team_logins(db: Connection, team: str) -> TeamLogins | None:
    """``team``'s :class:`TeamLogins` (None: no such team)."""
    logouts = db.execute(select(s.teams.c.logouts).where(s.teams.c.name == team)).scalar()
    if logouts is None:
        return None
    hashes = db.execute(
        select(s.tokens.c.token_hash)
        .select_from(s.tokens.join(s.teams, s.teams.c.id == s.tokens.c.team_id))
        .where(s.teams.c.name == team, s.tokens.c.revoked.is_(false()))
    ).scalars()
    return TeamLogins(int(logouts), tuple(hashes))


def match_view(db: Connection, match_id: int) -> MatchRow | None:
    if not 0 <= match_id <= s.MAX_ID:
        return None
    found = _matches(db, [match_id])
    return found[0] if found else None


def recent_matches(db: Connection, limit: int = RECENT) -> list[MatchRow]:
    """The last finished matches, newest first."""
    ids = db.execute(
        select(s.matches.c.id)
        .where(s.matches.c.state == "done")
        .order_by(s.matches.c.finished.desc(), s.matches.c.id.desc())
        .limit(limit)
    ).scalars()
    return _matches(db, list(ids))


def live_matches(db: Connection) -> list[MatchRow]:
    """The matches being played now, oldest first."""
    ids = db.execute(
        select(s.matches.c.id).where(s.matches.c.state == "running").order_by(s.matches.c.id)
    ).scalars()
    return sorted(_matches(db, list(ids)), key=lambda match: match.id)


def team_view(db: Connection, name: str, limit: int | None = RECENT) -> TeamView | None:
    """A team's versions and its newest ``limit`` matches (None: all of them)."""
    team = db.execute(select(s.teams.c.id).where(s.teams.c.name == name)).first()
    if team is None:
        return None
    version_rows = db.execute(
        select(s.versions, s.ratings.c.mu, s.ratings.c.sigma, s.ratings.c.games)
        .select_from(s.versions.outerjoin(s.ratings, s.ratings.c.version_id == s.versions.c.id))
        .where(s.versions.c.team_id == team.id)
        .order_by(s.versions.c.number.desc())
    ).all()
    versions = tuple(
        VersionRow(
            id=row.id,
            number=row.number,
            status=row.status,
            reason=row.reason,
            source=row.source,
            submitted=row.submitted,
            checked=row.checked,
            files=row.files,
            size=row.size,
            mu=row.mu,
            sigma=row.sigma,
            games=row.games or 0,
            preflight=_json(row.preflight),
            build_output_hash=row.build_output_hash,
            preflight_output_hash=row.preflight_output_hash,
        )
        for row in version_rows
    )
    ids = db.execute(
        select(s.matches.c.id)
        .select_from(s.matches.join(s.seats, s.seats.c.match_id == s.matches.c.id))
        .where(s.seats.c.version_id.in_([version.id for version in versions] or [-1]))
        .where(s.matches.c.state.in_(("done", "running", "failed")))
        .distinct()
        .order_by(s.matches.c.id.desc())
        .limit(limit)
    ).scalars()
    return TeamView(name=name, versions=versions, matches=tuple(_matches(db, list(ids))))
