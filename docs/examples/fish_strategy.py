"""A Fish strategy of your own: copy this file, edit, and run it with

    arena sim fish --strategies docs/examples/fish_strategy.py:Hungry,greedy,random

A Fish (or Penguins, or Labyrinth) strategy is a class made as ``Class()`` with one method,
``step(state, rng)``, returning one of ``state.legal_actions()`` for the seat to move
(``state.current_player()``). ``state.clone()`` gives a copy to try actions on; ``rng`` is the
only chance a strategy may use (seeded by the match).

This one looks one action ahead: the action after which its own score is highest, ties broken
by the fish on the tile it stands on afterwards, then at random.
"""

from __future__ import annotations

import random
from typing import Any


class Hungry:
    def step(self, state: Any, rng: random.Random) -> Any:
        me = state.current_player()
        best: list[Any] = []
        best_value: tuple[float, int] | None = None
        for action in state.legal_actions():
            after = state.clone()
            after.apply_action(action)
            tile = action if isinstance(action, int) else action[1]
            value = (after.floes.scores[me], state.floes.fish[tile])
            if best_value is None or value > best_value:
                best, best_value = [action], value
            elif value == best_value:
                best.append(action)
        return best[rng.randrange(len(best))]
