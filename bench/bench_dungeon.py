"""Dungeon rules speed: generation, one crossing, the trap optimum inline and through the pool.

``python -m bench dungeon``. Targets (issue 2): generation of a 1000-node dungeon <= 1.5 ms
median; one crossing at 20/85 (problem + outcome, the optimum apart) <= 0.3 ms median. The
optimum rows tell the server whether an inline check would stay under 1 ms at p99.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator

import numpy as np

from bench.common import print_table
from dungeon.config import RulesConfig
from dungeon.engine import AgentId, Match, Request
from dungeon.generation import generate
from dungeon.traps import draw_problem, draw_traps, optimum
from protocol.messages import Move, Solution
from server.optimum_pool import OptimumPool


def samples(run: Callable[[], object], repeat: int, warmup: int = 5) -> list[float]:
    for _ in range(warmup):
        run()
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        timings.append(time.perf_counter() - start)
    return timings


def p99(timings: list[float]) -> float:
    return statistics.quantiles(timings, n=100)[98]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def main() -> None:
    rows: list[tuple[str, str, str, str]] = []
    seeds: Iterator[int] = iter(range(10**9))

    def generation() -> None:
        generate(np.random.Generator(np.random.PCG64(next(seeds))))

    timings = samples(generation, 300)
    rows.append(("generate 1000 nodes", ms(statistics.median(timings)), ms(p99(timings)), "1.5 ms"))

    rng = np.random.Generator(np.random.PCG64(1))
    assignment = (rng.random(20) < 0.5).tolist()

    def crossing() -> None:
        # The engine's path: the traps as the `sat` message carries them, then the outcome.
        problem = draw_traps(rng, 20, 85)
        k = problem.active(assignment)
        _ = rng.random() < (7 / 8) ** k

    timings = samples(crossing, 3000)
    rows.append(
        (
            "crossing 20/85 (problem+outcome)",
            ms(statistics.median(timings)),
            ms(p99(timings)),
            "0.3 ms",
        )
    )

    match = Match(2, RulesConfig())
    match.begin()
    agent = AgentId(0, 1)

    def engine_crossing() -> None:
        neighbours = match.dungeon.adjacency[match.location(agent)]
        enemy_special = {match.dungeon.start[1], match.dungeon.shrine[1]}
        to = next(v for v in neighbours if v not in enemy_special)
        match.apply(Request(agent, Move(to=to)))
        match.apply(Request(agent, Solution(assignment=assignment)))

    timings = samples(engine_crossing, 2000)
    rows.append(("engine move+solution", ms(statistics.median(timings)), ms(p99(timings)), "-"))

    problems = [draw_problem(rng, 20, 85) for _ in range(1000)]
    inline = iter(problems * 2)
    timings = samples(lambda: optimum(next(inline), 20), 1000, warmup=0)
    rows.append(("optimum inline 20/85", ms(statistics.median(timings)), ms(p99(timings)), "-"))

    with OptimumPool(workers=1, timeout=20.0) as pool:
        pooled = iter(problems * 2)
        timings = samples(lambda: pool.check(next(pooled), 20), 500)
    rows.append(("OptimumPool.check 20/85", ms(statistics.median(timings)), ms(p99(timings)), "-"))

    print_table("dungeon rules", ["measure", "median", "p99", "target (median)"], rows)
