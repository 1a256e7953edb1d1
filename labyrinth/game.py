"""Labyrinth in the simulator's game interface (sim.game): state wrapper and named strategies.

Seat 0 is the player who starts (at x = 0, energy 0), seat 1 the other. Actions are the rules'
:class:`~labyrinth.rules.Move` ``(type, value)`` pairs. ``legal_actions`` lists only the
moves that do not lose (rotations when the mover has the energy, steps onto free cells, stay):
no strategy wants a losing move, and a uniformly random playout should explore the game rather
than end at once in a wall. ``apply_action`` still accepts any move the protocol can carry and
applies the rules to it, so a losing move ends the game with the mover's loss, as on a server.
Returns: +1 for the winner, -1 for the loser, 0 each for a draw at the turn limit.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Self

from labyrinth.generation import generate
from labyrinth.players import astar_move, do_nothing_move, random_move
from labyrinth.rotator import Rotator
from labyrinth.rules import GAME_TYPE, Labyrinth, LabyrinthConfig, Move
from sim.game import TERMINAL, Bot, GameInfo, MatchResult, play_turn_based

__all__ = ["LabyrinthGame", "LabyrinthState"]


class LabyrinthState:
    """A position of a Labyrinth match, wrapping the rules' :class:`Labyrinth`."""

    __slots__ = ("labyrinth",)

    def __init__(self, labyrinth: Labyrinth) -> None:
        self.labyrinth = labyrinth

    def current_player(self) -> int:
        return TERMINAL if self.labyrinth.over else self.labyrinth.to_move

    def legal_actions(self) -> Sequence[Move]:
        return self.labyrinth.legal_moves()

    def chance_outcomes(self) -> Sequence[tuple[Any, float]]:
        return []

    def apply_action(self, action: Any) -> None:
        self.labyrinth.play(action)

    def is_terminal(self) -> bool:
        return self.labyrinth.over

    def returns(self) -> Sequence[float]:
        winner = self.labyrinth.winner
        if winner is None:
            return [0.0, 0.0]
        return [1.0 if seat == winner else -1.0 for seat in (0, 1)]

    def clone(self) -> Self:
        return type(self)(self.labyrinth.clone())

    def serialize(self) -> str:
        lab = self.labyrinth
        players = " ".join(
            f"p{seat}={x},{y}/{lab.energies[seat]}/{lab.rotations[seat]}"
            for seat, (x, y) in enumerate(lab.players)
        )
        return (
            f"{lab.width}x{lab.height} {lab.maze_text()} {players} "
            f"treasure={lab.treasure[0]},{lab.treasure[1]} turn={lab.turn} next={lab.to_move} "
            f"over={int(lab.over)} winner={lab.winner}"
        )

    def __str__(self) -> str:
        from labyrinth.render import render_text

        return render_text(self.labyrinth)


class _DoNothing:
    def step(self, state: LabyrinthState, rng: random.Random) -> Move:
        return do_nothing_move(state.labyrinth)


class _PlayRandom:
    def __init__(self, rotations: bool) -> None:
        self.rotations = rotations

    def step(self, state: LabyrinthState, rng: random.Random) -> Move:
        return random_move(state.labyrinth, rng, rotations=self.rotations)


class _AStar:
    def step(self, state: LabyrinthState, rng: random.Random) -> Move:
        return astar_move(state.labyrinth)


class _Rotator:
    def __init__(self) -> None:
        self.search = Rotator()

    def step(self, state: LabyrinthState, rng: random.Random) -> Move:
        return self.search.choose(state.labyrinth)


STRATEGIES: dict[str, Callable[[], Bot]] = {
    "do_nothing": _DoNothing,
    "play_random": lambda: _PlayRandom(rotations=True),
    "play_random_norot": lambda: _PlayRandom(rotations=False),
    # Every game ships "random" for the conformance suite: the course's PLAY_RANDOM.
    "random": lambda: _PlayRandom(rotations=True),
    "astar": _AStar,
    "rotator": _Rotator,
}


def match_stats(state: LabyrinthState) -> list[dict[str, float]]:
    """Per seat: energy left and rotations played."""
    lab = state.labyrinth
    return [
        {"energy": float(lab.energies[seat]), "rotations": float(lab.rotations[seat])}
        for seat in (0, 1)
    ]


class LabyrinthGame:
    """The registry entry ``labyrinth.game:LabyrinthGame``."""

    def __init__(self, config: LabyrinthConfig | None = None, **options: Any) -> None:
        """``options`` override fields of the config (``arena sim --config max_turns=500``);
        ``width`` and ``height`` fix the maze size."""
        config = config if config is not None else LabyrinthConfig()
        sizes = {"width": "width_range", "height": "height_range"}
        fields = {field.name for field in dataclasses.fields(LabyrinthConfig)}
        changes: dict[str, Any] = {}
        for key, value in options.items():
            if key in sizes:
                _check_type(key, value, 0)
                if value < 5 or value % 2 == 0:
                    # Named as the user typed it, not as the config's width_range field.
                    raise ValueError(f"{key}: a maze side is odd and at least 5, got {value}")
                changes[sizes[key]] = (value, value)
            elif key in fields:
                _check_type(key, value, getattr(config, key))
                changes[key] = value
            else:
                known = ", ".join(sorted(fields | set(sizes)))
                raise ValueError(f"unknown labyrinth option {key!r}; known: {known}")
        self.config = dataclasses.replace(config, **changes)
        self.info = GameInfo(
            name=GAME_TYPE.name,
            num_players=GAME_TYPE.max_players,
            min_return=-1.0,
            max_return=1.0,
            zero_sum=True,
            max_game_length=self.config.max_turns,
        )

    def strategies(self) -> Mapping[str, Callable[[], Bot]]:
        return STRATEGIES

    def new_initial_state(self, seed: int) -> LabyrinthState:
        return LabyrinthState(generate(seed, self.config))

    def play(self, seed: int, seats: Sequence[str]) -> MatchResult:
        return play_turn_based(self, seed, seats, stats=_stats)


def _check_type(key: str, value: object, like: object) -> None:
    """Refuse an option of another kind than its default (``width=abc``), naming it."""
    if isinstance(like, bool) or not isinstance(like, int | float | tuple):
        return
    if isinstance(like, tuple):
        ok = isinstance(value, tuple) and all(type(item) is int for item in value)
        kind = "a pair of integers"
    elif isinstance(like, int):
        ok, kind = type(value) is int, "an integer"
    else:
        ok, kind = type(value) in (int, float), "a number"
    if not ok:
        raise ValueError(f"labyrinth option {key}: expected {kind}, got {value!r}")


def _stats(state: Any) -> list[dict[str, float]]:
    return match_stats(state)
