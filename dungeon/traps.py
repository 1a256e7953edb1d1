"""Trap problems (spec dungeon.md section 2): random 3-SAT formulas, their outcome, their optimum.

A problem is an int array of shape (traps, 3): each row is one trap (a clause) of three DIMACS
literals over distinct switches (``i`` or ``-i``, 1-based). An assignment gives one bool per
switch; element i is switch i + 1.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from dungeon.config import RulesConfig

__all__ = [
    "Problem",
    "active_traps",
    "draw_for_policy",
    "draw_problem",
    "is_satisfiable",
    "optimum",
]

Problem = npt.NDArray[np.int64]
Clauses = Problem | Sequence[Sequence[int]]

# The spread of the three switches of a trap: the first from all n, the second from the n - 1
# others, the third from the n - 2 left (see draw_problem).
_SPREAD = np.array([0, 1, 2])
#: Index 0 keeps a literal, index 1 negates it (picked by the negation draw).
_SIGN = np.array([1, -1], dtype=np.int64)
#: Up to this many switches, draw_problem maps picks to switches through a lookup table (at 48,
#: 103,776 rows of 3 int16: 0.6 MB); past it, through the same arithmetic done on each problem.
_TABLE_SWITCHES = 48


def _distinct_switches(first: Problem, second: Problem, third: Problem) -> Problem:
    """The 1-based switches of picks over n, n - 1 and n - 2 switches (one row per trap).

    The second pick maps over the n - 1 switches other than the first; the third over the n - 2
    other than both, skipping them in order.
    """
    second = second + (second >= first)
    low, high = np.minimum(first, second), np.maximum(first, second)
    third = third + (third >= low)
    third = third + (third >= high)
    variables: Problem = np.stack([first, second, third], axis=1) + 1
    return variables


@functools.cache
def _switch_table(switches: int) -> npt.NDArray[np.int16]:
    """Every pick triple's switches, row ``(first * (n - 1) + second) * (n - 2) + third``.

    Built by _distinct_switches itself, so a looked-up trap is the computed one, value for value;
    the lookup replaces some fifteen small numpy calls per problem with one.
    """
    first, second, third = np.meshgrid(
        np.arange(switches), np.arange(switches - 1), np.arange(switches - 2), indexing="ij"
    )
    variables = _distinct_switches(first.ravel(), second.ravel(), third.ravel())
    return variables.astype(np.int16)


def draw_problem(rng: np.random.Generator, switches: int, traps: int) -> Problem:
    """A fresh random 3-SAT problem: ``traps`` clauses over 3 distinct of ``switches`` switches.

    Each clause's switches are uniform among ordered triples of distinct switches and each
    literal is negated with probability 1/2. Exactly two generator calls whatever the outcome,
    with no per-clause Python loop.
    """
    if switches < 3:
        raise ValueError(f"a trap needs 3 distinct switches; got switches={switches}")
    picks = rng.integers(0, switches - _SPREAD, size=(traps, 3))
    if switches <= _TABLE_SWITCHES:
        rows = picks @ np.array([(switches - 1) * (switches - 2), switches - 2, 1])
        variables = _switch_table(switches)[rows]
    else:
        variables = _distinct_switches(picks[:, 0], picks[:, 1], picks[:, 2])
    negated = rng.integers(0, 2, size=(traps, 3), dtype=np.int8)
    # int16 (table) times int64 signs: the int64 problem in one call.
    problem: Problem = variables * _SIGN[negated]
    return problem


def active_traps(problem: Clauses, assignment: Sequence[bool] | npt.NDArray[np.bool_]) -> int:
    """How many traps ``assignment`` leaves active (clauses it does not satisfy)."""
    clauses = np.asarray(problem, dtype=np.int64).reshape(-1, 3)
    values = np.asarray(assignment, dtype=bool)
    if len(clauses) == 0:
        return 0
    literal_true = values[np.abs(clauses) - 1] == (clauses > 0)
    return int(np.count_nonzero(~literal_true.any(axis=1)))


def _clause_lists(problem: Clauses) -> list[list[int]]:
    return np.asarray(problem, dtype=np.int64).reshape(-1, 3).tolist()


def is_satisfiable(problem: Clauses, switches: int) -> bool:
    """Whether some assignment disarms every trap (one SAT call).

    ``switches`` (here and in :func:`optimum`) states the problem's size for the caller's sake;
    a switch no trap names can take either value, so the solver needs the traps alone.
    """
    from pysat.solvers import Solver

    with Solver(name="minisat22", bootstrap_with=_clause_lists(problem)) as solver:
        return bool(solver.solve())


def optimum(problem: Clauses, switches: int) -> int:
    """The least number of active traps over all assignments (exact).

    One SAT call answers the common case (0); only an unsatisfiable problem goes to RC2 MaxSAT,
    with every trap a soft clause of weight 1.
    """
    clauses = _clause_lists(problem)
    if not clauses or is_satisfiable(clauses, switches):
        return 0
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    formula = WCNF()
    for clause in clauses:
        formula.append(clause, weight=1)
    # MiniSat 2.2 as RC2's oracle: measured faster than its default Glucose 3 on 20/85 cores.
    with RC2(formula, solver="m22") as maxsat:
        if maxsat.compute() is None:  # only hard clauses can make it infeasible; we have none
            raise AssertionError("RC2 found no assignment for a formula of soft clauses only")
        return int(maxsat.cost)


def draw_for_policy(rng: np.random.Generator, config: RulesConfig) -> tuple[Problem, int]:
    """The next problem handed out under ``config.trap_policy``, and how many draws it took.

    ``raw``: the first problem drawn. ``satisfiable``: problems pysat finds unsatisfiable are
    redrawn from the same generator until one is not.
    """
    draws = 1
    problem = draw_problem(rng, config.switches, config.traps)
    if config.trap_policy == "satisfiable":
        while not is_satisfiable(problem, config.switches):
            draws += 1
            problem = draw_problem(rng, config.switches, config.traps)
    return problem, draws
