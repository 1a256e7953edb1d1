"""Fish: random games per second, whole-process time of each course harness, paranoid vs minimax2.

``python -m bench fish``. Harness times are whole processes (``arena fish X < input``), the way
teachers run thousands of cases; targets: xboard/xstate/xtree <= 50 ms, xref (5 x 5, four
depth-2 players) <= 110 ms.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.common import print_table
from fish.data import state_to_json
from fish.game import FishGame

REPO = Path(__file__).resolve().parent.parent
# The course's own examples (one folder per harness), copied into the repository so that a clean
# clone has them wherever it stands (tests/fixtures/README.md).
FIXTURES = REPO / "tests" / "fixtures" / "fish-course"
RUNS = 20


def random_games_per_second(seconds: float = 3.0) -> tuple[float, int]:
    """Whole random games (4 players, 5 x 5, 2 fish) per second on one core."""
    game = FishGame(players=4, rows=5, cols=5, fish=2)
    seats = ["random"] * 4
    games, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        game.play(games, seats)
        games += 1
    return games / (time.perf_counter() - start), games


def xstrategy_input() -> str:
    """A representative xstrategy case: depth 2 on a 5 x 5 board of 1-5 fish, four players with
    two penguins each, just after placement (the widest tree of the game)."""
    game = FishGame(players=4)
    state = game.new_initial_state(7)
    while state.floes.phase == "placement":
        state.apply_action(state.floes.placements(state.floes.current)[0])
    value = state_to_json(state.floes, ["red", "white", "brown", "black"], range(4))
    return json.dumps([2, value])


def harness_inputs() -> dict[str, str]:
    return {
        "xboard": (FIXTURES / "xboard" / "3-in.json").read_text(),
        "xstate": (FIXTURES / "xstate" / "3-in.json").read_text(),
        "xtree": (FIXTURES / "xtree" / "3-in.json").read_text(),
        "xstrategy": xstrategy_input(),
        "xref": json.dumps(
            {"row": 5, "column": 5, "fish": 2, "players": [[n, 2] for n in ("a", "b", "c", "d")]}
        ),
    }


def arena_command() -> list[str]:
    script = Path(sys.executable).parent / "arena"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from arena.main import main; sys.exit(main())"]


def process_times(command: list[str], stdin: str, runs: int = RUNS) -> tuple[float, float]:
    """(median, min) seconds of whole ``command < stdin`` runs, after two warm-up runs."""
    samples = []
    data = stdin.encode()
    for run in range(runs + 2):
        start = time.perf_counter()
        subprocess.run(command, input=data, stdout=subprocess.DEVNULL, check=True)
        if run >= 2:
            samples.append(time.perf_counter() - start)
    return statistics.median(samples), min(samples)


def head_to_head(strong: str, weak: str, players: int, seeds: int) -> tuple[float, int, int]:
    """(strong's mean return, wins, games) over ``seeds`` boards, each played with the seats
    alternating strong/weak in both rotations."""
    game = FishGame(players=players)
    total, wins, games = 0.0, 0, 0
    for seed in range(seeds):
        for first in (strong, weak):
            second = weak if first == strong else strong
            seats = [first if seat % 2 == 0 else second for seat in range(players)]
            result = game.play(seed, seats)
            mine = [r for seat, r in enumerate(result.returns) if seats[seat] == strong]
            total += sum(mine) / len(mine) * (players / 2)
            wins += result.winner is not None and seats[result.winner] == strong
            games += 1
    return total / games, wins, games


def main() -> None:
    rate, games = random_games_per_second()
    print_table(
        "Fish: whole random games per second, one core (4 players, 5 x 5, 2 fish)",
        ["games", "games/s"],
        [[games, f"{rate:,.0f}"]],
    )
    command = arena_command()
    baseline = process_times([sys.executable, "-c", "pass"], "")
    rows: list[list[object]] = [
        ["python -c pass (interpreter start)", f"{baseline[0] * 1000:.1f}", ""]
    ]
    targets = {"xboard": 50, "xstate": 50, "xtree": 50, "xref": 110}
    for name, stdin in harness_inputs().items():
        median, fastest = process_times([*command, "fish", name], stdin)
        target = targets.get(name)
        rows.append(
            [
                f"arena fish {name}",
                f"{median * 1000:.1f} (min {fastest * 1000:.1f})",
                f"<= {target}" if target else "",
            ]
        )
    print_table(
        f"Fish harnesses: whole-process wall time, median of {RUNS} runs",
        ["command", "ms", "target ms"],
        rows,
    )
    rows = []
    for players, seeds in ((2, 20), (4, 20)):
        start = time.perf_counter()
        share, wins, played = head_to_head("paranoid", "minimax2", players, seeds)
        rows.append(
            [
                players,
                played,
                f"{share:.3f}",
                wins,
                f"{time.perf_counter() - start:.1f}",
            ]
        )
    print_table(
        "Fish: paranoid vs minimax2 (5 x 5, 1-5 fish; seats alternate, both rotations)",
        ["players", "games", "paranoid's mean share (0.5 = even)", "paranoid sole wins", "s"],
        rows,
    )
