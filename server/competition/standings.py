"""Standings of a tournament from its finished matches: pure functions of the match records.

A match record is the dict the runner journals (see docs/tournament.md): ``seats`` (team names
in seat 0 and 1), ``points`` (win 1, draw 0.5, loss 0; 0 and 0 when both teams failed) and
``failures`` (``{"team", "reason", "detail"}``). A game of 3-4 seats (Fish, Penguins) is a win
for its sole first place, a draw for a shared one, a loss for the others. Ratings are
openskill's (Plackett-Luce, as ``arena sim`` reports them) fed the matches in index order;
head-to-head win rates carry a 95% Wilson interval (replay.stats).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from replay.stats import GameRecord, pairing_summary, ratings

__all__ = ["game_records", "standings"]


def game_records(records: Sequence[Mapping[str, Any]]) -> list[GameRecord]:
    """The matches as replay.stats sees them; a pair's seed groups its two seatings."""
    groups: dict[tuple[int, frozenset[str]], int] = {}
    games = []
    for record in sorted(records, key=lambda r: r["index"]):
        seats = tuple(record["seats"])
        group = groups.setdefault((record["seed"], frozenset(seats)), len(groups))
        # A game of 3-4 seats ranks by its ``scores`` (fish; a failed program -1): 0-point
        # losers are then still ordered among themselves, for ratings and head-to-head alike.
        returns = tuple(record.get("scores") or record["points"])
        games.append(GameRecord(group=group, seats=seats, returns=returns, length=0))
    return games


def standings(
    names: Sequence[str],
    records: Sequence[Mapping[str, Any]],
    byes: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """Per team W/D/L, points, rating and failures (best first); per pair the head-to-head."""
    byes = byes or {}
    rows: dict[str, dict[str, Any]] = {
        name: {
            "team": name, "played": 0, "wins": 0, "draws": 0, "losses": 0,
            "points": float(byes.get(name, 0)), "byes": byes.get(name, 0), "failures": [],
        }
        for name in names
    }  # fmt: skip
    for record in records:
        points = record["points"]
        best = max(points)
        for seat, name in enumerate(record["seats"]):
            row = rows[name]
            mine = points[seat]
            row["played"] += 1
            row["points"] += mine
            if mine == best > 0:  # first place: alone a win, shared a draw
                row["wins" if points.count(best) == 1 else "draws"] += 1
            else:
                row["losses"] += 1
        for failure in record.get("failures", []):
            rows[failure["team"]]["failures"].append(
                {"match": record["name"], "reason": failure["reason"], "detail": failure["detail"]}
            )
    games = game_records(records)
    rated = {row["strategy"]: row for row in ratings(games, list(names))}
    for name, row in rows.items():
        rating = rated[name]
        row["mu"], row["sigma"], row["ordinal"] = rating["mu"], rating["sigma"], rating["ordinal"]
    table = sorted(rows.values(), key=lambda r: (-r["points"], -(r["ordinal"] or 0.0), r["team"]))
    for rank, row in enumerate(table, start=1):
        row["rank"] = rank
    by_pair: dict[frozenset[str], list[GameRecord]] = defaultdict(list)
    for game in games:
        for a, b in itertools.combinations(sorted(set(game.seats)), 2):
            by_pair[frozenset((a, b))].append(game)
    pairs = []
    order = {name: i for i, name in enumerate(names)}
    for pair, pair_games in sorted(by_pair.items(), key=lambda kv: sorted(order[n] for n in kv[0])):
        a, b = sorted(pair, key=order.__getitem__)
        summary = pairing_summary(a, b, pair_games)
        pairs.append({key: summary[key] for key in ("a", "b", "games", "wins", "draws", "losses",
                                                      "win_rate", "ci95")})  # fmt: skip
    return {"teams": table, "pairs": pairs}
