"""A tournament's results: the content of results.json and results.csv, the failure reasons,
each match's summary and replay page (replay.html). :mod:`server.competition.outputs` writes
them into the output folder with the pages."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from server.competition.board import LogTail
from server.competition.pairings import Plan
from server.competition.standings import standings
from server.competition.teams import Tournament

__all__ = [
    "CSV_COLUMNS",
    "REASONS",
    "match_summary",
    "results",
    "results_csv",
    "summary_and_replay",
    "write_replay",
]

#: The reasons of a failure, in the order the first that applies is chosen (spec tournament.md).
REASONS = {
    "preflight": "it failed the check before the tournament",
    "sandbox_limit": "it went past a sandbox limit (memory, processes, output, file size)",
    "crashed": "the program failed (exit code or signal) before the end",
    "never_connected": "it never joined its match in time",
    "protocol_error": "it broke the game's protocol (the check or message says how)",
    "illegal_move": "it made a move the rules forbid",
    "time_limit": "it went past a call's or the match's time budget",
    "hung": "alive and connected, it made no progress within the game's idle limit",
    "disconnected": "its sockets closed before the end and it exited 0 (quit early)",
}

#: The columns of results.csv (spec tournament.md), then one per reason.
CSV_COLUMNS = (
    "rank", "team", "points", "played", "wins", "draws", "losses", "rating", "rating_low",
    "rating_high", "failures",
)  # fmt: skip


def match_summary(log_path: Path) -> dict[str, list[int]]:
    """Crossings and deaths per team, read from a match log."""
    tail = LogTail(Path(log_path))
    tail.update()
    return {"crossings": tail.crossings, "deaths": tail.deaths}


def summary_and_replay(log_path: Path, page: Path, seats: Sequence[str]) -> dict[str, list[int]]:
    """:func:`match_summary` and :func:`write_replay` from one read of the log (a digest log is
    read by re-running its match: reading it twice was most of a short match's overhead)."""
    from replay.matchlog import read_log

    log = read_log(log_path)
    tail = LogTail(Path(log_path))
    tail.count(log.events)
    write_replay(log_path, page, seats, log=log)
    return {"crossings": tail.crossings, "deaths": tail.deaths}


def write_replay(log_path: Path, page: Path, seats: Sequence[str] = (), *, log: Any = None) -> None:
    """The replay viewer page of one match log (``log``: already read); with ``seats``, the
    teams of team 0 and team 1 in its header and a link back to the standings."""
    from replay.html import render_html
    from replay.matchlog import read_log
    from replay.timeline import build_timeline

    if log is None:
        log = read_log(log_path)
    page.parent.mkdir(parents=True, exist_ok=True)
    standings = "../index.html" if seats else None
    text = render_html(log, build_timeline(log), standings=standings, players=seats)
    page.write_text(text, encoding="utf-8")


def results(
    tournament: Tournament,
    plan: Plan,
    records: list[dict[str, Any]],
    preflight: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The content of results.json (``preflight``: each checked team's pre-flight)."""
    records = sorted(records, key=lambda r: r["index"])
    table = standings(tournament.names, records, plan.byes)
    for row in table["teams"]:
        check = (preflight or {}).get(row["team"])
        if check is not None and not check["passed"]:
            detail = f"{check['reason']}: {check['detail']}"
            row["failures"].insert(
                0, {"match": "preflight", "reason": "preflight", "detail": detail}
            )
            row["left_out"] = row["team"] not in plan.names
    out: dict[str, Any] = {
        "tournament": tournament.name,
        "game": tournament.game,
        "players_per_game": tournament.players_per_game,
        "format": tournament.format,
        "seed": tournament.seed,
        "games_per_pair": tournament.games_per_pair,
        "match_seconds": tournament.match_seconds,
        "complete": len(records) == len(plan.games),
        "teams": table["teams"],
        "pairs": table["pairs"],
        "matches": records,
    }
    if preflight:
        out["preflight"] = preflight
    if tournament.format == "fish-knockout" and records:
        last = max(record["round"] for record in records)
        out["champion"] = sorted(
            record["seats"][seat]
            for record in records
            if record["round"] == last
            for seat, points in enumerate(record["points"])
            if points > 0
        )
    if tournament.format == "knockout":
        out["bracket"] = [
            [
                {"a": t.a, "b": t.b, "points": t.points, "winner": t.winner, "matches": t.games}
                for t in ties
            ]
            for ties in plan.bracket
        ]
        out["champion"] = plan.bracket[-1][0].winner if len(plan.bracket[-1]) == 1 else None
    return out


def rating_interval(row: dict[str, Any]) -> tuple[float, float, float]:
    """A team's rating (openskill mu) and its interval, mu -+ 2 sigma (about 95%)."""
    mu, sigma = row["mu"], row["sigma"]
    return mu, mu - 2 * sigma, mu + 2 * sigma


def results_csv(data: dict[str, Any]) -> str:
    """results.csv: one row per team, :data:`CSV_COLUMNS` then a count per reason."""
    stream = io.StringIO()
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow([*CSV_COLUMNS, *REASONS])
    for row in data["teams"]:
        mu, low, high = rating_interval(row)
        counts = dict.fromkeys(REASONS, 0)
        for failure in row["failures"]:
            counts[failure["reason"]] = counts.get(failure["reason"], 0) + 1
        writer.writerow([
            row["rank"], row["team"], f"{row['points']:g}", row["played"], row["wins"],
            row["draws"], row["losses"], f"{mu:.2f}", f"{low:.2f}", f"{high:.2f}",
            len(row["failures"]), *(counts[reason] for reason in REASONS),
        ])  # fmt: skip
    return stream.getvalue()
