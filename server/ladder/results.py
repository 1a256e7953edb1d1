"""Recording a played match: the match ``done``, each seat's result and the seats' ratings, in
one transaction.

Recording is a conditional update (``running`` to ``done``, only for the attempt that was
claimed) in the transaction that writes the seats' results and the ratings (one such transaction
at a time: it locks the ladder's row), so no match is counted twice. Frozen, a finished match is
recorded but changes no rating; a re-run replaces the result of the match it re-runs and every
rating is computed again.
"""

from __future__ import annotations

import json
import time

from sqlalchemy import Connection, Engine, select, update

from server.ladder import schema as s
from server.ladder.db import ladder_row
from server.ladder.play import MatchOutcome
from server.ladder.queue import Claim
from server.ladder.rating import Rating, outcomes, ranks, rate

__all__ = ["finish"]


def _now() -> float:
    return time.time()


_TALLY = {"win": "wins", "draw": "draws", "loss": "losses"}


def _rate(db: Connection, match_id: int, versions: list[int], places: list[int]) -> None:
    """Update the seats' ratings and W/D/L with one match's places (0 first)."""
    rows = {
        row["version_id"]: row
        for row in db.execute(
            select(s.ratings).where(s.ratings.c.version_id.in_(versions))
        ).mappings()
    }
    before = [Rating(rows[v]["mu"], rows[v]["sigma"]) if v in rows else Rating() for v in versions]
    scores = [-place for place in places]
    now = _now()
    for version, rating, result in zip(
        versions, rate(before, scores), outcomes(scores), strict=True
    ):
        old = rows.get(version)
        counts = {k: old[k] if old else 0 for k in ("games", "wins", "draws", "losses")}
        counts["games"] += 1
        counts[_TALLY[result]] += 1
        values = {"mu": rating.mu, "sigma": rating.sigma, "last_match_id": match_id,
                  "changed": now, **counts}  # fmt: skip
        if version in rows:
            db.execute(update(s.ratings).where(s.ratings.c.version_id == version).values(**values))
        else:
            db.execute(s.ratings.insert().values(version_id=version, **values))


def _recompute(db: Connection) -> None:
    """Every rating again from nothing: the rated done matches replayed in the order they
    were recorded (after a re-run replaced a result)."""
    db.execute(s.ratings.delete())
    query = (
        select(s.matches.c.id, s.matches.c.result, s.seats.c.version_id, s.seats.c.rank)
        .join(s.seats, s.seats.c.match_id == s.matches.c.id)
        .where(s.matches.c.state == "done")
        .order_by(s.matches.c.finished, s.matches.c.id, s.seats.c.seat)
    )
    played: dict[int, tuple[bool, list[int], list[int]]] = {}
    for match_id, result, version, place in db.execute(query):
        rated = json.loads(result or "{}").get("rated", True)
        entry = played.setdefault(match_id, (rated, [], []))
        entry[1].append(version)
        entry[2].append(place)
    for match_id, (rated, versions, places) in played.items():
        if rated:
            _rate(db, match_id, versions, places)


def finish(engine: Engine, claimed: Claim, outcome: MatchOutcome, files: dict[str, str]) -> bool:
    """Record a played match (``files``: its files' store digests, stored first): the match
    ``done``, each seat's result, and (unless the ladder is frozen) the seats' ratings, in one
    transaction; False (and nothing written) when this claim is no longer the match's."""
    record = outcome.record
    scores = outcome.ranking_scores
    places = ranks(scores)
    failures = {f.get("seat", record["seats"].index(f["team"])): f for f in record["failures"]}
    outputs = record.get("outputs") or [
        f"programs/{record['name']}-{team}.txt" for team in record["seats"]
    ]
    versions = [version for version, *_ in claimed.seats]
    with engine.begin() as db:
        frozen = ladder_row(db, lock=True)["state"] == "frozen"
        done = db.execute(
            update(s.matches)
            .where(claimed.still_ours())
            .values(
                state="done",
                finished=_now(),
                log_hash=files.get(record.get("log") or ""),
                result=json.dumps(
                    {
                        **record,
                        "files": files,
                        "rated": not frozen,
                        "replay_hash": files.get(record.get("replay") or ""),
                    }
                ),
            )
        ).rowcount
        if done != 1:
            return False
        for seat in range(len(versions)):
            failure = failures.get(seat)
            db.execute(
                update(s.seats)
                .where(s.seats.c.match_id == claimed.match_id, s.seats.c.seat == seat)
                .values(
                    points=outcome.points[seat], rank=places[seat],
                    reason=failure["reason"] if failure else None,
                    detail=str(failure.get("detail") or "")[:2000] if failure else None,
                    output_hash=files.get(outputs[seat]) if seat < len(outputs) else None,
                )
            )  # fmt: skip
        if frozen:
            return True
        if claimed.replaces is not None:
            db.execute(
                update(s.matches)
                .where(s.matches.c.id == claimed.replaces)
                .values(state="void", why=f"replaced by match {claimed.match_id}")
            )
            _recompute(db)
        else:
            _rate(db, claimed.match_id, versions, places)
    return True
