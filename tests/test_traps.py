"""Trap problems (spec dungeon.md section 2): drawing, outcome, exact optimum, trap policies."""

from __future__ import annotations

import collections
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dungeon.config import RulesConfig
from dungeon.traps import (
    active_traps,
    draw_for_policy,
    draw_problem,
    draw_traps,
    is_satisfiable,
    optimum,
)


def rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def brute_force_active(problem: list[list[int]], assignment: list[bool]) -> int:
    return sum(
        not any(assignment[abs(lit) - 1] == (lit > 0) for lit in clause) for clause in problem
    )


def brute_force_optimum(problem: list[list[int]], switches: int) -> int:
    return min(
        brute_force_active(problem, list(values))
        for values in itertools.product([False, True], repeat=switches)
    )


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    switches=st.integers(3, 40),
    traps=st.integers(0, 120),
)
def test_a_trap_is_three_literals_over_distinct_switches(
    seed: int, switches: int, traps: int
) -> None:
    """Each trap has exactly 3 DIMACS literals (1-based) naming 3 different switches."""
    problem = draw_problem(rng(seed), switches, traps)
    assert problem.shape == (traps, 3)
    variables = np.abs(problem)
    assert ((variables >= 1) & (variables <= switches)).all()
    assert all(len(set(row)) == 3 for row in variables.tolist())


def test_switch_triples_and_signs_are_uniform() -> None:
    """All 24 ordered triples of 4 switches are equally likely; half the literals are negated."""
    problem = draw_problem(rng(1), 4, 48_000)
    counts = collections.Counter(map(tuple, np.abs(problem).tolist()))
    assert len(counts) == 24
    assert all(1700 < count < 2300 for count in counts.values())
    assert 0.49 < float((problem < 0).mean()) < 0.51


def test_the_same_generator_state_draws_the_same_problem() -> None:
    """A problem is a function of the generator state; each draw after it is a fresh one."""
    first, second = rng(9), rng(9)
    assert np.array_equal(draw_problem(first, 20, 85), draw_problem(second, 20, 85))
    assert not np.array_equal(draw_problem(first, 20, 85), draw_problem(rng(9), 20, 85))


def test_fewer_than_three_switches_is_refused() -> None:
    """A trap needs 3 distinct switches, so 2 switches cannot make a problem."""
    with pytest.raises(ValueError, match="3 distinct switches"):
        draw_problem(rng(0), 2, 5)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), data=st.data())
def test_active_traps_counts_the_clauses_the_assignment_leaves_unsatisfied(
    seed: int, data: st.DataObject
) -> None:
    """k = the number of traps none of whose literals the assignment makes true."""
    problem = draw_problem(rng(seed), 20, 85)
    assignment = data.draw(st.lists(st.booleans(), min_size=20, max_size=20))
    expected = brute_force_active(problem.tolist(), assignment)
    assert active_traps(problem, assignment) == expected
    assert active_traps(problem.tolist(), np.array(assignment)) == expected


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), switches=st.integers(3, 30), data=st.data())
def test_a_drawn_problem_counts_its_active_traps_as_active_traps_does(
    seed: int, switches: int, data: st.DataObject
) -> None:
    """The engine's count (table rows up to 24 switches, active_traps beyond) is k too."""
    drawn = draw_traps(rng(seed), switches, 85)
    assignment = data.draw(st.lists(st.booleans(), min_size=switches, max_size=switches))
    expected = brute_force_active([list(trap) for trap in drawn.traps], assignment)
    assert drawn.active(assignment) == expected
    assert drawn.active(tuple(assignment)) == expected


def test_an_empty_problem_leaves_nothing_active() -> None:
    """No trap, nothing to disarm."""
    assert active_traps(np.zeros((0, 3), dtype=np.int64), [True] * 5) == 0
    assert optimum([], 5) == 0


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), switches=st.integers(3, 10), traps=st.integers(1, 80))
def test_optimum_is_the_least_number_of_active_traps(seed: int, switches: int, traps: int) -> None:
    """optimum() equals a brute-force minimum over all 2^switches assignments."""
    problem = draw_problem(rng(seed), switches, traps)
    assert optimum(problem, switches) == brute_force_optimum(problem.tolist(), switches)


def test_optimum_of_every_sign_pattern_over_three_switches_is_one() -> None:
    """The 8 traps over switches 1-3 with all sign patterns: any assignment leaves exactly one."""
    problem = [[a * 1, b * 2, c * 3] for a, b, c in itertools.product([1, -1], repeat=3)]
    assert not is_satisfiable(problem, 3)
    assert optimum(problem, 3) == 1


def test_about_a_quarter_of_raw_problems_cannot_be_fully_disarmed() -> None:
    """At 20/85, the satisfiability threshold, a sizeable share of problems is unsatisfiable."""
    generator = rng(4)
    unsatisfiable = sum(not is_satisfiable(draw_problem(generator, 20, 85), 20) for _ in range(300))
    assert 0.12 < unsatisfiable / 300 < 0.45


def test_raw_policy_hands_out_the_first_problem_drawn() -> None:
    """The raw policy takes one draw, satisfiable or not."""
    generator, mirror = rng(4), rng(4)
    for _ in range(50):
        problem, draws = draw_for_policy(generator, RulesConfig())
        assert draws == 1
        assert np.array_equal(problem.traps, draw_problem(mirror, 20, 85))


def test_satisfiable_policy_redraws_unsatisfiable_problems_from_the_same_generator() -> None:
    """Under the satisfiable policy, unsatisfiable draws are skipped, in generator order."""
    config = RulesConfig(trap_policy="satisfiable")
    generator, mirror = rng(4), rng(4)
    redrawn = 0
    for _ in range(60):
        problem, draws = draw_for_policy(generator, config)
        assert is_satisfiable(problem.traps, 20)
        skipped = [draw_problem(mirror, 20, 85) for _ in range(draws - 1)]
        assert not any(is_satisfiable(p, 20) for p in skipped)
        assert np.array_equal(problem.traps, draw_problem(mirror, 20, 85))
        redrawn += draws - 1
    assert redrawn > 0
