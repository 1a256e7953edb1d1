"""Penguins in the simulator's game interface (``penguins.game:PenguinsGame``).

    arena sim penguins --strategies territory,alphabeta --matches 400
    arena sim penguins --strategies alphabeta,greedy --matches 1000
    arena sim penguins --strategies greedy,random,random --config players=3 --config rows=8

Options (``--config KEY=VALUE``): ``rows`` and ``cols`` (10 x 10), ``players`` (2; 2-9),
``penguins`` each (default 4, fewer on crowded boards: see ``rules.penguins_each``) and
``budget``, the node budget of the ``alphabeta`` bots (3000; ``territory`` bots search their own
2500, ``strategies.TERRITORY_BUDGET``).

Actions are ints: a placement is the tile ``row * cols + col``; a move is
``from_tile * tiles + to_tile``. Returns are the fish each seat collected, so they lie in
``[0, 3 * rows * cols]``; the single top scorer wins (``MatchResult.winner``), a shared top is a
draw. The board is generated from the seed (:func:`rules.generate_fish`), with enough one-fish
floes for every penguin; play itself has no chance.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from floes import MOVEMENT, PLACEMENT, Floes
from penguins.facts import GAME_TYPE
from penguins.rules import (
    MAX_FISH,
    PENGUINS_RULES,
    board_of,
    generate_fish,
    penguins_each,
)
from penguins.strategies import STRATEGIES, AlphaBetaStrategy, Strategy
from sim.game import TERMINAL, Bot, GameInfo, MatchResult, play_turn_based

__all__ = ["PenguinsGame", "PenguinsState", "StrategyBot"]


class PenguinsState:
    """A position of the simulator's Penguins: the floes core's position, seen as a
    sim.game.State."""

    __slots__ = ("floes",)

    def __init__(self, floes: Floes) -> None:
        self.floes = floes

    def current_player(self) -> int:
        return self.floes.current if self.floes.phase in (PLACEMENT, MOVEMENT) else TERMINAL

    def legal_actions(self) -> list[int]:
        floes = self.floes
        if floes.phase == PLACEMENT:
            return floes.placements(floes.current)
        if floes.phase == MOVEMENT:
            size = floes.layout.size
            return [src * size + dst for src, dst in floes.moves(floes.current)]
        return []

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        return []

    def apply_action(self, action: Any) -> None:
        floes = self.floes
        if not isinstance(action, int) or isinstance(action, bool):
            # ValueError, not TypeError: sim.game.State promises ValueError for any illegal action.
            raise ValueError(f"a Penguins action is an int, got {action!r}")  # noqa: TRY004
        if floes.phase == PLACEMENT:
            floes.place(action)
        elif floes.phase == MOVEMENT:
            src, dst = divmod(action, floes.layout.size)
            floes.move(src, dst)
        else:
            raise ValueError("the game is over: no action is legal")

    def is_terminal(self) -> bool:
        return self.floes.phase not in (PLACEMENT, MOVEMENT)

    def returns(self) -> list[float]:
        return [float(score) for score in self.floes.scores]

    def clone(self) -> PenguinsState:
        return PenguinsState(self.floes.clone())

    def serialize(self) -> str:
        """The board in the board file's format, then phase, seat to act and penguins left."""
        floes = self.floes
        quota = " ".join(str(q) for q in floes.quota)
        return f"{board_of(floes).render()}{floes.phase} {floes.current} {quota}\n"

    def __str__(self) -> str:
        return self.serialize()


class StrategyBot:
    """A sim.game.Bot playing a Penguins :class:`Strategy` for the seat to act."""

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy

    def step(self, state: PenguinsState, rng: random.Random) -> int:
        floes = state.floes
        seat = floes.current
        if floes.phase == PLACEMENT:
            tile = self.strategy.place(floes, seat, rng)
            if tile is None:
                raise RuntimeError(f"{self.strategy.name} found no placement for seat {seat}")
            return tile
        move = self.strategy.move(floes, seat, rng)
        if move is None:
            raise RuntimeError(f"{self.strategy.name} found no move for seat {seat}")
        return move[0] * floes.layout.size + move[1]


class PenguinsGame:
    """The simulator's Penguins: a board from the seed, ``players`` seats, round-robin turns."""

    def __init__(
        self,
        rows: int = 10,
        cols: int = 10,
        players: int = 2,
        penguins: int | None = None,
        budget: int = 3000,
    ) -> None:
        GAME_TYPE.check_players(players)
        if rows < 1 or cols < 1:
            raise ValueError(f"the board needs at least one row and column, got {rows} x {cols}")
        each = penguins_each(players, rows, cols) if penguins is None else penguins
        if each < 1 or each * players > rows * cols:
            raise ValueError(f"{each} penguins for each of {players} players do not fit")
        if budget < 1:
            raise ValueError(f"budget must be positive, got {budget}")
        self.rows, self.cols, self.players, self.penguins = rows, cols, players, each
        self.budget = budget
        size = rows * cols
        self.info = GameInfo(
            name=GAME_TYPE.name,
            num_players=players,
            min_return=0.0,
            max_return=float(MAX_FISH * size),
            zero_sum=False,
            # Each placement takes a floe, each move sinks one: at most one action per tile.
            max_game_length=size + 1,
        )

    def strategies(self) -> Mapping[str, Callable[[], Bot]]:
        def factory(name: str) -> Callable[[], Bot]:
            if name == "alphabeta":
                return lambda: StrategyBot(AlphaBetaStrategy(budget=self.budget))
            return lambda: StrategyBot(STRATEGIES[name]())

        return {name: factory(name) for name in STRATEGIES}

    def new_initial_state(self, seed: int) -> PenguinsState:
        rng = random.Random(seed)
        fish = generate_fish(rng, self.rows, self.cols, self.players * self.penguins)
        return PenguinsState(
            Floes(PENGUINS_RULES, self.rows, self.cols, fish, [self.penguins] * self.players)
        )

    def play(self, seed: int, seats: Sequence[str]) -> MatchResult:
        def figures(state: Any) -> list[dict[str, float]]:
            floes = state.floes
            return [
                {"fish": float(floes.scores[s]), "penguins": float(len(floes.penguins[s]))}
                for s in range(floes.seats)
            ]

        return play_turn_based(self, seed, seats, figures)
