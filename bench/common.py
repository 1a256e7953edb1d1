"""Shared pieces of the benchmarks: timing by medians, and one table format for all of them."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence

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
