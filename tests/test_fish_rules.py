"""Fish rules on the floes core: the direction table, reachability, and the flow of a game.

Expected values are derived by hand from the course's Fish spec, not by running code.
"""

from __future__ import annotations

import pytest

from fish.rules import DIRECTIONS, FISH_RULES, hex_step
from floes import MOVEMENT, OVER, PLACEMENT, Floes, IllegalAction


def tile(cols: int, row: int, col: int) -> int:
    return row * cols + col


@pytest.mark.parametrize(
    ("start", "expected"),
    [
        # even row: o = 0, e = 1
        ((2, 2), [(0, 2), (1, 2), (3, 2), (4, 2), (3, 1), (1, 1)]),
        # odd row: o = 1, e = 0
        ((3, 2), [(1, 2), (2, 3), (4, 3), (5, 2), (4, 2), (2, 2)]),
    ],
)
def test_direction_table_follows_offset_rows(
    start: tuple[int, int], expected: list[tuple[int, int]]
) -> None:
    """N, NE, SE, S, SW, NW from a tile are the spec's offsets for its row's parity."""
    assert DIRECTIONS == ("north", "northeast", "southeast", "south", "southwest", "northwest")
    assert [hex_step(*start, d) for d in range(6)] == expected


def test_neighbours_are_clipped_to_the_board_in_direction_order() -> None:
    """A corner tile's neighbours are the on-board ones, in direction order."""
    floes = Floes(FISH_RULES, 3, 3, [1] * 9, [])
    # (0, 0): only SE (1, 0) and S (2, 0) are on the board.
    assert floes.layout.neighbours[0] == (tile(3, 1, 0), tile(3, 2, 0))
    # (1, 1), odd: NE (0, 2), SE (2, 2), SW (2, 1), NW (0, 1); N and S are off.
    assert floes.layout.neighbours[tile(3, 1, 1)] == (2, 8, 7, 1)


BOARD_5X3 = [1] * 15


@pytest.mark.parametrize(
    ("fish", "penguins", "start", "expected"),
    [
        # The spec's example: from (0, 0), SE (1, 0) then (2, 1), and S (2, 0).
        ([1, 2, 3, 4, 0, 5, 1, 1, 0], [], (0, 0), {(1, 0), (2, 1), (2, 0)}),
        # From (4, 0) on a full 5 x 3 board: N (2, 0), (0, 0); NE zigzags (3, 0), (2, 1),
        # (1, 1), (0, 2); every other direction leaves the board.
        (BOARD_5X3, [], (4, 0), {(2, 0), (0, 0), (3, 0), (2, 1), (1, 1), (0, 2)}),
        # A penguin on (1, 1) stops the NE line before it.
        (BOARD_5X3, [(1, 1)], (4, 0), {(2, 0), (0, 0), (3, 0), (2, 1)}),
        # A hole on (2, 0) stops the N line at once.
        ([1] * 6 + [0] + [1] * 8, [], (4, 0), {(3, 0), (2, 1), (1, 1), (0, 2)}),
    ],
)
def test_reachable_tiles_stop_before_holes_penguins_and_edges(
    fish: list[int],
    penguins: list[tuple[int, int]],
    start: tuple[int, int],
    expected: set[tuple[int, int]],
) -> None:
    """Reachable tiles are those along the six straight lines up to a hole, penguin or edge."""
    cols = 3
    others = [[tile(cols, *p) for p in penguins]]
    floes = Floes(FISH_RULES, len(fish) // cols, cols, fish, [0], penguins=others)
    reached = floes.reachable(tile(cols, *start))
    assert {floes.layout.position(t) for t in reached} == expected
    assert len(reached) == len(expected), "no tile is counted twice"


def test_placement_is_round_robin_then_movement_starts_with_the_first_seat() -> None:
    """Seats place one penguin at a time in turn order; movement starts with seat 0."""
    floes = Floes(FISH_RULES, 2, 3, [1, 2, 3, 4, 5, 1], [2, 2])
    assert (floes.phase, floes.current) == (PLACEMENT, 0)
    for expected_seat, where in [(0, 0), (1, 1), (0, 2), (1, 3)]:
        assert floes.current == expected_seat
        floes.place(where)
    # Seat 0 on (0,0), (0,2); seat 1 on (0,1), (1,0); only (1,1) and (1,2) are free.
    assert floes.phase == MOVEMENT
    assert floes.current == 0


def test_placing_on_a_hole_or_a_penguin_is_illegal_and_changes_nothing() -> None:
    """A placement on a hole or an occupied tile raises and leaves the position as it was."""
    floes = Floes(FISH_RULES, 1, 3, [1, 0, 1], [1, 1])
    floes.place(0)
    before = floes.key()
    for where in (0, 1, 7):
        with pytest.raises(IllegalAction):
            floes.place(where)
    assert floes.key() == before


def test_a_move_scores_the_tile_it_leaves_which_becomes_a_hole() -> None:
    """Moving scores the fish of the tile left and turns it into a hole."""
    # Column board: (0,0) 3 fish with seat 0's penguin, (2,0) reachable by S.
    floes = Floes(FISH_RULES, 3, 1, [3, 1, 2], [0, 0], penguins=[[0], []])
    assert floes.move(0, 2) == 3
    assert floes.scores == [3, 0]
    assert floes.fish == [0, 1, 2]
    assert floes.penguins == [[2], []]


def test_an_unreachable_move_is_illegal() -> None:
    """A move that is not along a free straight line raises and changes nothing."""
    # The S line from (0,0) meets the hole on (2,0) at once, so (4,0) is out of reach.
    floes = Floes(FISH_RULES, 5, 1, [1, 1, 0, 1, 1], [0, 0], penguins=[[0], [3]])
    before = floes.key()
    with pytest.raises(IllegalAction):
        floes.move(0, 4)
    with pytest.raises(IllegalAction):
        floes.move(3, 4)  # not the mover's penguin
    assert floes.key() == before


def test_a_seat_that_cannot_move_is_skipped_and_the_game_ends_when_nobody_can() -> None:
    """Turns skip a blocked seat; with no move left anywhere the game is over."""
    # A column of 5 tiles: seat 0 on (0,0) can go SE (1,0) or S (2,0), (4,0); seat 1 on (3,0)
    # (odd) can go N (1,0), SW (4,0), NW (2,0).
    floes = Floes(FISH_RULES, 5, 1, [1, 1, 1, 1, 1], [0, 0], penguins=[[0], [3]])
    assert floes.current == 0
    floes.move(0, 2)  # (0,0) -> (2,0): (0,0) becomes a hole
    assert floes.current == 1
    floes.move(3, 1)  # (3,0) -> (1,0) along N: (3,0) becomes a hole
    # Seat 0 on (2,0): N (0,0) hole, NE (1,0) penguin, SE (3,0) hole, S (4,0) free.
    assert floes.current == 0
    floes.move(2, 4)
    # Seat 1 on (1,0): S (3,0) hole, SW (2,0) hole, NW (0,0) hole: stuck. Seat 0 on (4,0):
    # N (2,0) hole, NE (3,0) hole: stuck. Nobody can move.
    assert floes.phase == OVER
    assert floes.scores == [2, 1]
    assert floes.winners() == [0]


def test_every_top_scorer_wins() -> None:
    """Seats sharing the top score all win."""
    floes = Floes(FISH_RULES, 1, 3, [1, 1, 1], [0, 0, 0], scores=[4, 2, 4], penguins=[[], [], []])
    assert floes.phase == OVER
    assert floes.winners() == [0, 2]


def test_a_seat_that_finds_no_free_tile_to_place_on_is_eliminated_with_its_penguins() -> None:
    """Fish's referee removes a seat that cannot place; its tiles become free for the others."""
    # 1 x 3 board, quotas of 2: seat 0 (0,0), seat 1 (0,1), seat 0 (0,2), seat 1 finds nothing.
    floes = Floes(FISH_RULES, 1, 3, [1, 1, 1], [2, 2])
    for where in (0, 1, 2):
        floes.place(where)
    assert floes.active == [True, False]
    assert floes.penguins[1] == []
    assert floes.owner[1] == -1, "the eliminated penguin's tile stays and is free"
    assert floes.phase == OVER, "nobody can move on a single row"
    assert floes.winners() == [0]


def test_reachability_on_a_large_full_board() -> None:
    """From (50, 50) on a full 100 x 100 board the six lines hold 247 tiles.

    N: rows 48, 46, ..., 0 (25); S: rows 52, ..., 98 (24); NE and NW climb one row a step to
    row 0 (50 each) while drifting at most 25 columns; SE and SW descend to row 99 (49 each).
    """
    floes = Floes(FISH_RULES, 100, 100, [1] * 10_000, [])
    assert len(floes.reachable(tile(100, 50, 50))) == 25 + 24 + 50 + 50 + 49 + 49
