"""Fuzz every framer and every file a user hands in, longer than the tests do.

``python -m bench fuzz``. Each target of :mod:`bench.fuzz_targets` (the dungeon's lines, the
network layer's lines, Fish's JSON stream, the Labyrinth's commands, the Penguins board file,
the teams TOML) gets BENCH_FUZZ_EXAMPLES fresh hypothesis examples (default 2000; the tests run
200 fixed ones), from the seed BENCH_FUZZ_SEED (default: a new one, printed, so a finding can
be replayed). The table gives, per target, the examples run, the seconds they took and the
first failure found (shrunk), or "none". Exit status 1 when any target failed.
"""

from __future__ import annotations

import random
import sys
import time
import traceback
from typing import Any

from hypothesis import HealthCheck, given, seed, settings

from bench.common import env_number, print_table
from bench.fuzz_targets import TARGETS, Target

EXAMPLES = env_number("BENCH_FUZZ_EXAMPLES", 2000, minimum=1)
SEED = env_number("BENCH_FUZZ_SEED", -1, minimum=-1)


def fuzz(target: Target, examples: int, number: int) -> tuple[float, str]:
    """Run ``examples`` examples of ``target``: the seconds it took and the failure, or ""."""

    @seed(number)
    @settings(
        max_examples=examples,
        derandomize=False,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(target.arguments)
    def run(arguments: tuple[Any, ...]) -> None:
        target.check(*arguments)

    started = time.perf_counter()
    try:
        run()
    except Exception as error:  # a finding: shown, not raised (the other targets still run)
        return time.perf_counter() - started, described(error)
    return time.perf_counter() - started, ""


def described(error: BaseException) -> str:
    """A finding in one paragraph: the (first) failure, where, and the shrunk example."""
    if isinstance(error, BaseExceptionGroup):  # hypothesis found several distinct failures
        return f"({len(error.exceptions)} failures) " + described(error.exceptions[0])
    last = traceback.extract_tb(error.__traceback__)[-1]
    notes = " ".join(" ".join(getattr(error, "__notes__", [])).split())
    return f"{type(error).__name__} {error} at {last.name} line {last.lineno}; {notes}"


def main() -> None:
    number = SEED if SEED >= 0 else random.randrange(1 << 32)
    rows = []
    failed = False
    for target in TARGETS:
        seconds, failure = fuzz(target, EXAMPLES, number)
        failed = failed or bool(failure)
        rows.append((target.name, f"{EXAMPLES:,}", f"{seconds:.1f}", failure[:400] or "none"))
    print_table(
        f"fuzz: {EXAMPLES:,} fresh examples per target, seed {number} "
        f"(BENCH_FUZZ_SEED={number} replays them)",
        ["target", "examples", "seconds", "first failure (shrunk)"],
        rows,
        width=160,
    )
    if failed:
        sys.exit(1)
