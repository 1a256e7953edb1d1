"""The progress of ``arena sim`` on stderr: matches done, rate and ETA.

On a terminal, a rich progress bar. Otherwise (a CI log, ``2> run.log``, ``| tee``) a plain status
line at the start, at most every :data:`STATUS_INTERVAL` seconds as matches finish, and at the end,
so a long run is never silent.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol, TextIO

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

__all__ = ["STATUS_INTERVAL", "MatchProgress", "StatusLines", "match_progress"]

#: Seconds between two status lines when stderr is not a terminal.
STATUS_INTERVAL = 5.0


class RateColumn(ProgressColumn):
    """Matches per second over rich's recent window."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- matches/s" if speed is None else f"{speed:.1f} matches/s")


class MatchProgress(Protocol):
    def __call__(self, done: int, total: int) -> None: ...


def _duration(seconds: float) -> str:
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


class StatusLines:
    """A ``(done, total)`` callback writing one plain line now and then: the first call, then at
    most every ``interval`` seconds, and when the last match is done. The rate counts only the
    matches played here (not those read back from a journal)."""

    def __init__(
        self,
        label: str,
        stream: TextIO,
        *,
        interval: float = STATUS_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label, self.stream, self.interval, self.clock = label, stream, interval, clock
        self._start: tuple[float, int] | None = None
        self._last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        if self._start is None:
            self._start = (now, done)
        elif now - self._last < self.interval and done < total:
            return
        self._last = now
        began, first = self._start
        played, elapsed = done - first, now - began
        line = f"{self.label}: {done}/{total} matches"
        if played > 0 and elapsed > 0:
            rate = played / elapsed
            line += f", {rate:.1f} matches/s, elapsed {_duration(elapsed)}"
            if done < total:
                line += f", eta {_duration((total - done) / rate)}"
        print(line, file=self.stream, flush=True)


@contextmanager
def match_progress(label: str, *, enabled: bool = True) -> Iterator[MatchProgress]:
    """A callback ``(done, total)``: a bar on a terminal, status lines otherwise; a no-op when
    not ``enabled`` (``--quiet``)."""
    console = Console(stderr=True)
    if enabled and not console.is_terminal:
        yield StatusLines(label, sys.stderr)
        return
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
        disable=not enabled,
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
