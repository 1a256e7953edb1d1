"""Maze generation from a seed: random, with loops, left-right symmetric, fully connected.

The generator starts from an open torus and adds walls in mirrored pairs, in a seeded random
order, keeping one only when it leaves every free cell connected, keeps enough loops, and does not
close a 2 x 2 block of walls (which makes thick blobs instead of corridors). It stops at the
configured wall share. Connectivity of all free cells gives the spec's guarantee that the starts
and the treasure are free and joined; the mirror x -> L-1-x gives neither seat an advantage.
"""

from __future__ import annotations

import random

from labyrinth.bitboard import Torus
from labyrinth.rules import Labyrinth, LabyrinthConfig

__all__ = ["cycle_rank", "generate", "generate_walls"]


def cycle_rank(torus: Torus, free: int) -> int:
    """Independent loops of the free cells' graph (edges - cells + 1), for a connected graph."""
    width = torus.width
    last = torus.last_column
    right = ((free & ~last) << 1) | ((free & last) >> (width - 1))
    down = ((free & ~torus.last_row) << width) | ((free & torus.last_row) >> (torus.size - width))
    edges = (free & right).bit_count() + (free & down).bit_count()
    return edges - free.bit_count() + 1


def _closes_wall_block(walls: bytearray, width: int, height: int, x: int, y: int) -> bool:
    """Would walling (x, y) complete a 2 x 2 square of walls (on the torus)?"""
    for dx in (-1, 0):
        for dy in (-1, 0):
            cells = [((x + dx + i) % width, (y + dy + j) % height) for i in (0, 1) for j in (0, 1)]
            if all((cx, cy) == (x, y) or walls[cy * width + cx] for cx, cy in cells):
                return True
    return False


def generate_walls(rng: random.Random, width: int, height: int, wall_ratio: float) -> bytearray:
    """A symmetric connected maze of the given size; row-major, 1 = wall."""
    torus = Torus.of(width, height)
    middle = height // 2
    protected = {(0, middle), (width - 1, middle), (width // 2, middle)}
    walls = bytearray(width * height)
    free = torus.full
    candidates = [
        (x, y) for x in range(width // 2 + 1) for y in range(height) if (x, y) not in protected
    ]
    rng.shuffle(candidates)
    target = round(wall_ratio * width * height)
    count = 0
    anchor = torus.bit(width // 2, middle)
    for x, y in candidates:
        if count >= target:
            break
        pair = {(x, y), (width - 1 - x, y)}
        if any(_closes_wall_block(walls, width, height, cx, cy) for cx, cy in pair):
            continue
        bits = sum(torus.bit(cx, cy) for cx, cy in pair)
        trial = free & ~bits
        if torus.component(trial, anchor) != trial:
            continue
        # About one independent loop per ten free cells: there are always ways around.
        if cycle_rank(torus, trial) < trial.bit_count() // 10:
            continue
        free = trial
        for cx, cy in pair:
            walls[cy * width + cx] = 1
        count += len(pair)
    return walls


def generate(seed: int, config: LabyrinthConfig | None = None) -> Labyrinth:
    """The initial position of the game for ``seed``: sizes and maze drawn from it."""
    config = config if config is not None else LabyrinthConfig()
    rng = random.Random(seed)
    width = rng.randrange(config.width_range[0], config.width_range[1] + 1, config.width_step)
    height = rng.randrange(config.height_range[0], config.height_range[1] + 1, 2)
    walls = generate_walls(rng, width, height, config.wall_ratio)
    return Labyrinth(width, height, bytes(walls), config)
