"""Judging a dungeon match of a tournament: which team failed and why, each seat's points, and
the result's line. Pure: the run passes what the server, the programs and the log told.

A team that fails loses; the reasons (docs/tournament.md):

* ``never_connected``: its six sockets were not all in the match ``connect_seconds`` after it
  was started;
* ``protocol_error``: the server closed one of its sockets for a protocol fault (a line that
  is not JSON or too long, the error limit, a socket it stopped reading);
* ``crashed``: all its sockets closed before the end and the program had failed (non-zero
  exit, a signal; ``sandbox_limit`` when a limit's signal ended it), waited for up to
  ``EXIT_GRACE`` seconds after the sockets closed;
* ``disconnected``: all its sockets closed before the end, the program exiting cleanly;
* ``hung``: the match reached ``match_seconds`` and the team had not crossed a single corridor;
* ``time_limit``: the team went past its CPU budget (``--cpu-budget``) and forfeited.
"""

from __future__ import annotations

from typing import Any

from server.competition.pairings import Points
from server.competition.reasons import failed_kind

__all__ = ["cpu_by_team", "judge", "result_line"]


def judge(
    *,
    connected: tuple[bool, bool],
    winner: int | None,
    reason: str | None,
    faults: dict[int, str],
    exits: tuple[tuple[str | None, bool], tuple[str | None, bool]],
    crossings: tuple[int, int],
    match_seconds: float,
) -> tuple[Points, list[dict[str, Any]], str]:
    """Each seat's points, the failures (seat, reason, detail) and the result's reason."""
    failures: list[dict[str, Any]] = []
    for seat in (0, 1):
        exit_text, failed = exits[seat]
        if not connected[seat]:
            if failed:
                detail = f"{exit_text} before its six sockets joined"
                failures.append({"seat": seat, "reason": failed_kind(exit_text), "detail": detail})
            else:
                detail = exit_text or "its six sockets did not all join in time"
                failures.append({"seat": seat, "reason": "never_connected", "detail": detail})
        elif reason == "forfeit" and winner == 1 - seat and failed:
            # An exit code or a signal wins over a protocol fault and the closed sockets.
            failures.append({"seat": seat, "reason": failed_kind(exit_text), "detail": exit_text})
        elif reason == "time_limit" and winner == 1 - seat:
            detail = "it went past its CPU budget for the match"
            failures.append({"seat": seat, "reason": "time_limit", "detail": detail})
        elif seat in faults:
            failures.append({"seat": seat, "reason": "protocol_error", "detail": faults[seat]})
        elif reason == "forfeit" and winner == 1 - seat:
            detail = exit_text or "its sockets closed before the end"
            failures.append({"seat": seat, "reason": "disconnected", "detail": detail})
        elif reason == "time" and crossings[seat] == 0:
            detail = f"no corridor crossed in {match_seconds:g} s"
            failures.append({"seat": seat, "reason": "hung", "detail": detail})
    failed_seats = {f["seat"] for f in failures}
    if len(failed_seats) == 2:
        return (0.0, 0.0), failures, failures[0]["reason"]
    if failed_seats:
        loser = failed_seats.pop()
        points: Points = (0.0, 1.0) if loser == 0 else (1.0, 0.0)
        return points, failures, failures[0]["reason"]
    if winner is None:
        return (0.5, 0.5), failures, reason or "draw"
    return ((1.0, 0.0) if winner == 0 else (0.0, 1.0)), failures, reason or "win"


def result_line(
    seats: tuple[str, ...], points: Points, failures: list[dict[str, Any]], reason: str
) -> str:
    """The match's result, worded by who failed: "ann wins; fay lost: crashed", never
    "ann wins (crashed)"."""
    a, b = seats
    lost = [f"{seats[f['seat']]} lost: {f['reason']}" for f in failures]
    if points[0] == points[1]:
        result = f"draw ({reason})" if points[0] else "both lose"
    else:
        result = f"{a if points[0] > points[1] else b} wins"
        result += "" if failures else f" ({reason})"
    return "; ".join([result, *lost])


def cpu_by_team(cpu: dict[str, Any] | None, seats: tuple[str, ...]) -> dict[str, Any] | None:
    """The match's CPU per team name (the actor's is per seat); None: not measured."""
    if cpu is None:
        return None
    return {team: cpu[str(seat)] for seat, team in enumerate(seats) if str(seat) in cpu}
