"""Trap problems (spec dungeon.md section 2): random 3-SAT formulas, their outcome, their optimum.

A problem is an int array of shape (traps, 3): each row is one trap (a clause) of three DIMACS
literals over distinct switches (``i`` or ``-i``, 1-based). An assignment gives one bool per
switch; element i is switch i + 1.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
import numpy.typing as npt

from dungeon.config import RulesConfig
from dungeon.fastcore import load as load_fastcore

__all__ = [
    "DrawnProblem",
    "Problem",
    "active_traps",
    "draw_for_policy",
    "draw_problem",
    "is_satisfiable",
    "optimum",
    "trap_kinds",
]

Problem = npt.NDArray[np.int64]
Clauses = Problem | Sequence[Sequence[int]]
Trap = tuple[int, int, int]
#: Trap kinds: a trap's index among every trap over n switches (see _decode).
_Kinds = npt.NDArray[np.uint64]
#: Trap tuples in a numpy array of objects (see _clause_table).
_Traps = npt.NDArray[np.object_]

#: Up to this many switches the engine's draws read each trap, a ready-made tuple, from a table
#: of every trap: 8 n (n - 1) (n - 2) rows, 54,720 at 20 switches (about 4 MB, built once per
#: process in ~20 ms), 97,152 at 24.
_CLAUSE_TABLE_SWITCHES = 24


def trap_kinds(switches: int) -> int:
    """How many distinct traps there are over ``switches``: ordered triples of distinct
    switches, times the 8 ways to negate their literals."""
    if switches < 3:
        raise ValueError(f"a trap needs 3 distinct switches; got switches={switches}")
    return 8 * switches * (switches - 1) * (switches - 2)


def _draw_kinds(rng: np.random.Generator, switches: int, traps: int) -> _Kinds:
    """Each trap's kind, uniform over trap_kinds(switches): one 64-bit output of the generator's
    PCG64 per trap (``random_raw``), taken modulo the number of kinds.

    A word at or above the largest multiple of that number would favour the smallest kinds,
    so it is redrawn (at 20 switches, one word in 3e14): after the ``traps`` words, the
    generator's next words replace the rejected ones in order. One raw call, a check and a
    modulo, in place of a numpy call per literal.
    """
    kinds, highest = _word_bounds(switches)
    words = rng.bit_generator.random_raw(traps)
    if traps and np.maximum.reduce(words) > highest:
        words = _redraw(rng, words, highest)
    drawn: _Kinds = words % kinds
    return drawn


@functools.lru_cache(maxsize=8)
def _word_bounds_int(switches: int) -> tuple[int, int]:
    """:func:`_word_bounds` as Python ints (for the compiled draw)."""
    kinds, highest = _word_bounds(switches)
    return int(kinds), int(highest)


@functools.lru_cache(maxsize=8)
def _word_bounds(switches: int) -> tuple[np.uint64, np.uint64]:
    """trap_kinds(switches), and the last word _draw_kinds does not redraw, as numpy scalars
    made once (making an np.uint64 costs a noticeable part of a draw)."""
    kinds = trap_kinds(switches)
    if kinds >= 1 << 64:
        raise ValueError(f"too many switches to draw a trap from one 64-bit word: {switches}")
    return np.uint64(kinds), np.uint64((1 << 64) // kinds * kinds - 1)


def _redraw(rng: np.random.Generator, words: _Kinds, highest: np.uint64) -> _Kinds:
    """``words`` with each one above ``highest`` replaced, in order, by the generator's next
    word that is not."""
    kept = words.tolist()
    for index, word in enumerate(kept):
        while word > highest:
            word = int(rng.bit_generator.random_raw())
        kept[index] = word
    return np.array(kept, dtype=np.uint64)


def _decode(kinds: _Kinds, switches: int) -> Problem:
    """The traps of these kinds, one row of 3 DIMACS literals each.

    Kind ``8 * ((first * (n - 1) + second) * (n - 2) + third) + negations``: the first switch is
    one of all n, the second one of the n - 1 others, the third one of the n - 2 left, each list
    in increasing order; bits 4, 2 and 1 of ``negations`` negate the first, second, third
    literal.
    """
    n = switches
    negations = (kinds % 8).astype(np.int64)
    triple = (kinds // 8).astype(np.int64)
    first, rest = np.divmod(triple, (n - 1) * (n - 2))
    second, third = np.divmod(rest, n - 2)
    second = second + (second >= first)  # skip the first switch
    low, high = np.minimum(first, second), np.maximum(first, second)
    third = third + (third >= low)  # then skip both, in increasing order
    third = third + (third >= high)
    variables = np.stack([first, second, third], axis=1) + 1
    signs = 1 - 2 * ((negations[:, None] >> np.array([2, 1, 0])) & 1)
    problem: Problem = variables * signs
    return problem


def draw_problem(rng: np.random.Generator, switches: int, traps: int) -> Problem:
    """A fresh random 3-SAT problem: ``traps`` clauses over 3 distinct of ``switches`` switches.

    Each clause's switches are uniform among ordered triples of distinct switches and each
    literal is negated with probability 1/2: each trap is uniform among all trap_kinds(switches),
    drawn independently (see _draw_kinds).
    """
    return _decode(_draw_kinds(rng, switches, traps), switches)


@functools.lru_cache(maxsize=4)
def _clause_table(switches: int) -> tuple[_Traps, npt.NDArray[np.uint8]]:
    """Every trap over ``switches``, at the row of its kind: its literals as a tuple, and as four
    bytes for :meth:`DrawnProblem.active` (each literal modulo 256, then a 0 that ends the
    trap). Built by _decode itself, so a looked-up trap is draw_problem's, value for value."""
    traps = _decode(np.arange(trap_kinds(switches), dtype=np.uint64), switches)
    literal_bytes = np.zeros((len(traps), 4), dtype=np.uint8)
    literal_bytes[:, :3] = traps & 0xFF
    flat = traps.ravel().tolist()
    rows = zip(flat[0::3], flat[1::3], flat[2::3], strict=True)
    return np.fromiter(rows, dtype=object, count=len(traps)), literal_bytes


@functools.lru_cache(maxsize=4)
def _trap_list(switches: int) -> list[Trap]:
    """The clause table's trap tuples as a list (the same tuple objects), for the C draw."""
    traps: list[Trap] = _clause_table(switches)[0].tolist()
    return traps


#: What a literal byte becomes under an assignment (see DrawnProblem.active): 0 when the literal
#: is false, 1 when it is true; the byte that ends a trap (0) becomes 2.
_FALSE, _TRUE, _END = b"\x00", b"\x01", b"\x02"
#: Swaps the bytes of false and true literals: a switch's value as its negation's.
_NEGATE = bytes.maketrans(_FALSE + _TRUE, _TRUE + _FALSE)


@dataclass(frozen=True, slots=True, eq=False)
class DrawnProblem:
    """A trap problem as the engine keeps it: its traps as tuples (what a `sat` carries) and,
    for small switch counts, the traps' kinds (their rows in the clause table), with which
    :meth:`active` counts active traps with one numpy call and a few bytes operations."""

    traps: tuple[Trap, ...]
    switches: int
    kinds: _Kinds | None

    def active(self, assignment: Sequence[bool]) -> int:
        """How many traps ``assignment`` (one bool per switch) leaves active."""
        core = load_fastcore()
        if core is not None:
            # The compiled count (dungeon._fastcore) reads the trap tuples and the bools at
            # once; None for anything else (ints for bools, say), which the paths below read.
            count: int | None = core.active(self.traps, assignment)
            if count is not None:
                return count
        if self.kinds is None:
            return active_traps(self.traps, assignment)
        # The traps as bytes, a literal l as l % 256 and 0 after each trap, translated by the
        # assignment into 0 (false), 1 (true) and 2 (end): an active trap is a run of three 0
        # bytes, and no run of three 0 crosses a trap's end. ``truth`` maps byte i (switch i)
        # to the switch's value and byte 256 - i (its negation) to the opposite. Bytes rather
        # than numpy ufuncs: fewer instructions, and in a match, where caches are cold, each
        # numpy call's code costs several times its microbenchmark time.
        _, literal_bytes = _clause_table(self.switches)
        values = _switch_bytes(assignment)
        fill = bytes(256 - 1 - 2 * len(values))
        truth = _END + values + fill + values.translate(_NEGATE)[::-1]
        traps = literal_bytes.take(self.kinds, axis=0).tobytes()
        return traps.translate(truth).count(_FALSE * 3)


def _switch_bytes(assignment: Sequence[bool]) -> bytes:
    """One byte a switch: 1 when on, else 0 (truthiness, as np.asarray(bool) has it)."""
    try:
        values = bytes(assignment)  # a list of bools: one C call (bytes(map(bool)): 5x dearer)
    except (TypeError, ValueError):
        return bytes(map(bool, assignment))
    if len(values) != len(assignment) or values.strip(_FALSE + _TRUE):
        return bytes(map(bool, assignment))  # an array's buffer, or ints other than 0 and 1
    return values


def draw_traps(rng: np.random.Generator, switches: int, traps: int) -> DrawnProblem:
    """draw_problem's problem (the same draws, the same traps) as a DrawnProblem.

    The engine's path. Up to 24 switches each trap is a tuple looked up in the clause table by
    its kind (a `sat` message carries tuples), and the kinds make :meth:`DrawnProblem.active`
    cheap. With the compiled core (dungeon._fastcore) the words, their redraws, the modulo and
    the look-ups are one C call on the generator's own bit generator: the same calls numpy's
    ``random_raw`` makes, so the same traps and the same generator state after.
    """
    core = load_fastcore() if switches <= _CLAUSE_TABLE_SWITCHES else None
    if core is not None:
        kinds_count, highest = _word_bounds_int(switches)
        bit_generator = rng.bit_generator
        with bit_generator.lock:  # as random_raw holds it
            drawn: tuple[Trap, ...] = core.draw_traps(
                bit_generator.capsule, traps, kinds_count, highest, _trap_list(switches)
            )
        return DrawnProblem(drawn, switches, None)
    kinds = _draw_kinds(rng, switches, traps)
    if switches > _CLAUSE_TABLE_SWITCHES:
        clauses = cast(list[Trap], list(map(tuple, _decode(kinds, switches).tolist())))
        return DrawnProblem(tuple(clauses), switches, None)
    table, _ = _clause_table(switches)
    # take from an array of objects copies references: no int made for each kind.
    looked_up: tuple[Trap, ...] = tuple(table.take(kinds).tolist())
    return DrawnProblem(looked_up, switches, kinds)


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
    """Whether some assignment disarms every trap (one SAT call, or the verdict of one made on
    this very problem lately: see :mod:`dungeon.sat`).

    ``switches`` (here and in :func:`optimum`) states the problem's size for the caller's sake;
    a switch no trap names can take either value, so the solver needs the traps alone.
    """
    from dungeon.sat import satisfiable

    return satisfiable(problem)


def optimum(problem: Clauses, switches: int) -> int:
    """The least number of active traps over all assignments (exact).

    One SAT call answers the common case (0); only an unsatisfiable problem goes to RC2 MaxSAT,
    with every trap a soft clause of weight 1.
    """
    clauses = _clause_lists(problem)
    if not clauses or is_satisfiable(clauses, switches):
        return 0
    from dungeon.sat import least_false

    return least_false(clauses)


def draw_for_policy(rng: np.random.Generator, config: RulesConfig) -> tuple[DrawnProblem, int]:
    """The next problem handed out under ``config.trap_policy``, and how many draws it took.

    ``raw``: the first problem drawn. ``satisfiable``: problems pysat finds unsatisfiable are
    redrawn from the same generator until one is not.
    """
    draws = 1
    problem = draw_traps(rng, config.switches, config.traps)
    if config.trap_policy == "satisfiable":
        while not is_satisfiable(problem.traps, config.switches):
            draws += 1
            problem = draw_traps(rng, config.switches, config.traps)
    return problem, draws
