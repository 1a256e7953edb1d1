"""Team strategies' own cost: trap solving per problem, and decisions per headless match.

``python -m bench strategies``. Times are CPU seconds of this thread (``time.thread_time``), so
other engineers' jobs on a shared machine inflate them less than wall time would. The simulator
goal (issue 4: 20 matches/s on 2 workers) leaves about 100 ms of one core per match for
everything: engine, both teams and the optimum figures.

1. Trap solving at the default 20/85, split by the problem's optimum (0: one SAT call; 1: the
   one-active-trap MiniCard call; >= 2: RC2), beside ``dungeon.traps.optimum`` (SAT, then RC2:
   the straightforward way) on the same problems.
2. Each strategy's decisions (``choose_move``), message handling (``observe``) and solving
   (``solve``) in headless ``reference`` vs ``rusher`` and ``classic`` vs ``rusher`` matches,
   in ms per match and us per crossing.
3. How strong ``reference`` is against its sparring partners (``rusher``, ``classic``, the
   reference team until 2026): its win rate with the 95% Wilson interval, headless under the
   timed and the step schedules (``BENCH_STRATEGIES_GAMES`` games a row, default 200, the same
   paired seeds) and over loopback sockets with the ``arena match`` machinery
   (``BENCH_STRATEGIES_NETWORK_GAMES``, default 40, about a second a game; 0 skips it). The
   title gives the machine's load average (1 minute) before and after: loopback figures depend
   on how fast each team is served, so a loaded machine shifts them.
"""

from __future__ import annotations

import os
import statistics
import time
from collections import defaultdict
from itertools import chain

import numpy as np

from bench.common import env_number, print_table
from client.strategies.base import make_strategy
from client.strategies.solver import TrapSolver
from dungeon.config import RulesConfig
from dungeon.engine import Match, Output, Request
from dungeon.traps import draw_problem, optimum
from protocol.messages import Move, Solution
from sim.dungeon_steps import step_order, step_order_generator, strategy_seed

PROBLEMS = env_number("BENCH_STRATEGIES_PROBLEMS", 600, minimum=1)
MATCHES = env_number("BENCH_STRATEGIES_MATCHES", 6, minimum=1)
GAMES = env_number("BENCH_STRATEGIES_GAMES", 200, minimum=2)
NETWORK_GAMES = env_number("BENCH_STRATEGIES_NETWORK_GAMES", 40, minimum=0)
#: reference's sparring partners, and the seed of the paired seeds every row plays.
PARTNERS = ("rusher", "classic")
SEED = 7
clock = time.thread_time


def solving_rows() -> list[tuple[object, ...]]:
    """Mean us per problem, by optimum, for TrapSolver and for SAT-then-RC2."""
    config = RulesConfig()
    rng = np.random.Generator(np.random.PCG64(20))
    problems = [
        tuple(map(tuple, draw_problem(rng, config.switches, config.traps).tolist()))
        for _ in range(PROBLEMS)
    ]
    optima = [optimum(problem, config.switches) for problem in problems]
    solver = TrapSolver(1)
    ours: dict[str, list[float]] = defaultdict(list)
    exact: dict[str, list[float]] = defaultdict(list)
    for problem, best in zip(problems, optima, strict=True):
        kind = str(best) if best < 2 else ">= 2"
        # optimum() first: after solver.solve it would reuse the verdict the solver just
        # reached (dungeon.sat), and this column is the cost of solving from scratch.
        started = clock()
        optimum(problem, config.switches)
        exact[kind].append(clock() - started)
        started = clock()
        solver.solve(problem, config.switches)
        ours[kind].append(clock() - started)
    rows: list[tuple[object, ...]] = []
    for kind in ("0", "1", ">= 2", "all"):
        mine = list(chain(*ours.values())) if kind == "all" else ours[kind]
        theirs = list(chain(*exact.values())) if kind == "all" else exact[kind]
        if not mine:
            continue
        rows.append(
            (
                kind,
                len(mine),
                f"{100 * len(mine) / len(problems):.0f}%",
                f"{1e6 * statistics.fmean(mine):.0f}",
                f"{1e6 * statistics.fmean(theirs):.0f}",
            )
        )
    return rows


def match_costs(seats: tuple[str, str], seed: int, costs: dict[str, float]) -> int:
    """Play one headless match (as ``sim.dungeon.play_match`` does, without figures),
    adding each strategy's seconds to ``costs``; return the number of crossings."""
    config = RulesConfig()
    match = Match(seed, config)
    teams = [make_strategy(name, t, strategy_seed(seed, t)) for t, name in enumerate(seats)]
    order = step_order_generator(seed)
    crossings = 0

    def deliver(output: Output) -> None:
        for outbound in output.messages:
            team = outbound.to.team
            started = clock()
            teams[team].observe(outbound.to.agent, outbound.message)
            costs[f"{seats[team]} observe"] += clock() - started

    deliver(match.begin())
    for _ in range(config.draw_steps):
        for agent in step_order(order):
            if match.is_over:
                return crossings
            name = seats[agent.team]
            started = clock()
            to = teams[agent.team].choose_move(agent.agent)
            costs[f"{name} choose_move"] += clock() - started
            if to is None:
                continue
            deliver(match.apply(Request(agent, Move(to=to))))
            problem = match.pending(agent)
            if problem is None:
                continue
            started = clock()
            assignment = teams[agent.team].solve(agent.agent, problem)
            costs[f"{name} solve"] += clock() - started
            crossings += 1
            deliver(match.apply(Request(agent, Solution(assignment=assignment))))
    return crossings


def main() -> None:
    print_table(
        f"trap solving at 20/85: mean us per problem ({PROBLEMS} problems, CPU time)",
        ["optimum", "problems", "share", "TrapSolver us", "SAT then RC2 us"],
        solving_rows(),
    )
    costs: dict[str, float] = defaultdict(float)
    crossings = 0
    for index in range(MATCHES):
        mine = ("reference", "classic")[index % 2]
        seats = (mine, "rusher") if index // 2 % 2 == 0 else ("rusher", mine)
        crossings += match_costs(seats, 2000 + index // 4, costs)
    print_table(
        f"strategies in {MATCHES} headless reference or classic vs rusher matches "
        f"({crossings / MATCHES:.0f} crossings per match, CPU time)",
        ["strategy part", "ms per match", "us per crossing"],
        [
            (part, f"{1e3 * seconds / MATCHES:.1f}", f"{1e6 * seconds / crossings:.0f}")
            for part, seconds in sorted(costs.items())
        ],
    )
    before = os.getloadavg()[0]
    rows = strength_rows()
    after = os.getloadavg()[0]
    print_table(
        f"reference's win rate against its sparring partners (paired seeds, seed {SEED}; "
        f"95% Wilson interval; load average {before:.1f} before, {after:.1f} after)",
        ["opponent", "played", "games", "W/D/L", "win rate", "95% interval"],
        rows,
        width=110,
    )


def strength_rows() -> list[tuple[object, ...]]:
    """One row per partner and way of playing: headless timed, headless steps, loopback."""
    from bench.bench_timed import network_games
    from replay import stats
    from sim.backends import LocalBackend
    from sim.runner import RunSpec, run
    from sim.schedule import match_seeds

    rows: list[tuple[object, ...]] = []
    for partner in PARTNERS:
        pair = ("reference", partner)
        ways: list[tuple[str, dict[str, object]]] = []
        for schedule in ("timed", "steps"):
            options = {"optimum": False, "schedule": schedule}
            spec = RunSpec("dungeon", pair, matches=GAMES, seed=SEED, options=options)
            ways.append((f"headless {schedule}", run(spec, LocalBackend(2)).report["pairings"][0]))
        if NETWORK_GAMES:
            seeds = match_seeds(SEED, (NETWORK_GAMES + 1) // 2)
            ways.append(("loopback", stats.pairing_summary(*pair, network_games(seeds, pair))))
        for played, pairing in ways:
            low, high = pairing["ci95"]  # type: ignore[index]
            rows.append(
                (
                    partner,
                    played,
                    pairing["games"],
                    f"{pairing['wins']}/{pairing['draws']}/{pairing['losses']}",
                    f"{pairing['win_rate']:.3f}",
                    f"[{low:.3f}, {high:.3f}]",
                )
            )
    return rows


if __name__ == "__main__":
    main()
