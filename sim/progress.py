"""The progress bar of ``arena sim``: matches done, rate and ETA (rich), on stderr."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

__all__ = ["MatchProgress", "match_progress"]


class RateColumn(ProgressColumn):
    """Matches per second over rich's recent window."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- matches/s" if speed is None else f"{speed:.1f} matches/s")


class MatchProgress(Protocol):
    def __call__(self, done: int, total: int) -> None: ...


@contextmanager
def match_progress(label: str, *, enabled: bool = True) -> Iterator[MatchProgress]:
    """A callback ``(done, total)`` drawing the bar; disabled (a no-op) when not on a terminal."""
    console = Console(stderr=True)
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TextColumn("elapsed"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=console,
        disable=not (enabled and console.is_terminal),
    ) as progress:
        tasks: list[TaskID] = []

        def update(done: int, total: int) -> None:
            if not tasks:
                # Created at the first call, with the matches read back from a journal already
                # done, so they do not count towards the rate.
                tasks.append(progress.add_task(label, total=total, completed=done))
            else:
                progress.update(tasks[0], completed=done)

        yield update
