"""The progress of ``arena sim`` on stderr: matches done, rate and ETA.

On a terminal, a rich progress bar. Otherwise (a CI log, ``2> run.log``, ``| tee``) a plain status
line at the start, at most every :data:`STATUS_INTERVAL` seconds as matches finish, and at the end,
so a long run is never silent.

Both take their rate and ETA from one :class:`RateEstimate`: matches played here since the run
began, over the time since it began (docs/simulator.md says why not rich's own estimate).
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
)
from rich.text import Text

__all__ = ["STATUS_INTERVAL", "MatchProgress", "RateEstimate", "StatusLines", "match_progress"]

#: Seconds between two status lines when stderr is not a terminal.
STATUS_INTERVAL = 5.0
#: Matches played here before a rate is trusted: the first ones finish together, having started
#: together on every worker.
WARM_UP_MATCHES = 3


class RateEstimate:
    """Matches per second and the time left, from the matches played in this run over the
    time since it began (its first call, before any match finished; matches read back from a
    journal do not count). Measuring from the first *finished* match instead, as a windowed
    estimate does, drops the time every worker spent on its first match: with W workers the
    early rate came out about W times too high."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._start: tuple[float, int] | None = None
        self.elapsed = 0.0
        self.played = 0

    def update(self, done: int) -> None:
        now = self.clock()
        if self._start is None:
            self._start = (now, done)
        began, first = self._start
        self.elapsed, self.played = now - began, done - first

    def rate(self) -> float | None:
        """Matches per second, once enough matches were played to say."""
        if self.played < WARM_UP_MATCHES or self.elapsed <= 0:
            return None
        return self.played / self.elapsed

    def remaining(self, done: int, total: int) -> float | None:
        """Seconds left for the matches not yet done, at the rate so far."""
        rate = self.rate()
        return None if rate is None else (total - done) / rate


class EstimateColumn(ProgressColumn):
    """The estimate's rate and ETA (kept in the task's fields by the update callback)."""

    def render(self, task: Task) -> Text:
        rate, left = task.fields.get("rate"), task.fields.get("left")
        shown = "-- matches/s" if rate is None else f"{rate:.1f} matches/s"
        if task.finished:
            return Text(shown)
        return Text(f"{shown}  eta {'--' if left is None else _duration(left)}")


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
        self.estimate = RateEstimate(clock)
        self._last: float | None = None

    def __call__(self, done: int, total: int) -> None:
        self.estimate.update(done)
        now = self.clock()
        if self._last is not None and now - self._last < self.interval and done < total:
            return
        self._last = now
        line = f"{self.label}: {done}/{total} matches"
        estimate = self.estimate
        if estimate.played > 0 and estimate.elapsed > 0:
            line += f", {estimate.played / estimate.elapsed:.1f} matches/s"
            line += f", elapsed {_duration(estimate.elapsed)}"
            left = estimate.remaining(done, total)
            if done < total and left is not None:
                line += f", eta {_duration(left)}"
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
        TextColumn("elapsed"),
        TimeElapsedColumn(),
        EstimateColumn(),
        console=console,
        disable=not enabled,
    ) as progress:
        tasks: list[TaskID] = []
        estimate = RateEstimate()

        def update(done: int, total: int) -> None:
            # The first call comes before any match is played, with the matches read back from
            # a journal already done: they do not count towards the rate.
            estimate.update(done)
            rate, left = estimate.rate(), estimate.remaining(done, total)
            if not tasks:
                task = progress.add_task(label, total=total, completed=done, rate=rate, left=left)
                tasks.append(task)
            else:
                progress.update(tasks[0], completed=done, rate=rate, left=left)

        yield update
