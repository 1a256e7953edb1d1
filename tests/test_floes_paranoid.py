"""The one paranoid alpha-beta of the floes core: both games' strong players run through it, and
its pruning never changes the choice of a plain full-width paranoid minimax."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest

from fish.game import FishGame
from fish.rules import FISH_RULES
from fish.strategies import ParanoidBot, make_bot
from floes import MOVEMENT, Floes, Rules
from floes.paranoid import WIN, Paranoid, evaluate
from penguins.game import PenguinsGame
from penguins.rules import PENGUINS_RULES
from penguins.strategies import AlphaBetaStrategy, make_strategy, reach_estimate

if TYPE_CHECKING:
    from floes.paranoid import Estimate

Move = tuple[int, int]


# --------------------------------------------------------------------------- a plain reference


def plain_next(state: Floes, after: int) -> int:
    """The next seat after ``after`` (cyclically, itself last) with a legal move, or -1."""
    seats = state.seats
    for step in range(1, seats + 1):
        seat = (after + step) % seats
        if state.active[seat] and state.moves(seat):
            return seat
    return -1


def plain_final(state: Floes, me: int) -> float:
    """A finished game from the module docstring: WIN plus the margin, minus WIN if behind."""
    best_other = max(s for seat, s in enumerate(state.scores) if seat != me and state.active[seat])
    margin = state.scores[me] - best_other
    return 0.0 if margin == 0 else (WIN if margin > 0 else -WIN) + margin


def plain_value(state: Floes, me: int, mover: int, plies: int, estimate: Estimate) -> float:
    """Every line searched: ``me`` maximises, every other seat minimises."""
    if mover < 0:
        return plain_final(state, me)
    if plies == 0:
        return estimate(state, me)
    values = []
    for src, dst in state.moves(mover):
        undo = state.push(mover, state.penguins[mover].index(src), dst)
        values.append(plain_value(state, me, plain_next(state, mover), plies - 1, estimate))
        state.pop(undo)
    return max(values) if mover == me else min(values)


def plain_root(state: Floes, me: int, depth: int, estimate: Estimate) -> list[tuple[float, Move]]:
    """Every root move's plain value, in (from, to) order."""
    out = []
    for src, dst in sorted(state.moves(me)):
        undo = state.push(me, state.penguins[me].index(src), dst)
        out.append((plain_value(state, me, plain_next(state, me), depth - 1, estimate), (src, dst)))
        state.pop(undo)
    return out


def small_position(rules: Rules, rng: random.Random, seats: int, each: int) -> Floes:
    """A 3 x 4 board of 1-2 fish floes with a few holes, penguins anywhere, small scores."""
    rows, cols = 3, 4
    tiles = list(range(rows * cols))
    rng.shuffle(tiles)
    standing = [tiles[seat * each : (seat + 1) * each] for seat in range(seats)]
    taken = {tile for group in standing for tile in group}
    fish = [
        rng.choice([1, 2]) if tile in taken or rng.random() > 0.2 else 0
        for tile in range(rows * cols)
    ]
    if not rules.score_on_leave:
        for tile in taken:
            fish[tile] = 0  # Penguins stand on sunk floes
    scores = [rng.randrange(3) for _ in range(seats)]
    return Floes(
        rules, rows, cols, fish, [0] * seats, penguins=standing, scores=scores, phase=MOVEMENT
    )


# --------------------------------------------------------------------------- tests


def test_both_games_strong_players_are_the_one_shared_search() -> None:
    """Fish's paranoid bot and Penguins' alphabeta each hold a floes Paranoid and move by it."""
    fish_bot = make_bot("paranoid")
    penguins = make_strategy("alphabeta")
    assert isinstance(fish_bot, ParanoidBot)
    assert isinstance(penguins, AlphaBetaStrategy)
    assert type(fish_bot.search) is type(penguins.search) is Paranoid
    assert (fish_bot.search.estimate, penguins.search.estimate) == (evaluate, reach_estimate)
    assert (fish_bot.search.budget, penguins.search.budget) == (3000, 3000)

    fish_state = FishGame(players=2).new_initial_state(3)
    while not fish_state.is_terminal() and fish_state.floes.phase != MOVEMENT:
        fish_state.apply_action(fish_bot.step(fish_state, random.Random(0)))
    move = fish_bot.step(fish_state, random.Random(0))
    assert move in fish_state.legal_actions()
    assert fish_bot.search.nodes > 0

    game = PenguinsGame()
    state = game.new_initial_state(3)
    while state.floes.phase != MOVEMENT:
        state.apply_action(state.legal_actions()[0])
    floes = state.floes
    assert penguins.move(floes, floes.current, None) in floes.moves(floes.current)
    assert penguins.nodes == penguins.search.nodes > 0


@pytest.mark.parametrize(
    ("rules", "estimate", "seats", "each"),
    [
        (FISH_RULES, evaluate, 2, 2),
        (FISH_RULES, evaluate, 3, 1),
        (PENGUINS_RULES, reach_estimate, 2, 2),
        (PENGUINS_RULES, reach_estimate, 3, 1),
    ],
)
def test_pruning_never_changes_the_choice_of_plain_paranoid_minimax(
    rules: Rules, estimate: Estimate, seats: int, each: int
) -> None:
    """At depths 1-4 the search returns the plain tree's best value and its smallest (from, to)."""
    rng = random.Random(seats * 10 + each + rules.score_on_leave)
    ties = 0
    for _ in range(12):
        state = small_position(rules, rng, seats, each)
        me = plain_next(state, seats - 1)
        if me < 0:
            continue
        before = state.key()
        for depth in range(1, 5):
            values = plain_root(state, me, depth, estimate)
            best = max(value for value, _ in values)
            first = next(move for value, move in values if value == best)
            ties += sum(value == best for value, _ in values) > 1
            assert Paranoid(estimate, 1).search(state, me, depth) == (best, first)
            assert state.key() == before
    assert ties > 0  # the tie rule was put to the test


def test_a_move_stays_within_its_budget_and_depends_on_the_position_only() -> None:
    """Two searches of the same position agree, and neither visits more than budget + 1 nodes."""
    state = small_position(FISH_RULES, random.Random(5), 2, 2)
    me = plain_next(state, 1)
    first, second = Paranoid(evaluate, 60), Paranoid(evaluate, 60)
    assert first.move(state, me) == second.move(state, me)
    assert first.nodes <= 61
