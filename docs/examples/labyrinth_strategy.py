"""A Labyrinth strategy of your own: copy this file, edit, and run it with

    arena sim labyrinth --strategies docs/examples/labyrinth_strategy.py:Homing,astar,random

A strategy is a class made as ``Class()`` with one method, ``step(state, rng)``, returning one
of ``state.legal_actions()`` for the seat to move (``state.current_player()``).
``state.clone()`` gives a copy to try actions on; ``state.labyrinth`` is the position (players,
treasure, maze); ``rng`` is the only chance a strategy may use (seeded by the match).

This one looks one move ahead: a move that wins at once, else the move that ends nearest the
treasure (steps as the crow flies), ties broken at random.
"""

from __future__ import annotations

import random
from typing import Any


class Homing:
    def step(self, state: Any, rng: random.Random) -> Any:
        me = state.current_player()
        best: list[Any] = []
        best_value: float | None = None
        for action in state.legal_actions():
            after = state.clone()
            after.apply_action(action)
            if after.is_terminal():
                value = -1000.0 * after.returns()[me]  # a win first, a loss last
            else:
                (x, y), (tx, ty) = after.labyrinth.players[me], after.labyrinth.treasure
                value = float(abs(x - tx) + abs(y - ty))
            if best_value is None or value < best_value:
                best, best_value = [action], value
            elif value == best_value:
                best.append(action)
        return best[rng.randrange(len(best))]
