"""A competition's run put together: the adapter of its game (:func:`make_run`), the check that
its first match can be set up (:func:`check_playable`), and its results written when the last
match ends (:func:`finish`).
"""

from __future__ import annotations

from typing import Any

from server.competition.board import Board
from server.competition.competition import Competition, RunOptions
from server.competition.outputs import write_outputs
from server.competition.report import results
from server.competition.teams import TeamsError, Tournament

__all__ = ["check_playable", "finish", "make_run"]


def check_playable(tournament: Tournament) -> None:
    """The first pair's dungeon can be generated (else every match would fail alike)."""
    if tournament.game != "dungeon":
        return
    from dungeon.engine import Match
    from server.competition.pairings import pair_seed

    first, second = tournament.names[:2]
    try:
        Match(pair_seed(tournament.seed, first, second, 0), tournament.config)
    except ValueError as error:
        raise TeamsError(f"{tournament.name}: tournament.config: {error}") from None


def make_run(tournament: Tournament, options: RunOptions, board: Board) -> Competition:
    """The run of the tournament's game: the dungeon's own, or a game's adapter."""
    if tournament.game == "penguins":
        from server.competition.penguins import PenguinsRun

        return PenguinsRun(tournament, options, board)
    if tournament.game == "fish":
        from server.competition.fish import FishRun

        return FishRun(tournament, options, board)
    if tournament.game == "labyrinth":
        from server.competition.labyrinth import LabyrinthRun

        return LabyrinthRun(tournament, options, board)
    from server.competition.dungeon import TournamentRun

    return TournamentRun(tournament, options, board)


def finish(tournament: Tournament, runner: Competition) -> dict[str, Any]:
    """Write results.json, results.csv and index.html (and the teams' bundles); the data."""
    data = results(tournament, runner.plan, list(runner.records.values()), runner.preflight)
    write_outputs(runner.out, data)
    return data
