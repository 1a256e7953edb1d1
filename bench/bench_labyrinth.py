"""Labyrinth: games per second on one core, and the rotator's win rate against ASTAR.

Each pairing plays paired games (every seed twice, seats swapped) in this one process, on the
seeds ``arena sim --seed 0`` uses, so the win rate row is the figure of
``arena sim labyrinth --strategies rotator,astar --matches 2000 --workers 1``. Draws (the turn
limit) count as non-wins. Target (issue 7): rotator > 60% of 1000 paired games against astar,
in a few minutes on one core.
"""

from __future__ import annotations

import math
import random
import statistics
import time

from bench.common import print_table
from labyrinth.game import STRATEGIES, LabyrinthGame

try:  # the simulator's seed list, when the runner is installed
    from sim.schedule import match_seeds
except ImportError:  # pragma: no cover - the runner ships with the project

    def match_seeds(seed: int, count: int) -> list[int]:
        return list(range(seed, seed + count))


#: (first strategy, second strategy, paired seeds)
PAIRINGS = [
    ("astar", "play_random", 500),
    ("astar", "play_random_norot", 500),
    ("rotator", "astar", 1000),
    ("rotator", "play_random", 250),
]


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    rate = wins / games
    centre = rate + z * z / (2 * games)
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return (centre - spread) / scale, (centre + spread) / scale


def measure(first: str, second: str, pairs: int) -> list[object]:
    game = LabyrinthGame()
    wins = draws = plies = 0
    started = time.perf_counter()
    for seed in match_seeds(0, pairs):
        for seats in ([first, second], [second, first]):
            result = game.play(seed, seats)
            plies += result.length
            if result.winner is None:
                draws += 1
            elif seats[result.winner] == first:
                wins += 1
    elapsed = time.perf_counter() - started
    games = 2 * pairs
    low, high = wilson(wins, games)
    return [
        f"{first} vs {second}",
        games,
        f"{games / elapsed:.1f}",
        f"{elapsed:.1f}",
        f"{wins / games:.3f} [{low:.3f}, {high:.3f}]",
        draws,
        f"{plies / games:.1f}",
    ]


def decision_times(name: str, opponent: str, pairs: int) -> list[object]:
    """Milliseconds per decision of ``name`` over paired games against ``opponent``."""
    game = LabyrinthGame()
    samples: list[float] = []
    for seed in match_seeds(0, pairs):
        for seats in ([name, opponent], [opponent, name]):
            state = game.new_initial_state(seed)
            bots = [STRATEGIES[seat]() for seat in seats]
            rng = random.Random(seed)
            while not state.is_terminal():
                mover = state.labyrinth.to_move
                started = time.perf_counter()
                action = bots[mover].step(state, rng)
                if seats[mover] == name:
                    samples.append((time.perf_counter() - started) * 1000)
                state.apply_action(action)
    samples.sort()
    return [
        f"{name} vs {opponent}",
        len(samples),
        f"{statistics.median(samples):.3f}",
        f"{statistics.fmean(samples):.3f}",
        f"{samples[int(0.99 * len(samples))]:.2f}",
        f"{samples[-1]:.2f}",
    ]


def main() -> None:
    rows = [measure(first, second, pairs) for first, second, pairs in PAIRINGS]
    print_table(
        "Labyrinth on one core (paired seeds of arena sim --seed 0)",
        ["pairing", "games", "games/s", "seconds", "first wins [95% CI]", "draws", "plies"],
        rows,
    )
    print_table(
        "Labyrinth: milliseconds per decision",
        ["bot", "decisions", "median", "mean", "p99", "max"],
        [decision_times("rotator", "astar", 200), decision_times("astar", "play_random", 200)],
    )
