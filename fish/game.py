"""Fish in the simulator's game interface (``fish.game:FishGame``).

A match: a ``rows`` x ``cols`` board drawn from the seed (``fish`` per tile, or 1-5 at random,
and ``holes`` random holes), 2-4 players each placing 6 - N penguins round robin, then moving
until nobody can. Actions: a tile index ``row * cols + col`` while placing, a ``(from, to)`` pair
of tiles while moving. A seat that cannot move is skipped without an action.

Returns: the top scorers share 1 (each of k winners gets 1/k), everyone else 0, so returns
always add up to 1 and a sole winner is the only seat with the strictly highest return. The fish
each seat collected go to the match statistics.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Mapping, Sequence

from fish.rules import FISH_RULES, GAME_TYPE, MAX_FISH, penguins_each
from fish.strategies import make_bot, strategy_names
from floes import OVER, PLACEMENT, Floes, IllegalAction
from sim.game import TERMINAL, Bot, GameInfo, MatchResult, State, play_turn_based

__all__ = ["FishGame", "FishState"]

Action = int | tuple[int, int]


class FishState:
    """A Fish position in the OpenSpiel sense, over the shared floes core."""

    __slots__ = ("floes",)

    def __init__(self, floes: Floes) -> None:
        self.floes = floes

    def current_player(self) -> int:
        return TERMINAL if self.floes.phase == OVER else self.floes.current

    def legal_actions(self) -> list[Action]:
        floes = self.floes
        if floes.phase == OVER:
            return []
        if floes.phase == PLACEMENT:
            return list(floes.placements(floes.current))
        return list(floes.moves(floes.current))

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return []

    def apply_action(self, action: Action) -> None:
        floes = self.floes
        if floes.phase == OVER:
            raise IllegalAction("the game is over")
        if floes.phase == PLACEMENT:
            if not isinstance(action, int):
                raise IllegalAction(f"a placement is a tile index, got {action!r}")
            floes.place(action)
            return
        if not (isinstance(action, tuple | list) and len(action) == 2):
            raise IllegalAction(f"a move is a (from, to) pair of tiles, got {action!r}")
        floes.move(action[0], action[1])

    def is_terminal(self) -> bool:
        return self.floes.phase == OVER

    def returns(self) -> list[float]:
        floes = self.floes
        shares = [0.0] * floes.seats
        if floes.phase == OVER:
            winners = floes.winners()
            for seat in winners:
                shares[seat] = 1.0 / len(winners)
        return shares

    def clone(self) -> FishState:
        return FishState(self.floes.clone())

    def serialize(self) -> str:
        floes = self.floes
        return json.dumps(
            {
                "rows": floes.layout.rows,
                "cols": floes.layout.cols,
                "fish": floes.fish,
                "penguins": floes.penguins,
                "scores": floes.scores,
                "quota": floes.quota,
                "active": floes.active,
                "phase": floes.phase,
                "current": self.current_player(),
            },
            separators=(",", ":"),
        )

    def __str__(self) -> str:
        """A picture of the board: odd rows shifted right, fish counts, penguins as seat
        letters (A, B, ...), holes as dots."""
        floes = self.floes
        lines = []
        for row in range(floes.layout.rows):
            cells = []
            for col in range(floes.layout.cols):
                tile = row * floes.layout.cols + col
                owner = floes.owner[tile]
                if owner >= 0:
                    cells.append(f"{chr(65 + owner)}{floes.fish[tile]}")
                else:
                    cells.append(f" {floes.fish[tile]}" if floes.fish[tile] else " .")
            lines.append(("  " if row % 2 else "") + "  ".join(cells))
        return "\n".join(lines)


class _Strategies(Mapping[str, Callable[[], Bot]]):
    """The strategy table: the listed names plus ``minimaxD`` for any depth D >= 1."""

    def __getitem__(self, name: str) -> Callable[[], Bot]:
        if name not in self:
            raise KeyError(name)
        return lambda: make_bot(name)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if name in strategy_names():
            return True
        depth = name.removeprefix("minimax")
        return name.startswith("minimax") and depth.isdigit() and int(depth) >= 1

    def __iter__(self) -> Iterator[str]:
        return iter(strategy_names())

    def __len__(self) -> int:
        return len(strategy_names())


class FishGame:
    """Fish for the simulator. Options (``arena sim fish --config KEY=VALUE``): ``players``
    (2-4, default 4), ``rows`` and ``cols`` (default 5), ``fish`` (fish per tile 1-5, or
    "random" for 1-5 drawn per tile, the default), ``holes`` (random holes, default 0)."""

    def __init__(
        self,
        players: int = 4,
        rows: int = 5,
        cols: int = 5,
        fish: int | str = "random",
        holes: int = 0,
    ) -> None:
        try:
            GAME_TYPE.check_players(players)
        except ValueError as error:
            raise ValueError(f"players: {error}") from None
        if rows < 1 or cols < 1:
            raise ValueError(f"rows, cols: a board needs a tile, got {rows} x {cols}")
        if fish != "random" and not (isinstance(fish, int) and 1 <= fish <= MAX_FISH):
            raise ValueError(f"fish: expected 1-{MAX_FISH} or 'random', got {fish!r}")
        need = players * penguins_each(players)
        if holes < 0 or rows * cols - holes < need:
            raise ValueError(
                f"holes: {rows} x {cols} tiles minus {holes} holes cannot take {need} penguins"
            )
        self.players, self.rows, self.cols, self.fish, self.holes = players, rows, cols, fish, holes
        self.info = GameInfo(
            name=GAME_TYPE.name,
            num_players=players,
            min_return=0.0,
            max_return=1.0,
            zero_sum=True,
            max_game_length=need + rows * cols,
        )
        self._strategies = _Strategies()

    def strategies(self) -> Mapping[str, Callable[[], Bot]]:
        return self._strategies

    def new_initial_state(self, seed: int) -> FishState:
        """The board drawn from ``random.Random(seed)``: the fish per tile (when random), then the
        holes; nobody has placed yet."""
        rng = random.Random(seed)
        size = self.rows * self.cols
        if self.fish == "random":
            fish = [rng.randint(1, MAX_FISH) for _ in range(size)]
        else:
            fish = [int(self.fish)] * size
        for tile in rng.sample(range(size), self.holes):
            fish[tile] = 0
        quota = [penguins_each(self.players)] * self.players
        return FishState(Floes(FISH_RULES, self.rows, self.cols, fish, quota))

    def play(self, seed: int, seats: Sequence[str]) -> MatchResult:
        return play_turn_based(self, seed, seats, stats=_stats)


def _stats(state: State) -> list[dict[str, float]]:
    assert isinstance(state, FishState)
    floes = state.floes
    return [
        {"fish": float(floes.scores[seat]), "penguins": float(len(floes.penguins[seat]))}
        for seat in range(floes.seats)
    ]
