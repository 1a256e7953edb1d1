"""Maze generation and the bit-set geometry the bots rely on, as property tests."""

from __future__ import annotations

import random
from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st

from labyrinth.bitboard import UNREACHABLE, Torus, free_mask
from labyrinth.generation import generate
from labyrinth.rules import Labyrinth, LabyrinthConfig, Move, MoveType

seeds = st.integers(min_value=0, max_value=2**63)
odd_sizes = st.integers(min_value=2, max_value=10).map(lambda half: 2 * half + 1)


def free_cells(labyrinth: Labyrinth) -> set[tuple[int, int]]:
    width = labyrinth.width
    return {
        (x, y)
        for y in range(labyrinth.height)
        for x in range(width)
        if not labyrinth.walls[y * width + x]
    }


def neighbours(cell: tuple[int, int], width: int, height: int) -> list[tuple[int, int]]:
    x, y = cell
    return [
        ((x + 1) % width, y),
        ((x - 1) % width, y),
        (x, (y + 1) % height),
        (x, (y - 1) % height),
    ]


def bfs(labyrinth: Labyrinth, source: tuple[int, int]) -> dict[tuple[int, int], int]:
    """Plain queue BFS over free cells: the reference the bit sets are checked against."""
    free = free_cells(labyrinth)
    distance = {source: 0}
    queue = deque([source])
    while queue:
        cell = queue.popleft()
        for other in neighbours(cell, labyrinth.width, labyrinth.height):
            if other in free and other not in distance:
                distance[other] = distance[cell] + 1
                queue.append(other)
    return distance


@settings(max_examples=60, deadline=None)
@given(seeds)
def test_default_mazes_have_odd_sizes_in_the_configured_ranges(seed: int) -> None:
    """L is odd in 13..17 and H odd in 9..15."""
    labyrinth = generate(seed)
    assert labyrinth.width % 2 == 1
    assert 13 <= labyrinth.width <= 17
    assert labyrinth.height % 2 == 1
    assert 9 <= labyrinth.height <= 15


@settings(max_examples=60, deadline=None)
@given(seeds, odd_sizes, odd_sizes)
def test_mazes_are_symmetric_connected_and_have_loops(seed: int, width: int, height: int) -> None:
    """Left-right mirror image, starts and treasure free, every free cell joined, some loops."""
    config = LabyrinthConfig(width_range=(width, width), height_range=(height, height))
    labyrinth = generate(seed, config)
    assert (labyrinth.width, labyrinth.height) == (width, height)
    walls = labyrinth.walls
    for y in range(height):
        row = walls[y * width : (y + 1) * width]
        assert row == row[::-1]
    free = free_cells(labyrinth)
    assert {*labyrinth.players, labyrinth.treasure} <= free
    reached = bfs(labyrinth, labyrinth.treasure)
    assert set(reached) == free
    edges = sum(
        1 for cell in free for other in neighbours(cell, width, height)[::2] if other in free
    )
    assert edges - len(free) + 1 >= 1, "a tree has no loop"
    assert sum(walls) > 0


@settings(max_examples=30, deadline=None)
@given(seeds)
def test_the_same_seed_gives_the_same_maze(seed: int) -> None:
    """Generation is a pure function of the seed."""
    assert generate(seed).maze_text() == generate(seed).maze_text()


def test_different_seeds_give_different_mazes() -> None:
    """The seed matters: ten seeds give at least nine distinct mazes."""
    assert len({generate(seed).maze_text() for seed in range(10)}) >= 9


def random_labyrinth(rng: random.Random, width: int, height: int) -> Labyrinth:
    walls = bytearray(rng.random() < 0.4 for _ in range(width * height))
    middle = height // 2
    for x in (0, width // 2, width - 1):
        walls[middle * width + x] = 0
    return Labyrinth(width, height, bytes(walls))


@settings(max_examples=60, deadline=None)
@given(seeds, odd_sizes, odd_sizes, st.sampled_from(list(MoveType)[:4]), st.integers(0, 20))
def test_bit_set_rotations_match_the_rules(
    seed: int, width: int, height: int, kind: MoveType, index: int
) -> None:
    """Torus.rotate_row / rotate_column give the walls the rules' rotation gives."""
    labyrinth = random_labyrinth(random.Random(seed), width, height)
    torus = Torus.of(width, height)
    before = free_mask(labyrinth.walls)
    count = height if kind < MoveType.ROTATE_COLUMN_UP else width
    index %= count
    labyrinth.energies[0] = 5
    labyrinth.play(Move(kind, index))
    shift = -1 if kind in (MoveType.ROTATE_LINE_LEFT, MoveType.ROTATE_COLUMN_UP) else 1
    if kind < MoveType.ROTATE_COLUMN_UP:
        rotated = torus.rotate_row(before, index, shift)
    else:
        rotated = torus.rotate_column(before, index, shift)
    assert rotated == free_mask(labyrinth.walls)


@settings(max_examples=60, deadline=None)
@given(seeds, odd_sizes, odd_sizes)
def test_bit_set_distances_match_a_plain_bfs(seed: int, width: int, height: int) -> None:
    """Torus.distances_to agrees with a queue BFS, and a walker on the target needs two steps."""
    rng = random.Random(seed)
    labyrinth = random_labyrinth(rng, width, height)
    torus = Torus.of(width, height)
    free = free_mask(labyrinth.walls)
    target = labyrinth.treasure
    reference = bfs(labyrinth, target)
    cells = sorted(free_cells(labyrinth))
    first, second = rng.choice(cells), rng.choice(cells)
    found = torus.distances_to(free, torus.bit(*target), torus.bit(*first), torus.bit(*second))
    for cell, distance in zip((first, second), found, strict=True):
        if cell == target:
            stuck = all(other not in reference for other in neighbours(cell, width, height))
            assert distance == (UNREACHABLE if stuck else 2)
        else:
            assert distance == reference.get(cell, UNREACHABLE)
