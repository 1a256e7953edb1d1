"""Shared pieces of the benchmarks: timing by medians, one table format for all of them, and
the settings read from ``BENCH_*`` environment variables (a bad value is a :class:`SettingError`
naming the variable, reported by ``python -m bench`` in one line)."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from rich.console import Console
from rich.table import Table


def median_seconds(run: Callable[[], object], *, repeat: int = 50, warmup: int = 3) -> float:
    """Median wall time of ``run()`` over ``repeat`` calls, after ``warmup`` untimed calls."""
    for _ in range(warmup):
        run()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def print_table(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    width: int | None = None,
) -> None:
    """Print one benchmark's results as a table (the form quoted in closing notes); ``width``:
    the characters a wide table may use even when not printing to a terminal (default 80)."""
    table = Table(title=title)
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*(str(cell) for cell in row))
    Console(width=width).print(table)


class SettingError(Exception):
    """A ``BENCH_*`` environment variable that does not hold what the benchmark needs."""


N = TypeVar("N", int, float)


def env_number(name: str, default: N, *, minimum: N) -> N:
    """The number in environment variable ``name`` (``default`` when unset): a whole number
    when the default is one, at least ``minimum``."""
    return env_numbers(name, [default], minimum=minimum, single=True)[0]


def env_numbers(name: str, default: Sequence[N], *, minimum: N, single: bool = False) -> list[N]:
    """Comma-separated numbers in environment variable ``name`` (``default`` when unset)."""
    text = os.environ.get(name)
    if text is None:
        return list(default)
    kind = type(default[0])
    what = "a whole number" if kind is int else "a number"
    if not single:
        what = f"comma-separated {what[2:]}s, each"
    try:
        values = [kind(item) for item in text.split(",")]
    except ValueError:
        values = []
    if not values or (single and len(values) != 1) or not all(v >= minimum for v in values):
        raise SettingError(f"{name}={text!r}: expected {what} at least {minimum}")
    return values
