"""Our own players, handed to the competition (:mod:`server.competition`), which never imports
the client or the simulator: a ``builtin`` name checked as each game knows its strategies (the
dungeon's by the one plug-in loader, :mod:`sim.plugins`), and a built-in dungeon team played as
a task of this process by ``client.team.connect_team``.
"""

from __future__ import annotations

from pathlib import Path

from client.strategies.base import STRATEGIES, make_strategy, strategy_seed
from client.team import TeamError, connect_team
from server.competition import teams
from server.competition.teams import MatchTicket
from sim.plugins import PluginError, dungeon_strategy, resolve_names

__all__ = ["PLAYERS", "HousePlayers", "load_teams"]


class HousePlayers:
    """The :class:`~server.competition.teams.Players` of the ``arena`` command."""

    def resolve(self, game: str, name: str) -> str:
        if game == "dungeon":
            try:
                (resolved,) = resolve_names([name], "dungeon", STRATEGIES)
            except PluginError as error:
                raise ValueError(str(error)) from None
            return resolved
        known = _known(game)
        if name not in known:
            raise ValueError(f"wants one of {', '.join(sorted(known))}, got {name!r}")
        return name

    async def play_dungeon(self, name: str, ticket: MatchTicket, seed: int) -> str | None:
        try:
            strategy = make_strategy(
                name, ticket.seat, strategy_seed(seed, ticket.seat), load=dungeon_strategy
            )
            await connect_team(
                ticket.host, ticket.port, team=ticket.seat, strategy=strategy,
                match=ticket.match, token=ticket.token,
            )  # fmt: skip
        except (TeamError, ValueError, ImportError, AttributeError) as error:
            return f"{type(error).__name__}: {error}"
        return None


def _known(game: str) -> set[str]:
    if game == "penguins":
        from penguins.strategies import STRATEGIES as penguins

        return set(penguins)
    if game == "fish":
        from fish.game import FishGame

        return set(FishGame().strategies())
    from labyrinth.game import STRATEGIES as labyrinth

    return set(labyrinth)


PLAYERS = HousePlayers()


def load_teams(path: Path) -> teams.Tournament:
    """The teams file, its built-in names checked by our own players."""
    return teams.load_teams(path, PLAYERS)
