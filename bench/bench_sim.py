"""Simulator speed: headless ``reference`` vs ``rusher`` matches per second, and where the time
goes.

``python -m bench sim``. Goal (issue 4): >= 20 matches/s on 2 workers at the default rules.
The throughput rows run the real runner (paired seeds, process pool); the profile rows play
matches in this process under cProfile and split the time by who spends it: the rules engine
(``Match``), the strategies' own code, the SAT/MaxSAT calls the strategies make to solve traps,
the trap optimum computed for the figures, and the rest (the driver, message delivery).
"""

from __future__ import annotations

import cProfile
import os
import pstats
import time
from typing import Any

from bench.common import print_table
from sim.backends import LocalBackend
from sim.games.dungeon import DungeonGame
from sim.runner import RunSpec, match_seeds, run

STRATEGIES = ("reference", "rusher")
#: Games per throughput row (whole seed pairs): enough for a stable rate, short enough to share
#: a two-core machine.
GAMES = int(os.environ.get("BENCH_SIM_GAMES", "24"))
PROFILE_MATCHES = int(os.environ.get("BENCH_SIM_PROFILE", "6"))


def throughput(workers: int, optimum: bool) -> tuple[float, float]:
    """(matches per second, median seconds per match) of one runner call."""
    spec = RunSpec("dungeon", STRATEGIES, matches=GAMES, seed=1, options={"optimum": optimum})
    started = time.perf_counter()
    outcome = run(spec, LocalBackend(workers))
    elapsed = time.perf_counter() - started
    return outcome.report["games"] / elapsed, outcome.report["timing"]["match_seconds"] / GAMES


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
    draws = _cumulative(stats, "dungeon/traps.py", {"draw_problem"})
    sightings = _cumulative(stats, "dungeon/engine.py", {"_sighting_updates"})
    outcomes = _cumulative(stats, "dungeon/traps.py", {"active_traps"})
    strategy_calls = sum(
        _cumulative(stats, f"client/strategies/{module}.py", {"observe", "choose_move", "solve"})
        for module in ("reference", "rusher")
    )
    strategy_sat = _cumulative(stats, "client/strategies/solver.py", {"solve"})
    optimum = _cumulative(stats, "sim/games/dungeon.py", {"_optimum"})
    other = total - engine - strategy_calls - optimum
    return [
        ("engine (Match: generation, moves, traps drawn, sightings)", engine, False),
        ("  of which: trap problems drawn (draw_problem)", draws, True),
        ("  of which: sightings (enemy messages)", sightings, True),
        ("  of which: active traps of a solution", outcomes, True),
        ("strategies: own code (knowledge, paths, choices)", strategy_calls - strategy_sat, False),
        ("strategies: SAT/MaxSAT trap solving", strategy_sat, False),
        ("figures: trap optimum (SAT at k = 1, RC2 at k >= 2)", optimum, False),
        ("driver, messages, other (profiler overhead included)", other, False),
    ]


def main() -> None:
    rows = []
    for workers, optimum in ((2, True), (2, False), (1, True)):
        rate, per_match = throughput(workers, optimum)
        rows.append(
            (
                workers,
                "on" if optimum else "off",
                GAMES,
                f"{rate:.1f}",
                f"{per_match * 1000:.0f}",
            )
        )
    print_table(
        "arena sim dungeon reference,rusher (default rules; goal >= 20 matches/s on 2 workers)",
        ["workers", "optimum figures", "games", "matches/s", "mean ms/match (in worker)"],
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
