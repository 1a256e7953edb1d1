"""draw_problem's generator use: the draws of the spec's two ``integers`` calls, exactly.

draw_problem reads the words of both calls from one generator call (see dungeon/traps.py); these
tests hold it to the spec's own calls, value for value and generator state for state.
"""

from __future__ import annotations

import numpy as np
import pytest

from dungeon.traps import draw_problem, draw_traps


def rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def spec_problem(generator: np.random.Generator, switches: int, traps: int) -> list[list[int]]:
    """The problem as the spec draws it: picks, then negations, each one ``integers`` call."""
    picks = generator.integers(0, switches - np.array([0, 1, 2]), size=(traps, 3)).tolist()
    negated = generator.integers(0, 2, size=(traps, 3), dtype=np.int8).tolist()
    problem = []
    for (first, second, third), signs in zip(picks, negated, strict=True):
        # The second pick skips the first switch; the third skips both, in order.
        second += second >= first
        low, high = sorted((first, second))
        third += third >= low
        third += third >= high
        switches_of_trap = (first, second, third)
        problem.append(
            [-(v + 1) if neg else v + 1 for v, neg in zip(switches_of_trap, signs, strict=True)]
        )
    return problem


SIZES = [
    (20, 85),  # the default rules
    (3, 10),  # a pick over a single switch draws nothing
    (4, 101),
    (48, 5),  # the largest size looked up in a table
    (49, 5),  # the smallest computed without one
    (150, 300),
    (20, 0),
    (20, 1),  # an odd number of 32-bit words: the generator keeps half a 64-bit output
    (20, 5),
    (3_000_000_000, 40),  # Lemire redraws on about one pick in three
    (2**32 - 1, 30),
]


@pytest.mark.parametrize(("switches", "traps"), SIZES)
@pytest.mark.parametrize("seed", range(40))
def test_draws_are_the_spec_calls(seed: int, switches: int, traps: int) -> None:
    """Same problem, same generator state after, as the spec's two calls, at every size."""
    ours, theirs = rng(seed), rng(seed)
    for _ in range(2):
        assert draw_problem(ours, switches, traps).tolist() == spec_problem(theirs, switches, traps)
        assert ours.random() == theirs.random()
    assert ours.bit_generator.state == theirs.bit_generator.state


def test_the_problem_is_int64() -> None:
    """Problems are int64 arrays of shape (traps, 3), with or without the lookup table."""
    for switches in (20, 100):
        problem = draw_problem(rng(1), switches, 7)
        assert problem.dtype == np.int64
        assert problem.shape == (7, 3)


@pytest.mark.parametrize(
    ("switches", "traps"), [*SIZES, (24, 85), (25, 85), (20, 2), (3, 1), (4, 0)]
)
@pytest.mark.parametrize("seed", range(10))
def test_the_engine_draws_draw_problem_s_traps_as_tuples(
    seed: int, switches: int, traps: int
) -> None:
    """draw_traps (the engine's path: a clause table up to 24 switches) gives draw_problem's
    traps as tuples, from the same draws, leaving the generator in the same state."""
    ours, theirs = rng(seed), rng(seed)
    for _ in range(2):
        drawn = draw_traps(ours, switches, traps)
        assert type(drawn.traps) is tuple
        assert all(type(trap) is tuple for trap in drawn.traps)
        assert [list(trap) for trap in drawn.traps] == draw_problem(
            theirs, switches, traps
        ).tolist()
        assert ours.random() == theirs.random()
    assert ours.bit_generator.state == theirs.bit_generator.state
