"""A Penguins strategy of your own: copy this file, edit, and run it with

    arena sim penguins --strategies docs/examples/penguins_strategy.py:Hungry,greedy,random

A strategy is a class made as ``Class()`` with one method, ``step(state, rng)``, returning one
of ``state.legal_actions()`` for the seat to move (``state.current_player()``): a tile index
while placing, ``from * size + to`` while moving. ``state.clone()`` gives a copy to try
actions on; ``rng`` is the only chance a strategy may use (seeded by the match).

This one looks one action ahead: the action after which its own score is highest, ties broken
at random.
"""

from __future__ import annotations

import random
from typing import Any


class Hungry:
    def step(self, state: Any, rng: random.Random) -> int:
        me = state.current_player()
        scored = []
        for action in state.legal_actions():
            after = state.clone()
            after.apply_action(action)
            scored.append((after.floes.scores[me], action))
        top = max(score for score, _ in scored)
        best = [action for score, action in scored if score == top]
        return best[rng.randrange(len(best))]
