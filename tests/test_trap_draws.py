"""How a trap problem is drawn: one 64-bit output of the match generator per trap.

Each trap is uniform among every trap over n switches (an ordered triple of distinct switches
and 3 negation bits: 8 n (n - 1) (n - 2) kinds), so a problem is a function of the generator's
state, and a replay that re-runs the generator draws it again. These tests hold the draw to
that contract with an independent, plain-Python reading of the same words.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import pytest

from dungeon.config import MAX_SWITCHES
from dungeon.traps import draw_problem, draw_traps, trap_kinds


def rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def nth_other(index: int, taken: set[int]) -> int:
    """The ``index``-th switch (from 0, in increasing order) that is not in ``taken``."""
    for switch in sorted(taken):
        index += index >= switch
    return index


def trap_of_kind(kind: int, switches: int) -> list[int]:
    """Kind ``8 * ((first * (n - 1) + second) * (n - 2) + third) + negations``: the first
    switch among all n, the second among the n - 1 others, the third among the n - 2 left, each
    in increasing order; negation bits 4, 2, 1 for the first, second, third literal."""
    triple, negations = divmod(kind, 8)
    first, rest = divmod(triple, (switches - 1) * (switches - 2))
    second, third = divmod(rest, switches - 2)
    second = nth_other(second, {first})
    third = nth_other(third, {first, second})
    signs = [-1 if negations >> bit & 1 else 1 for bit in (2, 1, 0)]
    return [sign * (s + 1) for sign, s in zip(signs, (first, second, third), strict=True)]


def plain_problem(generator: np.random.Generator, switches: int, traps: int) -> list[list[int]]:
    """The problem from ``traps`` raw words, each modulo the number of kinds (no word of these
    tests' seeds is ever redrawn: that happens to one in 3e14 at 20 switches)."""
    words = [int(word) for word in generator.bit_generator.random_raw(traps)]
    kinds = trap_kinds(switches)
    assert all(word < (1 << 64) // kinds * kinds for word in words)
    return [trap_of_kind(word % kinds, switches) for word in words]


SIZES = [
    (20, 85),  # the default rules
    (3, 10),  # 48 kinds of trap: all the sign patterns of the one triple, in its 6 orders
    (4, 101),
    (20, 0),
    (20, 1),
    (24, 5),  # the largest size the engine looks up in a table
    (25, 5),  # the smallest it decodes without one
    (150, 300),
    (MAX_SWITCHES, 40),
]


@pytest.mark.parametrize(("switches", "traps"), SIZES)
@pytest.mark.parametrize("seed", range(25))
def test_each_trap_is_one_generator_word_modulo_the_kinds(
    seed: int, switches: int, traps: int
) -> None:
    """Same problem, and the same generator state after it (so the survival die that follows
    is the same), as the plain reading of ``traps`` raw words."""
    ours, theirs = rng(seed), rng(seed)
    for _ in range(2):
        assert draw_problem(ours, switches, traps).tolist() == plain_problem(
            theirs, switches, traps
        )
        assert ours.random() == theirs.random()
    assert ours.bit_generator.state == theirs.bit_generator.state


class _ScriptedBits:
    """A bit generator that hands out given 64-bit words, in order."""

    def __init__(self, words: list[int]) -> None:
        self.words = words

    def random_raw(self, size: int | None = None) -> Any:
        if size is None:
            return self.words.pop(0)
        taken, self.words = self.words[:size], self.words[size:]
        return np.array(taken, dtype=np.uint64)


class _Scripted:
    def __init__(self, words: list[int]) -> None:
        self.bit_generator = _ScriptedBits(words)


def test_a_word_that_would_favour_the_small_kinds_is_redrawn_in_order() -> None:
    """At 3 switches (48 kinds) the 16 highest words would make kinds 0-15 more likely than
    32-47: each is replaced, trap by trap, by the next word after the problem's that is not."""
    top = 1 << 64
    assert top % 48 == 16
    scripted = _Scripted([5, top - 1, 7, top - 16, top - 17, 9])
    problem = draw_problem(scripted, 3, 3)  # type: ignore[arg-type]
    assert problem.tolist() == [trap_of_kind(kind, 3) for kind in (5, (top - 17) % 48, 7)]
    assert scripted.bit_generator.words == [9]  # the words it did not need stay unread


def test_every_kind_of_trap_is_equally_likely() -> None:
    """Over 3 switches all 48 traps come up, each about 1/48 of the time."""
    problem = draw_problem(rng(2), 3, 48_000)
    counts = collections.Counter(map(tuple, problem.tolist()))
    assert len(counts) == 48
    assert all(850 < count < 1150 for count in counts.values())


def test_the_problem_is_int64() -> None:
    """Problems are int64 arrays of shape (traps, 3), whatever the number of switches."""
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


def test_too_many_switches_for_one_word_is_refused() -> None:
    """Past MAX_SWITCHES the kinds of trap outnumber a 64-bit word's values."""
    assert trap_kinds(MAX_SWITCHES) < 1 << 64
    with pytest.raises(ValueError, match="64-bit"):
        draw_problem(rng(0), 1 << 22, 1)
