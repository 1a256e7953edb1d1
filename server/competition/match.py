"""One match of any game between given programs, outside a tournament (the ladder's unit of
work): :func:`play_match`. It is played by the game's own adapter, exactly as a tournament plays
it (the same sandbox, server, judging, reasons and files), and returns the match's record and
where its log is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.competition.board import Board
from server.competition.competition import RunOptions
from server.competition.pairings import Game
from server.competition.run import make_run
from server.competition.teams import Players, Team, parse_teams

__all__ = ["MatchResult", "play_match"]


@dataclass(frozen=True)
class MatchResult:
    #: The journal record (docs/tournament.md): ``seats``, ``points``, ``result``, ``reason``,
    #: ``failures`` (team, reason, detail), ``seconds``, ``outputs``, ``log``, ``replay``...
    record: dict[str, Any]
    #: The game's log (None when the match never began), its replay page, and each seat's
    #: captured output (stdout and stderr), all under the match's folder.
    log: Path | None
    replay: Path | None
    outputs: tuple[Path, ...]

    @property
    def points(self) -> tuple[float, ...]:
        return tuple(self.record["points"])


def _raw(team: Team) -> dict[str, Any]:
    if team.builtin is not None:
        return {"name": team.name, "builtin": team.builtin}
    assert team.dir is not None
    return {"name": team.name, "dir": str(team.dir), "command": list(team.command),
            "env": dict(team.env)}  # fmt: skip


async def play_match(
    game: str,
    programs: Sequence[Team],
    *,
    seed: int,
    out: Path,
    settings: Mapping[str, Any] | None = None,
    sandbox: str = "bwrap",
    players: Players | None = None,
    name: str = "match",
) -> MatchResult:
    """Play one ``game`` match of ``programs`` (seated in that order) on ``seed`` into the
    folder ``out``; ``settings`` are the teams file's ``[tournament]`` keys for the limits and
    the game's options (``match_seconds``, ``connect_seconds``, ``memory_mb``, ``cpu_seconds``,
    ``rows``, ``call_seconds``, ``config``...). Raises TeamsError (one line) for settings or
    programs a teams file would refuse; a program's failure is in the result, never raised."""
    table = {**(settings or {}), "name": name, "game": game, "seed": seed,
             "players_per_game": len(programs), "games_per_pair": len(programs)}  # fmt: skip
    data = {"tournament": table, "team": [_raw(team) for team in programs]}
    tournament = parse_teams(data, base=out, source=f"match {name}", players=players)
    options = RunOptions(out=out, concurrency=1, sandbox=sandbox, preflight="off",
                         players=players)  # fmt: skip
    run = make_run(tournament, options, Board(name))
    run.single = Game(0, 0, tuple(tournament.names), seed)
    run.open_journal()
    await run.run()
    record = run.records[0]

    def path(relative: str | None) -> Path | None:
        # (a game that never began, a Fish game nobody signed up for, wrote no log)
        return out / relative if relative and (out / relative).is_file() else None

    outputs = record.get("outputs") or [
        f"programs/{record['name']}-{team}.txt" for team in record["seats"]
    ]
    return MatchResult(
        record=record, log=path(record.get("log")), replay=path(record.get("replay")),
        outputs=tuple(out / output for output in outputs),
    )  # fmt: skip
