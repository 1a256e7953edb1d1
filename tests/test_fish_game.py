"""Fish in the simulator's game interface: boards from seeds, actions, returns, illegal actions."""

from __future__ import annotations

import random

import pytest

from fish.game import FishGame, FishState
from fish.rules import FISH_RULES
from floes import Floes
from floes.paranoid import evaluate, paranoid_move, paranoid_placement
from sim.game import TERMINAL
from sim.games import load_game


def test_the_registry_builds_fish_with_options() -> None:
    """`load_game("fish", players=2)` is a two-seat Fish whose returns lie in [0, 1]."""
    game = load_game("fish", players=2)
    assert (game.info.name, game.info.num_players) == ("fish", 2)
    assert (game.info.min_return, game.info.max_return) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("options", "holes", "fish_values"),
    [
        ({"fish": 2}, 0, {2}),
        ({"fish": 3, "holes": 4}, 4, {0, 3}),
        ({"rows": 4, "cols": 6}, 0, set(range(1, 6))),
    ],
)
def test_the_board_follows_the_options(
    options: dict[str, int], holes: int, fish_values: set[int]
) -> None:
    """Uniform or random fish, the asked number of holes, the asked size; nobody placed yet."""
    game = FishGame(**options)
    floes = game.new_initial_state(1).floes
    assert floes.layout.size == options.get("rows", 5) * options.get("cols", 5)
    assert floes.fish.count(0) == holes
    assert set(floes.fish) <= fish_values
    assert floes.quota == [2, 2, 2, 2], "four players place 6 - 4 penguins each"


def test_actions_are_tiles_while_placing_and_pairs_while_moving() -> None:
    """Placement actions are tile indices, movement actions (from, to) pairs."""
    state = FishGame(players=2, fish=1).new_initial_state(0)
    assert state.legal_actions() == list(range(25))
    for _ in range(8):
        state.apply_action(state.legal_actions()[0])
    moves = state.legal_actions()
    assert moves == sorted(moves)
    assert all(isinstance(move, tuple) and len(move) == 2 for move in moves)


@pytest.mark.parametrize("action", [99, (0, 1), "a", -1])
def test_an_illegal_action_raises_value_error_and_changes_nothing(action: object) -> None:
    """apply_action refuses an illegal action with ValueError and leaves the state alone."""
    state = FishGame(players=2, fish=1).new_initial_state(0)
    state.apply_action(0)
    before = state.serialize()
    with pytest.raises(ValueError):  # noqa: PT011  (the message varies with the cause)
        state.apply_action(action)  # type: ignore[arg-type]
    assert state.serialize() == before


@pytest.mark.parametrize(
    ("scores", "expected"),
    [([5, 3], [1.0, 0.0]), ([4, 4], [0.5, 0.5]), ([1, 2, 2], [0.0, 0.5, 0.5])],
)
def test_top_scorers_share_a_return_of_one(scores: list[int], expected: list[float]) -> None:
    """A sole winner gets 1; k tied winners get 1/k each; everyone else 0."""
    floes = Floes(FISH_RULES, 1, 2, [1, 1], [0] * len(scores), scores=scores)
    state = FishState(floes)
    assert state.current_player() == TERMINAL
    assert state.returns() == expected


def test_the_paranoid_search_leaves_the_position_unchanged_and_plays_legally() -> None:
    """Placement and move choices are legal, and the searched position is restored."""
    state = FishGame(players=3).new_initial_state(4)
    rng = random.Random(4)
    while not state.is_terminal():
        floes = state.floes
        before = floes.key()
        seat = floes.current
        if floes.phase == "placement":
            action: object = paranoid_placement(floes, seat)
        else:
            action = paranoid_move(floes, seat, budget=500)
        assert floes.key() == before
        assert action in state.legal_actions()
        if rng.random() < 0.5:  # mix in random actions for variety
            actions = state.legal_actions()
            action = actions[rng.randrange(len(actions))]
        state.apply_action(action)


def test_the_evaluation_counts_fish_under_mobile_penguins_and_shares_contested_tiles() -> None:
    """Seat 0's prospects against seat 1, worked out by hand on a column board."""
    # Column of 4: seat 0 on (0,0) [3 fish], seat 1 on (3,0) [1 fish]; (1,0) 2 fish, (2,0) 4 fish.
    # Seat 0 reaches SE (1,0) and S (2,0); seat 1 (odd row) reaches N (1,0) and NW (2,0).
    # Both tiles are shared: each seat gets (2 + 4) / 2 = 3. Seat 0: 3 (own tile) + 3 = 6;
    # seat 1: 1 + 3 = 4. Scores 0 and 1: 6 - (1 + 4) = 1.
    floes = Floes(FISH_RULES, 4, 1, [3, 2, 4, 1], [0, 0], penguins=[[0], [3]], scores=[0, 1])
    assert evaluate(floes, 0) == pytest.approx(1.0)
