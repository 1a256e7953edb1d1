"""Territory, the default Penguins strategy: its evaluation sees walled-in penguins, its search is
deterministic given the node budget, and the player's light ``name`` path knows every strategy.

Its strength against the others is a benchmark (``python -m bench penguins``), not a test.
"""

from __future__ import annotations

import random

import pytest

from floes import MOVEMENT, PLACEMENT, Floes
from floes.territory import (
    DECAY,
    MOBILITY,
    territory_estimate,
    territory_placement,
    territory_values,
)
from penguins.game import PenguinsGame
from penguins.naming import STRATEGY_NAMES, name_of
from penguins.rules import PENGUINS_RULES
from penguins.strategies import STRATEGIES, TerritoryStrategy


def corridor() -> Floes:
    """Seat 0 on (0, 5) between five 1-fish floes (left) and one 3-fish floe (right, then a
    hole); seat 1, 4 fish ahead, blocked in the corner below."""
    fish = [1, 1, 1, 1, 1, 0, 3, 0] + [0] * 8
    return Floes(
        PENGUINS_RULES,
        2,
        8,
        fish,
        [0, 0],
        penguins=[[5], [15]],
        scores=[0, 4],
        phase=MOVEMENT,
        current=0,
    )


def test_a_pocket_of_ones_own_counts_whole_a_blocked_penguin_gets_nothing() -> None:
    state = corridor()
    values = territory_values(state)
    # Seat 0 reaches all eight fish (nearer ones weigh more); seat 1 nothing but its score.
    assert 6.0 < values[0] < 8.0 + 1.0
    assert values[1] == 4.0
    assert territory_estimate(state, 0) == values[0] - values[1]


def test_it_does_not_grab_three_fish_to_wall_itself_in() -> None:
    state = corridor()
    greedy = STRATEGIES["greedy"]().move(state.clone(), 0, None)
    assert greedy == (5, 6)  # three fish now, then stuck
    src, dst = TerritoryStrategy(budget=500).move(state, 0, None) or (0, 0)
    assert (src, dst) != (5, 6)  # left, where five fish wait: it wins 5-4 instead of losing 3-4
    assert dst < src


def test_contested_floes_belong_to_nobody() -> None:
    # Two penguins facing each other over one floe: it is contested, neither gets it.
    state = Floes(PENGUINS_RULES, 1, 3, [0, 2, 0], [0, 0], penguins=[[0], [2]], phase=MOVEMENT)
    assert territory_values(state) == [0.05, 0.05]


def midgame(seed: int) -> Floes:
    game = PenguinsGame()
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    while state.floes.phase == PLACEMENT:
        actions = state.legal_actions()
        state.apply_action(actions[rng.randrange(len(actions))])
    return state.floes


def test_the_same_budget_gives_the_same_move_and_respects_it() -> None:
    state = midgame(3)
    first, second = TerritoryStrategy(budget=300), TerritoryStrategy(budget=300)
    move = first.move(state.clone(), state.current, None)
    assert move == second.move(state.clone(), state.current, None)
    assert move in state.moves(state.current)
    assert first.nodes <= 301


def test_a_stop_at_once_still_gives_a_legal_move() -> None:
    state = midgame(4)
    strategy = TerritoryStrategy(budget=10_000, stop=lambda: True)
    assert strategy.move(state.clone(), state.current, None) in state.moves(state.current)
    assert strategy.nodes <= 64


def test_placement_takes_a_one_fish_floe_with_room_around() -> None:
    game = PenguinsGame()
    state = game.new_initial_state(5).floes
    tile = territory_placement(state, state.current)
    assert tile in state.placements(state.current)


def test_the_name_path_knows_every_strategy() -> None:
    assert tuple(STRATEGIES) == STRATEGY_NAMES
    assert name_of(["name"]) == "penguins-territory"
    assert name_of(["name", "strategy=greedy", "id=bad id"]) == "penguins-greedy"
    assert name_of(["id=me", "name", "strategy=nope"]) == "me"


def reference_values(state: Floes) -> list[float]:
    """The territory value as the docstring says it, tile by tile: a flood one neighbour a round
    from every penguin at once, contested floes blocking, plus mobility by walking the rays."""
    fish, owner = state.fish, state.owner
    neighbours, rays = state.layout.neighbours, state.layout.rays
    values = [float(score) for score in state.scores]
    claimed = [-1] * state.layout.size
    frontier = []
    for seat in range(state.seats):
        if not state.active[seat]:
            values[seat] = 0.0
            continue
        for tile in state.penguins[seat]:
            claimed[tile] = seat
            frontier.append((tile, seat))
            for line in rays[tile]:
                for other in line:
                    if fish[other] <= 0 or owner[other] >= 0:
                        break
                    values[seat] += MOBILITY
    weight = 1.0
    while frontier:
        found: dict[int, int] = {}
        for tile, seat in frontier:
            for other in neighbours[tile]:
                if claimed[other] == -1 and fish[other] > 0 and owner[other] < 0:
                    found[other] = seat if found.get(other, seat) == seat else -2
        frontier = []
        for tile, seat in found.items():
            claimed[tile] = seat
            if seat >= 0:
                values[seat] += weight * fish[tile]
                frontier.append((tile, seat))
        weight *= DECAY
    return values


def test_the_bitboard_flood_equals_the_tile_by_tile_one() -> None:
    for rows, cols, players in ((10, 10, 2), (8, 12, 3), (12, 9, 2), (1, 7, 2), (7, 1, 2)):
        game = PenguinsGame(rows=rows, cols=cols, players=players, penguins=1)
        for seed in range(6):
            state = game.new_initial_state(seed)
            rng = random.Random(seed)
            while not state.is_terminal():
                expected, got = reference_values(state.floes), territory_values(state.floes)
                assert got == pytest.approx(expected)
                actions = state.legal_actions()
                state.apply_action(actions[rng.randrange(len(actions))])
