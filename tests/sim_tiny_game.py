"""A tiny turn-based game for the runner's tests: a race to a target, one chance node.

Setup: a chance node puts the counter at 0, 1 or 2. Then the two seats alternately add 1 or 2;
whoever brings the counter to ``target`` or past it wins, and landing exactly on ``trap`` ends
the game drawn. Strategies: ``random``; ``greedy`` (leaves the counter at ``target`` mod 3
whenever it can: the winning move); ``raiser`` (raises when the counter is 4, so only some
matches fail).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sim.game import CHANCE, TERMINAL, Bot, GameInfo, MatchResult, State, play_turn_based


class RaceState:
    def __init__(self, target: int, trap: int) -> None:
        self.target, self.trap = target, trap
        self.counter: int | None = None
        self.to_move = 0
        self.result: list[float] | None = None
        self.moves = [0, 0]

    def current_player(self) -> int:
        if self.result is not None:
            return TERMINAL
        return CHANCE if self.counter is None else self.to_move

    def legal_actions(self) -> Sequence[Any]:
        return [] if self.result is not None or self.counter is None else [1, 2]

    def chance_outcomes(self) -> Sequence[tuple[Any, float]]:
        return [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)] if self.counter is None else []

    def apply_action(self, action: Any) -> None:
        if self.counter is None:
            if action not in (0, 1, 2):
                raise ValueError(f"chance outcome {action!r}")
            self.counter = action
            return
        if self.result is not None or action not in (1, 2):
            raise ValueError(f"illegal action {action!r}")
        self.counter += action
        self.moves[self.to_move] += 1
        if self.counter >= self.target:
            self.result = [1.0, -1.0] if self.to_move == 0 else [-1.0, 1.0]
        elif self.counter == self.trap:
            self.result = [0.0, 0.0]
        self.to_move = 1 - self.to_move

    def is_terminal(self) -> bool:
        return self.result is not None

    def returns(self) -> Sequence[float]:
        return self.result or [0.0, 0.0]

    def clone(self) -> RaceState:
        copy = RaceState(self.target, self.trap)
        copy.counter, copy.to_move, copy.moves = self.counter, self.to_move, list(self.moves)
        copy.result = None if self.result is None else list(self.result)
        return copy

    def serialize(self) -> str:
        return f"{self.counter}/{self.to_move}/{self.result}/{self.moves}"


class RandomBot:
    def step(self, state: Any, rng: random.Random) -> Any:
        return rng.choice(state.legal_actions())


class GreedyBot:
    def step(self, state: Any, rng: random.Random) -> Any:
        for step in (1, 2):
            if (
                state.counter + step
            ) % 3 == state.target % 3 and state.counter + step != state.trap:
                return step
        return rng.choice([1, 2])


class RaiserBot:
    def step(self, state: Any, rng: random.Random) -> Any:
        if state.counter == 4:
            raise RuntimeError("raiser gives up at 4")
        return rng.choice([1, 2])


class RaceGame:
    def __init__(self, target: int = 10, trap: int = 7) -> None:
        self.target, self.trap = target, trap
        self.info = GameInfo("race", 2, -1.0, 1.0, zero_sum=True, max_game_length=100)

    def strategies(self) -> Mapping[str, Callable[[], Bot]]:
        return {"random": RandomBot, "greedy": GreedyBot, "raiser": RaiserBot}

    def new_initial_state(self, seed: int) -> State:
        return RaceState(self.target, self.trap)

    def play(self, seed: int, seats: Sequence[str]) -> MatchResult:
        def figures(state: State) -> list[dict[str, float]]:
            assert isinstance(state, RaceState)
            return [{"moves": float(m)} for m in state.moves]

        return play_turn_based(self, seed, seats, figures)
