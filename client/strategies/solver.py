"""Trap solving for a team: switch assignments that leave as few traps active as we can find.

A trap problem is a 3-SAT formula (traps = clauses, switches = variables, DIMACS literals).
When the compiled core is built (``dungeon._fastcore``, see :mod:`dungeon.fastcore`) and the
problem has at most FAST_SWITCHES switches, its exact branch-and-bound MaxSAT search answers in
one call (an optimal assignment, no budget needed at trap sizes). Otherwise, the pure path
tries, in order, each step exact and each cheaper than the next:

1. one MiniSat 2.2 call on the traps as they are (about 70% of the 20/85 problems are
   satisfiable: done, most of the cost being MiniSat taking in the 85 clauses);
2. when that is unsatisfiable, one MiniCard call on the traps, each with its own relaxation
   switch, and "at most one relaxation true" as a native cardinality constraint: satisfiable
   means one active trap is the optimum (about 98% of the unsatisfiable problems at 20/85);
3. when even that fails (optimum >= 2, rare), RC2 MaxSAT for the fewest active traps;
4. when a conflict budget runs out, the best assignment a seeded WalkSAT finds.

Every budget is counted in solver conflicts or flips, never in seconds, so a headless match
replays the same way on any machine. Cheaper per problem than going from SAT straight to RC2,
whose set-up alone costs more than steps 1-2 (``python -m bench strategies`` shows both).
Steps 1 and 2 go through :mod:`dungeon.sat` (the clauses straight to pysat's C solvers, the same
models as its public classes), which also keeps step 1's verdict for the optimum figure.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from dungeon.sat import BudgetExhausted, exact_maxsat, maxsat, minicard, minisat

__all__ = ["SolverBudget", "TrapSolver", "active_count", "walksat"]

Traps = Sequence[Sequence[int]]


@dataclass(frozen=True)
class SolverBudget:
    """How much work one problem may cost: SAT and MaxSAT conflicts, then WalkSAT flips."""

    sat_conflicts: int = 20_000
    maxsat_conflicts: int = 50_000
    walksat_flips: int = 20_000


def active_count(traps: Traps, assignment: Sequence[bool]) -> int:
    """How many traps ``assignment`` leaves active (clauses with no true literal)."""
    return sum(
        1 for trap in traps if not any(assignment[abs(lit) - 1] == (lit > 0) for lit in trap)
    )


def _model_to_assignment(model: Sequence[int], switches: int) -> list[bool]:
    if len(model) >= switches and model[switches - 1] in (switches, -switches):
        # A SAT solver's model lists variables 1, 2, ... in order: read the first ones.
        return [lit > 0 for lit in model[:switches]]
    values = [False] * switches
    for lit in model:
        if 0 < abs(lit) <= switches:
            values[abs(lit) - 1] = lit > 0
    return values


def walksat(
    traps: Traps, switches: int, rng: random.Random, *, flips: int, noise: float = 0.5
) -> list[bool]:
    """The best assignment a WalkSAT run of ``flips`` flips meets (seeded by ``rng``)."""
    assignment = [rng.random() < 0.5 for _ in range(switches)]
    best, best_active = list(assignment), active_count(traps, assignment)
    for _ in range(flips):
        unsat = [t for t in traps if not any(assignment[abs(x) - 1] == (x > 0) for x in t)]
        if len(unsat) < best_active:
            best, best_active = list(assignment), len(unsat)
        if not unsat:
            break
        trap = unsat[rng.randrange(len(unsat))]
        if rng.random() < noise:
            var = abs(trap[rng.randrange(len(trap))]) - 1
        else:
            scores = []
            for lit in trap:
                assignment[abs(lit) - 1] = not assignment[abs(lit) - 1]
                scores.append((active_count(traps, assignment), abs(lit) - 1))
                assignment[abs(lit) - 1] = not assignment[abs(lit) - 1]
            var = min(scores)[1]
        assignment[var] = not assignment[var]
    return best


class TrapSolver:
    """Solves trap problems for one team; deterministic given its seed and budget."""

    def __init__(self, seed: int, budget: SolverBudget = SolverBudget()) -> None:
        self._rng = random.Random(seed)
        self._budget = budget

    def solve(self, traps: Traps, switches: int) -> list[bool]:
        """An assignment (one bool per switch) leaving the fewest active traps found."""
        exact = exact_maxsat(traps, switches)
        if exact is not None:
            assignment = exact[1]
            return assignment if len(assignment) == switches else assignment[:switches]
        return self.solve_pure(traps, switches)

    def solve_pure(self, traps: Traps, switches: int) -> list[bool]:
        """:meth:`solve` on the pure path (pysat's solvers, then WalkSAT): the fallback."""
        conflicts = self._budget.sat_conflicts
        found, model = minisat(traps, conflicts)
        if found:
            return _model_to_assignment(model, switches)
        if found is False:
            found, model = _one_active(traps, switches, conflicts)
            if found:
                return _model_to_assignment(model, switches)
            if found is False:
                try:
                    return self._maxsat(traps, switches)
                except BudgetExhausted:
                    pass
        return walksat(traps, switches, self._rng, flips=self._budget.walksat_flips)

    def _maxsat(self, traps: Traps, switches: int) -> list[bool]:
        _, model = maxsat(traps, self._budget.maxsat_conflicts)
        return _model_to_assignment(model, switches)


def _one_active(traps: Traps, switches: int, conflicts: int) -> tuple[bool | None, list[int]]:
    """Whether some assignment leaves at most one trap active (None: budget out), and its model.

    Trap i gets relaxation switch ``switches + 1 + i`` (true = trap i may stay active); MiniCard
    takes "at most one relaxation true" natively, with no cardinality encoding to build.
    """
    singles, relaxations = _relaxations(switches, len(traps))
    # Each relaxed trap is the trap's tuple + the 1-tuple of its switch, joined in C as MiniCard
    # takes them in: no list kept, no tuple built in Python.
    relaxed = map(tuple.__add__, map(tuple, traps), singles)
    return minicard(relaxed, relaxations, 1, conflicts)


@functools.cache
def _relaxations(switches: int, traps: int) -> tuple[tuple[tuple[int], ...], list[int]]:
    """The relaxation switches of ``traps`` traps over ``switches``: as 1-tuples, and a list."""
    relaxations = range(switches + 1, switches + 1 + traps)
    return tuple((relax,) for relax in relaxations), list(relaxations)
