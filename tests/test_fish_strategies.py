"""Fish strategies: the course's minimax (tie-breaking, exactness of its pruned search against a
naive tree written here from the spec), greedy, the strategy table, and the paranoid player."""

from __future__ import annotations

import random

import pytest
from fish_spec import Pos, spec_step

from fish.game import FishGame, FishState
from fish.rules import FISH_RULES
from fish.strategies import make_bot
from floes import Floes, minimax_move, minimax_value

# --------------------------------------------------------------------------- a naive reference


def naive_moves(board: dict[Pos, int], places: list[list[Pos]], seat: int) -> list[tuple[Pos, Pos]]:
    taken = {p for tiles in places for p in tiles}
    out = []
    for src in places[seat]:
        for direction in range(6):
            here = spec_step(*src, direction)
            while board.get(here, 0) > 0 and here not in taken:
                out.append((src, here))
                here = spec_step(*here, direction)
    return sorted(out)


def naive_value(
    board: dict[Pos, int],
    places: list[list[Pos]],
    scores: list[int],
    mover: int,
    me: int,
    turns_left: int,
) -> int:
    """Full minimax tree: me maximises my score over my next turns, others minimise it."""
    seats = len(places)
    for step in range(seats):
        seat = (mover + step) % seats
        if naive_moves(board, places, seat):
            break
    else:
        return scores[me]  # nobody can move: game over
    if seat == me and turns_left == 0:
        return scores[me]
    values = []
    for src, dst in naive_moves(board, places, seat):
        new_board = dict(board)
        new_board[src] = 0
        new_places = [list(tiles) for tiles in places]
        new_places[seat][new_places[seat].index(src)] = dst
        new_scores = list(scores)
        new_scores[seat] += board[src]
        left = turns_left - 1 if seat == me else turns_left
        values.append(naive_value(new_board, new_places, new_scores, seat + 1, me, left))
    return max(values) if seat == me else min(values)


def naive_choice(
    board: dict[Pos, int], places: list[list[Pos]], scores: list[int], depth: int
) -> tuple[int, tuple[Pos, Pos]] | None:
    """(value, move) of seat 0's best move, the first (smallest) among equals."""
    best: tuple[int, tuple[Pos, Pos]] | None = None
    for src, dst in naive_moves(board, places, 0):
        new_board = dict(board)
        new_board[src] = 0
        new_places = [list(tiles) for tiles in places]
        new_places[0][new_places[0].index(src)] = dst
        new_scores = list(scores)
        new_scores[0] += board[src]
        value = naive_value(new_board, new_places, new_scores, 1, 0, depth - 1)
        if best is None or value > best[0]:
            best = (value, (src, dst))
    return best


def random_position(
    rng: random.Random, small: bool
) -> tuple[int, int, list[int], list[list[int]], list[int]]:
    """A random mid-game position; ``small`` keeps a naive depth-3 tree to a fraction of a
    second."""
    rows, cols = rng.randint(2, 4 if small else 5), rng.randint(2, 3 if small else 4)
    fish = [rng.choice([0, 1, 1, 2, 3, 4, 5]) for _ in range(rows * cols)]
    floes = [t for t in range(rows * cols) if fish[t]]
    seats = rng.randint(2, 3)
    each = 1 if small else rng.randint(1, 2)
    if len(floes) < seats * each:
        return random_position(rng, small)
    chosen = rng.sample(floes, seats * each)
    penguins = [chosen[seat * each : (seat + 1) * each] for seat in range(seats)]
    scores = [rng.randint(0, 5) for _ in range(seats)]
    return rows, cols, fish, penguins, scores


@pytest.mark.parametrize("seed", range(60))
def test_minimax_chooses_what_the_full_tree_with_the_tie_rule_chooses(seed: int) -> None:
    """The pruned minimax picks the same move as the naive full tree, ties to the smallest."""
    rng = random.Random(seed)
    depth = 1 + seed % 3
    rows, cols, fish, penguins, scores = random_position(rng, small=depth == 3)
    floes = Floes(
        FISH_RULES, rows, cols, fish, [0] * len(penguins), penguins=penguins, scores=scores
    )
    board = {divmod(t, cols): fish[t] for t in range(rows * cols)}
    places = [[divmod(t, cols) for t in tiles] for tiles in penguins]
    before = floes.key()
    chosen = minimax_move(floes, 0, depth)
    assert floes.key() == before, "the search leaves the position as it found it"
    expected = naive_choice(board, places, scores, depth)
    if expected is None:
        assert chosen is None
        return
    assert chosen is not None
    assert (divmod(chosen[0], cols), divmod(chosen[1], cols)) == expected[1]
    assert minimax_value(floes, 0, chosen, depth) == expected[0]


# ------------------------------------------------------------------- hand-derived tie-breaking


def column(fish: list[int], red: list[int], white: list[int]) -> Floes:
    return Floes(FISH_RULES, len(fish), 1, fish, [0, 0], penguins=[red, white])


def test_minimax_depth_one_takes_the_richest_tile_left_then_the_smallest_move() -> None:
    """With equal values, the move with the smallest (from, to) wins."""
    # 3 x 2 board, red on (0,0) with 1 fish and (0,1) with 3: every move from (0,1) scores 3;
    # its destinations are (1,0) by SW, (1,1) by SE, (2,1) by S: the smallest is (1,0).
    floes = Floes(FISH_RULES, 3, 2, [1, 3, 1, 1, 1, 1], [0, 0], penguins=[[0, 1], []])
    assert minimax_move(floes, 0, 1) == (1, 2)


def test_minimax_depth_two_avoids_a_tile_the_opponent_can_wall_in() -> None:
    """Opponents minimise: the rich tile whose only exit white can take is not chosen."""
    # Column board (hand-derived): red on 3, white on 6; (1,0) has 5 fish but white can move onto
    # (2,0), its only free neighbour; (2,0) keeps two exits. Depth 1 ties on the smallest move.
    fish = [0, 5, 3, 1, 1, 1, 1, 1]
    assert minimax_move(column(fish, [3], [6]), 0, 1) == (3, 1)
    assert minimax_move(column(fish, [3], [6]), 0, 2) == (3, 2)
    assert minimax_value(column(fish, [3], [6]), 0, (3, 1), 2) == 1
    assert minimax_value(column(fish, [3], [6]), 0, (3, 2), 2) == 4


def test_minimax_returns_none_when_the_seat_cannot_move() -> None:
    """A blocked seat has no move."""
    assert minimax_move(column([1, 1], [0], [1]), 0, 2) is None


# --------------------------------------------------------------------------- the bots


def state_of(floes: Floes) -> FishState:
    return FishState(floes)


def test_greedy_moves_the_penguin_on_the_most_fish_and_places_on_the_richest_floe() -> None:
    """Greedy scores the most now; ties go to the smallest tile or move."""
    floes = Floes(FISH_RULES, 3, 2, [1, 3, 1, 1, 1, 1], [0, 0], penguins=[[0, 1], []])
    assert make_bot("greedy").step(state_of(floes), random.Random(0)) == (1, 2)
    placing = Floes(FISH_RULES, 2, 2, [2, 5, 5, 1], [1, 1])
    assert make_bot("greedy").step(state_of(placing), random.Random(0)) == 1


def test_minimax_bots_place_on_the_first_free_tile_in_row_major_order() -> None:
    """The course's player places on the first free tile, row by row."""
    placing = Floes(FISH_RULES, 2, 2, [0, 5, 5, 1], [2, 2])
    placing.place(1)
    assert make_bot("minimax2").step(state_of(placing), random.Random(0)) == 2


def test_the_strategy_table_accepts_minimax_of_any_depth() -> None:
    """`minimaxD` for any D >= 1 is a strategy; other names are not."""
    table = FishGame().strategies()
    assert {"random", "greedy", "minimax1", "minimax2", "paranoid"} <= set(table)
    assert "minimax7" in table
    assert "minimax0" not in table
    assert "minimaxx" not in table
    with pytest.raises(KeyError):
        table["nobody"]


def test_paranoid_is_deterministic_and_legal() -> None:
    """The paranoid bot plays legal actions and the same match twice the same way."""
    game = FishGame(players=2)
    first = game.play(3, ["paranoid", "minimax2"])
    assert first == game.play(3, ["paranoid", "minimax2"])
    assert sum(first.returns) == pytest.approx(1.0)


def test_game_options_are_checked() -> None:
    """Impossible options are refused with the option named."""
    with pytest.raises(ValueError, match="players"):
        FishGame(players=5)
    with pytest.raises(ValueError, match="holes"):
        FishGame(rows=2, cols=2)
    with pytest.raises(ValueError, match="fish"):
        FishGame(fish=9)
