"""Trap problems (spec dungeon.md section 2): random 3-SAT formulas, their outcome, their optimum.

A problem is an int array of shape (traps, 3): each row is one trap (a clause) of three DIMACS
literals over distinct switches (``i`` or ``-i``, 1-based). An assignment gives one bool per
switch; element i is switch i + 1.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from dungeon.config import RulesConfig

__all__ = [
    "DrawnProblem",
    "Problem",
    "active_traps",
    "draw_for_policy",
    "draw_problem",
    "is_satisfiable",
    "optimum",
]

Problem = npt.NDArray[np.int64]
Clauses = Problem | Sequence[Sequence[int]]
# Picks and negation bits, whatever integer type the path that drew them gives.
_Ints = npt.NDArray[np.integer[Any]]

# The spread of the three switches of a trap: the first from all n, the second from the n - 1
# others, the third from the n - 2 left (see draw_problem).
_SPREAD = np.array([0, 1, 2])
#: Index 0 keeps a literal, index 1 negates it (picked by the negation draw).
_SIGN = np.array([1, -1], dtype=np.int64)
#: Up to this many switches, draw_problem maps picks to switches through a lookup table (at 48,
#: 103,776 rows of 3 int16: 0.6 MB); past it, through the same arithmetic done on each problem.
_TABLE_SWITCHES = 48
_LITTLE_ENDIAN = sys.byteorder == "little"
#: Up to this many switches the engine's draws read each trap, a ready-made tuple, from a table
#: of every (switch triple, negations) pair: 8 n (n - 1) (n - 2) rows, 54,720 at 20 switches
#: (about 4 MB, built once per process in ~20 ms), 97,152 at 24.
_CLAUSE_TABLE_SWITCHES = 24
#: A trap's negation code (its row within its switch triple's 8 rows): 4, 2, 1 per literal.
_CODE_WEIGHTS = np.array([4, 2, 1], dtype=np.uint8)


def _distinct_switches(first: _Ints, second: _Ints, third: _Ints) -> _Ints:
    """The 1-based switches of picks over n, n - 1 and n - 2 switches (one row per trap).

    The second pick maps over the n - 1 switches other than the first; the third over the n - 2
    other than both, skipping them in order.
    """
    second = second + (second >= first)
    low, high = np.minimum(first, second), np.maximum(first, second)
    third = third + (third >= low)
    third = third + (third >= high)
    variables: _Ints = np.stack([first, second, third], axis=1) + 1
    return variables


@functools.lru_cache(maxsize=8)
def _switch_table(switches: int) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.uint32]]:
    """Every pick triple's switches, and the strides that give a triple's row in the table.

    Row ``(first * (n - 1) + second) * (n - 2) + third``, built by _distinct_switches itself,
    so a looked-up trap is the computed one, value for value; the lookup replaces some fifteen
    small numpy calls per problem with two.
    """
    first, second, third = np.meshgrid(
        np.arange(switches), np.arange(switches - 1), np.arange(switches - 2), indexing="ij"
    )
    variables = _distinct_switches(first.ravel(), second.ravel(), third.ravel())
    strides = np.array([(switches - 1) * (switches - 2), switches - 2, 1], dtype=np.uint32)
    return variables.astype(np.int16), strides


def _spec_draws(rng: np.random.Generator, switches: int, traps: int) -> tuple[_Ints, _Ints]:
    """The picks and negations as the spec states them: two ``Generator.integers`` calls."""
    picks: Problem = rng.integers(0, switches - _SPREAD, size=(traps, 3))
    negated = rng.integers(0, 2, size=(traps, 3), dtype=np.int8)
    return picks, negated.astype(np.int64)


@functools.lru_cache(maxsize=64)
def _pick_ranges(switches: int, traps: int) -> npt.NDArray[np.uint64]:
    """How many values each pick ranges over, in draw order: n, n - 1, n - 2 per trap."""
    return np.tile(np.array([switches, switches - 1, switches - 2], dtype=np.uint64), traps)


def _fast_draws(rng: np.random.Generator, switches: int, traps: int) -> tuple[_Ints, _Ints]:
    """_spec_draws, value for value and draw for draw, in one generator call instead of two.

    ``integers`` draws each bounded value by Lemire's method on one 32-bit word of the generator
    (a word ``w`` gives the high half of ``w * range``, redrawn in the rare case the low half
    falls under a threshold), and each int8 in [0, 2) from one byte of a 32-bit word, four per
    word, low byte first: its top bit. So one call for all the words gives the same values as
    the two calls, at about a third of their cost (array bounds make ``integers`` check and
    loop per element). A low half under the range, where a redraw may be due (about one problem
    in a million at 20 switches), sends the problem to the word-by-word path of _exact_draws.
    Only for 4 <= switches < 2**32, where every pick draws exactly one word before redraws, and
    on a little-endian machine (the halves and bytes are read through views).
    """
    count = 3 * traps
    words = rng.integers(0, 1 << 32, size=count + (count + 3) // 4, dtype=np.uint32)
    ranges = _pick_ranges(switches, traps)
    scaled = (words[:count] * ranges).view(np.uint32)
    if np.count_nonzero(scaled[0::2] < ranges):
        return _exact_draws(rng, words.tolist(), ranges.tolist(), traps)
    picks = scaled[1::2].reshape(traps, 3)
    negated = (words[count:].view(np.uint8)[:count] >> 7).reshape(traps, 3)
    return picks, negated


def _exact_draws(
    rng: np.random.Generator, words: list[int], ranges: list[int], traps: int
) -> tuple[_Ints, _Ints]:
    """_fast_draws word by word, with Lemire's redraws: ``words`` first, then more from ``rng``."""
    position = 0

    def next_word() -> int:
        nonlocal position
        if position == len(words):
            words.append(int(rng.integers(0, 1 << 32, dtype=np.uint32)))
        position += 1
        return words[position - 1]

    picks = []
    for span in ranges:
        scaled = next_word() * span
        if (scaled & 0xFFFFFFFF) < span:
            threshold = ((1 << 32) - span) % span
            while (scaled & 0xFFFFFFFF) < threshold:
                scaled = next_word() * span
        picks.append(scaled >> 32)
    negated = []
    word = 0
    for index in range(3 * traps):
        if index % 4 == 0:
            word = next_word()
        negated.append((word >> (8 * (index % 4) + 7)) & 1)
    shape = (traps, 3)
    return np.array(picks, dtype=np.int64).reshape(shape), np.array(negated).reshape(shape)


def _picks_and_negations(
    rng: np.random.Generator, switches: int, traps: int
) -> tuple[_Ints, _Ints]:
    """The draws of a problem: picks over n, n - 1, n - 2 and negation bits, (traps, 3) each."""
    if switches < 3:
        raise ValueError(f"a trap needs 3 distinct switches; got switches={switches}")
    if 4 <= switches < 1 << 32 and _LITTLE_ENDIAN:
        return _fast_draws(rng, switches, traps)
    return _spec_draws(rng, switches, traps)


def draw_problem(rng: np.random.Generator, switches: int, traps: int) -> Problem:
    """A fresh random 3-SAT problem: ``traps`` clauses over 3 distinct of ``switches`` switches.

    Each clause's switches are uniform among ordered triples of distinct switches and each
    literal is negated with probability 1/2. The draws are those of two generator calls (see
    _spec_draws) whatever the outcome, with no per-clause Python loop.
    """
    picks, negated = _picks_and_negations(rng, switches, traps)
    variables: _Ints
    if switches <= _TABLE_SWITCHES:
        table, row_strides = _switch_table(switches)
        variables = table.take(picks @ row_strides, axis=0)
    else:
        variables = _distinct_switches(picks[:, 0], picks[:, 1], picks[:, 2])
    # int16 (table) times int64 signs: the int64 problem in one call.
    problem: Problem = variables * _SIGN.take(negated)
    return problem


Trap = tuple[int, int, int]


@functools.lru_cache(maxsize=4)
def _clause_table(
    switches: int,
) -> tuple[list[Trap], npt.NDArray[np.uint8], npt.NDArray[np.uint32]]:
    """Every trap over ``switches``, at row ``8 * (its switch triple's row in _switch_table) +
    negation code``: its literals as a tuple, and as four bytes for :meth:`DrawnProblem.active`
    (each literal modulo 256, then a 0 that ends the trap); and the strides that give a pick
    triple's row. Built from _switch_table, so a looked-up trap is draw_problem's, value for
    value."""
    switch_rows, strides = _switch_table(switches)
    variables = switch_rows.astype(np.int32)
    codes = np.arange(8, dtype=np.int32)
    negations = np.stack([codes >> 2 & 1, codes >> 1 & 1, codes & 1], axis=1)
    traps = (variables[:, None, :] * (1 - 2 * negations)[None, :, :]).reshape(-1, 3)
    literal_bytes = np.zeros((len(traps), 4), dtype=np.uint8)
    literal_bytes[:, :3] = traps & 0xFF
    flat = traps.ravel().tolist()
    rows = list(zip(flat[0::3], flat[1::3], flat[2::3], strict=True))
    return rows, literal_bytes, strides * np.uint32(8)


#: What a literal byte becomes under an assignment (see DrawnProblem.active): 0 when the literal
#: is false, 1 when it is true; the byte that ends a trap (0) becomes 2.
_FALSE, _TRUE, _END = b"\x00", b"\x01", b"\x02"
#: Swaps the bytes of false and true literals: a switch's value as its negation's.
_NEGATE = bytes.maketrans(_FALSE + _TRUE, _TRUE + _FALSE)


@dataclass(frozen=True, slots=True, eq=False)
class DrawnProblem:
    """A trap problem as the engine keeps it: its traps as tuples (what a `sat` carries) and,
    for small switch counts, the traps' rows in the clause table, with which :meth:`active`
    counts active traps with one numpy call and a few bytes operations."""

    traps: tuple[Trap, ...]
    switches: int
    rows: _Ints | None

    def active(self, assignment: Sequence[bool]) -> int:
        """How many traps ``assignment`` (one bool per switch) leaves active."""
        if self.rows is None:
            return active_traps(self.traps, assignment)
        # The traps as bytes, a literal l as l % 256 and 0 after each trap, translated by the
        # assignment into 0 (false), 1 (true) and 2 (end): an active trap is a run of three 0
        # bytes, and no run of three 0 crosses a trap's end. ``truth`` maps byte i (switch i)
        # to the switch's value and byte 256 - i (its negation) to the opposite. Bytes rather
        # than numpy ufuncs: 26% fewer instructions, and in a match, where caches are cold,
        # each numpy call's code costs several times its microbenchmark time.
        _, literal_bytes, _ = _clause_table(self.switches)
        values = _switch_bytes(assignment)
        fill = bytes(256 - 1 - 2 * len(values))
        truth = _END + values + fill + values.translate(_NEGATE)[::-1]
        traps = literal_bytes.take(self.rows, axis=0).tobytes()
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

    The engine's path. Each trap is a tuple looked up in the clause table, where draw_problem's
    ``tolist()`` made 85 lists that the `sat` message turned into tuples again, and the rows
    make :meth:`DrawnProblem.active` cheap (measured in instructions per problem at 20/85:
    draw, tuples and active count 296k before, ~200k now).
    """
    if switches > _CLAUSE_TABLE_SWITCHES:
        problem = draw_problem(rng, switches, traps)
        clauses = cast(list[Trap], list(map(tuple, problem.tolist())))
        return DrawnProblem(tuple(clauses), switches, None)
    picks, negated = _picks_and_negations(rng, switches, traps)
    table, _, row_strides = _clause_table(switches)
    rows: _Ints = picks @ row_strides + negated @ _CODE_WEIGHTS
    indices = rows.tolist()
    # itemgetter of 2+ indices gives a tuple of the items at C speed (one index: the item).
    looked_up = itemgetter(*indices)(table) if traps > 1 else tuple(map(table.__getitem__, indices))
    return DrawnProblem(looked_up, switches, rows)


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
