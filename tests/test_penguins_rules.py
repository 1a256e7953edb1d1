"""Penguins rules on the floes core, the simulator game, and the strategies."""

from __future__ import annotations

import random

import pytest

from floes import MOVEMENT, OVER, PLACEMENT, Floes, IllegalAction
from penguins.game import PenguinsGame, PenguinsState
from penguins.rules import (
    PENGUINS_RULES,
    board_of,
    from_board,
    generate_fish,
    penguins_each,
)
from penguins.strategies import (
    AlphaBetaStrategy,
    GreedyStrategy,
    RandomStrategy,
    make_strategy,
)
from protocol.penguins import parse
from sim.game import TERMINAL


def floes(
    rows: int,
    cols: int,
    fish: list[int],
    quota: list[int],
    penguins: list[list[int]] | None = None,
    scores: list[int] | None = None,
) -> Floes:
    """A Penguins position on the floes core (penguins given per seat)."""
    return Floes(PENGUINS_RULES, rows, cols, fish, quota, penguins=penguins, scores=scores)


def test_square_lines_go_up_down_left_right_nearest_first() -> None:
    """From (1, 1) of a 3 x 4 board the four lines are up, down, left, right, nearest first."""
    state = floes(3, 4, [1] * 12, [0, 0])
    # tile = row * 4 + col; (1, 1) is tile 5.
    assert state.layout.rays[5] == ((1,), (9,), (4,), (6, 7))
    assert state.layout.rays[0] == ((), (4, 8), (), (1, 2, 3))


def test_placement_only_on_a_free_one_fish_floe_and_collects_it() -> None:
    """A penguin goes only on a free floe with exactly one fish, and its player scores it."""
    state = floes(1, 4, [1, 2, 1, 0], [1, 1])
    assert state.placements(0) == [0, 2]
    for tile in (1, 3):
        with pytest.raises(IllegalAction):
            state.place(tile)
    state.place(2)
    assert (state.fish, state.scores, state.owner[2]) == ([1, 2, 0, 0], [1, 0], 0)
    assert state.current == 1
    assert state.placements(1) == [0]


def test_move_collects_the_landing_floe_and_sinks_the_one_left() -> None:
    """A move scores the fish where it lands; the floe it leaves becomes a hole."""
    state = floes(1, 4, [0, 2, 3, 1], [0, 0], penguins=[[0], [3]])
    # Seat 0's penguin stands on tile 0 (fish 0 since it collected them).
    assert state.phase == MOVEMENT
    assert state.moves(0) == [(0, 1), (0, 2)]
    assert state.move(0, 2) == 3
    assert state.fish == [0, 2, 0, 1]
    assert state.owner[:3] == [-1, -1, 0]
    assert state.scores == [3, 0]


@pytest.mark.parametrize(
    ("fish", "penguins", "expected"),
    [
        ([0, 1, 0, 1, 1], [[0], [4]], [(0, 1)]),  # stops before the hole at 2
        ([0, 1, 1, 0, 1], [[0], [2]], [(0, 1)]),  # stops before the penguin on 2
        ([1, 1, 0, 1, 0], [[2], [4]], [(2, 1), (2, 0), (2, 3)]),  # both ways, nearest first
    ],
)
def test_moves_never_cross_a_hole_or_a_penguin(
    fish: list[int], penguins: list[list[int]], expected: list[tuple[int, int]]
) -> None:
    """A line ends before a hole, a penguin or the edge."""
    state = floes(1, 5, fish, [0, 0], penguins=penguins)
    for tile in (*penguins[0], *penguins[1]):
        state.fish[tile] = 0
    assert sorted(state.moves(0)) == sorted(expected)


def test_blocked_player_is_skipped_and_the_game_ends_when_nobody_can_move() -> None:
    """A player who cannot move is skipped; when nobody can, the game is over."""
    # Seat 0 on tile 0 is walled in by the hole at 1; seat 1 on tile 2 can go to 3 then stop.
    state = floes(1, 4, [0, 0, 0, 2], [0, 0], penguins=[[0], [2]])
    assert state.current == 1
    state.move(2, 3)
    assert state.phase == OVER
    assert state.winners() == [1]


def test_player_without_a_one_fish_floe_is_skipped_in_placement() -> None:
    """With penguins left but no free one-fish floe, a player is skipped, not removed."""
    state = floes(1, 3, [1, 2, 2], [1, 1])
    state.place(0)
    assert state.phase == MOVEMENT
    assert state.active == [True, True]


def test_generated_boards_have_enough_one_fish_floes() -> None:
    """Generation leaves at least one one-fish floe per penguin, and only fish 0-3."""
    for seed in range(20):
        fish = generate_fish(random.Random(seed), 4, 4, 12)
        assert fish.count(1) >= 12
        assert set(fish) <= {0, 1, 2, 3}


def test_default_penguins_per_player() -> None:
    """Four penguins each, fewer when the board is crowded, never none."""
    assert penguins_each(2, 10, 10) == 4
    assert penguins_each(9, 10, 10) == 1
    assert penguins_each(9, 2, 2) == 1


def test_board_file_round_trip_through_the_core() -> None:
    """A board file's position comes back as the same fields through the core."""
    board = parse("2 3\n10 20 01\n00 30 02\na 1 4\nb 2 2\n")
    state = from_board(board, MOVEMENT, 2)
    assert state.penguins[0] == [2]
    assert state.penguins[1] == [5]
    assert state.scores[:2] == [4, 2]
    assert state.active[:3] == [True, True, False]
    again = board_of(state)
    assert (again.fish, again.owner) == (board.fish, board.owner)


# -- the simulator game ---------------------------------------------------------------------


def test_actions_encode_tiles_and_moves() -> None:
    """A placement is its tile; a move is from * tiles + to."""
    game = PenguinsGame(rows=1, cols=4, players=2, penguins=1)
    state = PenguinsState(floes(1, 4, [1, 3, 2, 1], [1, 1]))
    assert state.legal_actions() == [0, 3]
    state.apply_action(0)
    state.apply_action(3)
    assert state.legal_actions() == [0 * 4 + 1, 0 * 4 + 2]
    state.apply_action(2)
    assert state.returns() == [3.0, 1.0]
    assert game.info.max_return == 12.0


@pytest.mark.parametrize("action", [1, 99, -1, "0", None, True])
def test_illegal_action_raises_and_changes_nothing(action: object) -> None:
    """An illegal action raises ValueError and leaves the state as it was."""
    state = PenguinsState(floes(1, 4, [1, 3, 2, 1], [1, 1]))
    before = state.serialize()
    with pytest.raises(ValueError):  # noqa: PT011 (any ValueError; IllegalAction is one)
        state.apply_action(action)
    assert state.serialize() == before


def test_serialization_is_a_board_file_plus_the_turn() -> None:
    """serialize() is the board in the file format, then phase, seat to act and quotas."""
    state = PenguinsState(floes(1, 3, [1, 2, 1], [1, 1]))
    state.apply_action(2)
    assert state.serialize() == "1 3\n10 20 01\nplayer1 1 1\nplayer2 2 0\nplacement 1 0 1\n"


def test_terminal_state() -> None:
    """A finished game reports TERMINAL, no actions, and the fish as returns."""
    state = PenguinsState(floes(1, 2, [0, 0], [0, 0], penguins=[[0], [1]], scores=[3, 5]))
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == []
    assert state.returns() == [3.0, 5.0]


@pytest.mark.parametrize(
    "options",
    [
        {"players": 1},
        {"players": 10},
        {"rows": 0},
        {"penguins": 0},
        {"rows": 2, "cols": 2, "penguins": 3},
        {"budget": 0},
    ],
)
def test_game_refuses_impossible_options(options: dict[str, int]) -> None:
    """Options that cannot make a game are refused with a ValueError."""
    with pytest.raises(ValueError):  # noqa: PT011 (the message varies with the option)
        PenguinsGame(**options)


def test_more_players_and_penguins_play_to_the_end() -> None:
    """Nine players with two penguins each finish a game with every placement made."""
    game = PenguinsGame(rows=8, cols=8, players=9, penguins=2)
    result = game.play(3, ["greedy", "random"] * 4 + ["alphabeta"])
    assert len(result.returns) == 9
    assert all(stat["penguins"] == 2 for stat in result.stats)


# -- strategies ------------------------------------------------------------------------------


def test_greedy_takes_the_most_fish_now() -> None:
    """Greedy moves to the floe with the most fish, the smallest (from, to) on ties."""
    state = floes(1, 5, [2, 0, 1, 3, 3], [0, 0], penguins=[[1], [4]])
    state.fish[4] = 0
    assert GreedyStrategy().move(state, 0, random.Random(0)) == (1, 3)


def test_greedy_places_where_most_fish_are_within_reach() -> None:
    """Greedy places on the one-fish floe with the most fish within one move."""
    state = floes(2, 3, [1, 0, 1, 1, 3, 3], [1, 1])
    assert GreedyStrategy().place(state, 0, random.Random(0)) == 3


def test_alphabeta_sees_past_the_greedy_move() -> None:
    """Alpha-beta leaves the 3 fish that lead into a dead end and wins by the long corridor."""
    # 4 x 4, tile = row * 4 + col. Me on 0, the opponent on 12 (both on emptied floes).
    # Right of me: a 3 on tile 1, then holes: taking it strands me with 3 while the opponent
    # collects the corridor 8, 4 (2 + 2). Down from me: 4 and 8 (2 each); jumping to 8 first
    # pushes the opponent off to 13 (2) and leaves me 4 for 2 + 2.
    fish = [0, 3, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0]
    state = floes(4, 4, fish, [0, 0], penguins=[[0], [12]])
    assert GreedyStrategy().move(state, 0, random.Random(0)) == (0, 1)
    search = AlphaBetaStrategy(budget=5000)
    assert search.move(state, 0, random.Random(0)) == (0, 8)
    assert search.completed_depth >= 3


def test_alphabeta_is_deterministic_and_keeps_its_budget() -> None:
    """The same position gives the same move, and the search stops within its node budget."""
    game = PenguinsGame()
    state = game.new_initial_state(4)
    while state.floes.phase == PLACEMENT:
        state.apply_action(state.legal_actions()[0])
    first = AlphaBetaStrategy(budget=200)
    choice = first.move(state.floes, state.floes.current, random.Random(1))
    assert first.nodes <= 201
    again = AlphaBetaStrategy(budget=200).move(state.floes, state.floes.current, random.Random(2))
    assert choice == again
    assert choice in state.floes.moves(state.floes.current)


@pytest.mark.parametrize("name", ["random", "greedy", "alphabeta", "minimax2"])
def test_every_strategy_returns_legal_choices(name: str) -> None:
    """Each strategy places and moves legally, and says None when it cannot act."""
    strategy = make_strategy(name)
    state = floes(2, 3, [1, 2, 1, 3, 1, 2], [1, 1])
    assert strategy.place(state, 0, random.Random(0)) in state.placements(0)
    state = floes(1, 3, [0, 2, 0], [0, 0], penguins=[[0], [2]])
    assert strategy.move(state, 0, random.Random(0)) == (0, 1)
    blocked = floes(1, 2, [0, 0], [0, 0], penguins=[[0], [1]])
    assert strategy.move(blocked, 0, random.Random(0)) is None


def test_random_strategy_draws_from_its_generator() -> None:
    """Random picks differ across generator seeds and repeat for the same seed."""
    state = floes(1, 8, [1] * 8, [1, 1])
    picks = {RandomStrategy().place(state, 0, random.Random(seed)) for seed in range(20)}
    assert len(picks) > 1
    assert RandomStrategy().place(state, 0, random.Random(5)) == RandomStrategy().place(
        state, 0, random.Random(5)
    )


def test_unknown_strategy_names_the_choices() -> None:
    """An unknown strategy name is refused with the list of known ones."""
    with pytest.raises(ValueError, match="alphabeta"):
        make_strategy("nope")
