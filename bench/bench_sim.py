"""Simulator speed: headless ``reference`` vs ``rusher`` matches per second, and where the time
goes.

``python -m bench sim``. Goal (issue 4): >= 20 matches/s on 2 workers at the default rules.
The throughput rows run the real runner (paired seeds, process pool); the profile rows play
matches in this process under cProfile and split the time by who spends it: the rules engine
(``Match``), the strategies' own code, the SAT/MaxSAT calls the strategies make to solve traps,
the trap optimum computed for the figures, and the rest (the driver, message delivery).

A run of a few dozen games is dominated by what it pays once: forking the workers, each
worker's first match importing the strategies and pysat and filling its caches, and the last
worker left alone at the end. A user runs thousands, so each row shows the whole run's rate
*and* the steady rate (from the times results arrive, between the warm-up and the tail) with
the fixed cost the rest amounts to: a run of N games takes about ``fixed + N / steady``.
"""

from __future__ import annotations

import cProfile
import pstats
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.common import env_number, print_table
from sim.backends import LocalBackend, Task
from sim.dungeon import DungeonGame
from sim.runner import RunSpec, match_seeds, run

STRATEGIES = ("reference", "rusher")
#: Games per throughput row on 2 workers (whole seed pairs): enough that the steady part of the
#: run dwarfs its fixed cost (~20 s a row at ~10 matches/s), the whole bench under 2 minutes.
GAMES = env_number("BENCH_SIM_GAMES", 160, minimum=2)
#: Games of the one-worker row (half as fast; it only shows the per-core cost).
GAMES_ONE_WORKER = max(2, GAMES // 4)
PROFILE_MATCHES = env_number("BENCH_SIM_PROFILE", 6, minimum=1)


class _ArrivalClock:
    """A LocalBackend that notes the moment each result reaches the runner."""

    def __init__(self, workers: int) -> None:
        self.inner = LocalBackend(workers)
        self.arrivals: list[float] = []

    def describe(self) -> str:
        return self.inner.describe()

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[int, Any]]:
        for item in self.inner.run(tasks):
            self.arrivals.append(time.perf_counter())
            yield item


@dataclass(frozen=True)
class Throughput:
    games: int
    rate: float  # matches per second over the whole run, start-up included
    steady: float  # matches per second once every worker is warm, before the tail
    fixed: float  # seconds the run took beyond games / steady: start-up and tail
    match_ms: float  # mean milliseconds per match inside a worker


def throughput(workers: int, optimum: bool, games: int) -> Throughput:
    """One runner call of ``games`` games, timed as a whole and by result arrivals."""
    spec = RunSpec("dungeon", STRATEGIES, matches=games, seed=1, options={"optimum": optimum})
    backend = _ArrivalClock(workers)
    started = time.perf_counter()
    outcome = run(spec, backend)
    elapsed = time.perf_counter() - started
    played = outcome.report["games"]
    arrivals = backend.arrivals
    # Warm-up: every worker's first few matches (imports, caches); tail: the last match of each
    # worker but one, when fewer matches than workers are left to play.
    first = min(max(2 * workers, len(arrivals) // 5), len(arrivals) - 2)
    last = max(first + 1, len(arrivals) - workers)
    # The least-squares slope of results against time between the two: steadier than the two
    # end points alone, which a single slow match moves.
    window = np.array(arrivals[first : last + 1])
    steady = float(np.polyfit(window - window[0], np.arange(len(window)), 1)[0])
    return Throughput(
        games=played,
        rate=played / elapsed,
        steady=steady,
        fixed=elapsed - played / steady,
        match_ms=1000 * outcome.report["timing"]["match_seconds"] / played,
    )


def _cumulative(stats: pstats.Stats, where: str, names: set[str]) -> float:
    """Summed cumulative time of the functions ``names`` defined in files ending in ``where``."""
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    return sum(
        float(row[3])
        for (filename, _, name), row in table.items()
        if filename.endswith(where) and name in names
    )


def profile_split() -> list[tuple[str, float, bool]]:
    """(part, seconds, is a detail of the part above) over PROFILE_MATCHES matches played in
    this process; the parts that are not details add up to the whole."""
    game = DungeonGame()
    seeds = match_seeds(2, PROFILE_MATCHES // 2 or 1)
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    for seed in seeds:
        game.play(seed, STRATEGIES)
        game.play(seed, STRATEGIES[::-1])
    profiler.disable()
    total = time.perf_counter() - started
    stats = pstats.Stats(profiler)
    engine = _cumulative(stats, "dungeon/engine.py", {"__init__", "begin", "apply"})
    draws = _cumulative(stats, "dungeon/traps.py", {"draw_traps"})
    sightings = _cumulative(stats, "dungeon/engine.py", {"_sighting_updates"})
    outcomes = _cumulative(stats, "dungeon/traps.py", {"active"})
    strategy_calls = sum(
        _cumulative(stats, f"client/strategies/{module}.py", {"observe", "choose_move", "solve"})
        for module in ("reference", "rusher")
    )
    strategy_sat = _cumulative(stats, "client/strategies/solver.py", {"solve"})
    optimum = _cumulative(stats, "sim/dungeon.py", {"_optimum"})
    other = total - engine - strategy_calls - optimum
    return [
        ("engine (Match: generation, moves, traps drawn, sightings)", engine, False),
        ("  of which: trap problems drawn (draw_traps)", draws, True),
        ("  of which: sightings (enemy messages)", sightings, True),
        ("  of which: active traps of a solution", outcomes, True),
        ("strategies: own code (knowledge, paths, choices)", strategy_calls - strategy_sat, False),
        ("strategies: SAT/MaxSAT trap solving", strategy_sat, False),
        ("figures: trap optimum (SAT at k = 1, RC2 at k >= 2)", optimum, False),
        ("driver, messages, other (profiler overhead included)", other, False),
    ]


def main() -> None:
    rows = []
    for workers, optimum, games in (
        (2, True, GAMES),
        (2, False, GAMES),
        (1, True, GAMES_ONE_WORKER),
    ):
        measured = throughput(workers, optimum, games)
        rows.append(
            (
                workers,
                "on" if optimum else "off",
                measured.games,
                f"{measured.rate:.1f}",
                f"{measured.steady:.1f}",
                f"{measured.fixed:.1f}",
                f"{measured.match_ms:.0f}",
            )
        )
    print_table(
        "arena sim dungeon reference,rusher, default rules (goal >= 20 matches/s on 2 workers):"
        " whole run and steady rates; fixed = start-up and tail, a run of N games taking about"
        " fixed + N / steady seconds; ms/match = mean time of a match inside a worker",
        [
            "workers",
            "optimum",
            "games",
            "matches/s run",
            "matches/s steady",
            "fixed s",
            "ms/match",
        ],
        rows,
    )
    split = profile_split()
    total = sum(seconds for _, seconds, detail in split if not detail)
    print_table(
        f"where the time goes: {PROFILE_MATCHES} matches in one process under cProfile",
        ["part", "seconds", "share"],
        [(part, f"{seconds:.2f}", f"{100 * seconds / total:.0f}%") for part, seconds, _ in split],
    )


if __name__ == "__main__":
    main()
