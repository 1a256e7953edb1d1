"""Penguins: speed of the player program and strength of each strategy.

    python -m bench penguins
    PENGUINS_BENCH_GAMES=40 PENGUINS_BENCH_PEER_GAMES=40 python -m bench penguins   (longer)

* Games per second: whole matches through ``PenguinsGame.play`` (2 players, 10 x 10, 4 penguins
  each) in this one process, so per core.
* One call of ``.venv/bin/penguins-player``: whole-process wall time (median of 25 runs), as a
  game master sees it, for ``name``, a placement on a fresh board and a movement mid-game with
  the default strategy (territory, 2500 nodes) and with alphabeta (400 nodes); next to it
  ``python -c pass``, the floor of any Python program on this machine at this moment, and the
  CPU time the call used (user + system, less disturbed than wall time when the machine is
  shared). The start-up goal: ``name`` within 1.5 x the floor (the ratio row).
* Strength: each pair of strategies over ``PENGUINS_BENCH_GAMES`` simulated games (default 8;
  paired seeds, seats swapped, 10 x 10), the first one's wins/draws/losses and mean margin.
* Against the course's C programs through the sandboxed master: :mod:`bench.penguins_peers`
  with ``PENGUINS_BENCH_PEER_GAMES`` games each (default 4; skipped when they are absent).

Bytecode of the player's modules is compiled first: an installed package has it, and a call
should not pay for compiling (PYTHONDONTWRITEBYTECODE may be set in development shells).
"""

from __future__ import annotations

import compileall
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import penguins_peers
from bench.common import print_table
from floes import PLACEMENT
from penguins.game import PenguinsGame
from penguins.rules import board_of
from protocol.penguins import BoardFile

ROOT = Path(__file__).resolve().parent.parent
PLAYER = str(Path(sys.executable).parent / "penguins-player")
RUNS = 25


def games_per_second(seats: list[str], seconds: float = 3.0, limit: int = 2000) -> float:
    """Whole matches per second in this process (one core), over about ``seconds``."""
    game = PenguinsGame()
    played, start = 0, time.perf_counter()
    while played < limit and (played < 2 or time.perf_counter() - start < seconds):
        game.play(played, seats)
        played += 1
    return played / (time.perf_counter() - start)


def process_times(
    calls: list[tuple[str, list[str], Path | None]],
) -> dict[str, tuple[float, float, float]]:
    """For each (label, argv, board) call: median wall, fastest wall and median CPU
    milliseconds over RUNS runs (after one warm-up). The calls take turns run by run, so a burst
    of load from others on the machine hits them all alike; the board file, if any, is copied to
    ``board.txt`` before each run. The fastest run shows the cost on an idle machine."""
    walls: dict[str, list[float]] = {label: [] for label, _, _ in calls}
    cpus: dict[str, list[float]] = {label: [] for label, _, _ in calls}
    with tempfile.TemporaryDirectory() as directory:
        board = Path(directory) / "board.txt"
        for run in range(RUNS + 1):
            for label, argv, prepare in calls:
                if prepare is not None:
                    shutil.copy(prepare, board)
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run(argv, cwd=directory, stdout=subprocess.DEVNULL, check=False)
                wall = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if run:
                    walls[label].append(wall * 1000)
                    used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
                    cpus[label].append(used * 1000)
    return {
        label: (statistics.median(walls[label]), min(walls[label]), statistics.median(cpus[label]))
        for label, _, _ in calls
    }


def boards(directory: Path) -> tuple[Path, Path]:
    """A fresh 10 x 10 board file and one just after placement (4 penguins each, random)."""
    game = PenguinsGame()
    state = game.new_initial_state(7)
    fresh = directory / "fresh.txt"
    floes = state.floes
    fresh.write_text(BoardFile(10, 10, list(floes.fish), [0] * len(floes.fish), []).render())
    rng = random.Random(7)
    while state.floes.phase == PLACEMENT:
        actions = state.legal_actions()
        state.apply_action(actions[rng.randrange(len(actions))])
    middle = directory / "middle.txt"
    middle.write_text(board_of(state.floes, ["alice", "penguins-alphabeta"]).render())
    return fresh, middle


def strength(games: int) -> list[list[object]]:
    """For each pair of strategies: the first one's W/D/L and mean margin over ``games``."""
    game = PenguinsGame()
    names = ["territory", "alphabeta", "greedy", "random"]
    rows: list[list[object]] = []
    for index, first in enumerate(names):
        for second in names[index + 1 :]:
            wins = draws = losses = 0
            margins = []
            for number in range(games):
                seed, swap = number // 2, number % 2 == 1
                seats = [second, first] if swap else [first, second]
                result = game.play(seed, seats)
                ours, theirs = (result.returns[1], result.returns[0]) if swap else result.returns
                wins += ours > theirs
                draws += ours == theirs
                losses += ours < theirs
                margins.append(ours - theirs)
            rows.append(
                [
                    f"{first} vs {second}",
                    f"{wins}/{draws}/{losses}",
                    f"{(wins + draws / 2) / games:.0%}",
                    f"{statistics.mean(margins):+.1f}",
                ]
            )
    return rows


def main() -> None:
    for path in ("floes", "penguins", "arena"):
        compileall.compile_dir(ROOT / path, quiet=1)
    rows: list[list[object]] = []
    for seats in (["random", "random"], ["greedy", "random"], ["alphabeta", "greedy"]):
        rate = games_per_second(seats, seconds=3.0 if "alphabeta" not in seats else 6.0)
        rows.append([f"games/s per core, {' vs '.join(seats)}, 10x10", f"{rate:.1f}", "", ""])
    with tempfile.TemporaryDirectory() as directory:
        fresh, middle = boards(Path(directory))
        calls: list[tuple[str, list[str], Path | None]] = [
            ("python -c pass (floor)", [sys.executable, "-c", "pass"], None),
            ("penguins-player name", [PLAYER, "name"], None),
            (
                "penguins-player placement (10x10)",
                [PLAYER, "phase=placement", "penguins=4", "board.txt", "board.txt"],
                fresh,
            ),
            (
                "penguins-player movement (territory, default)",
                [PLAYER, "phase=movement", "board.txt", "board.txt", "id=penguins-alphabeta"],
                middle,
            ),
            (
                "penguins-player movement (alphabeta)",
                [PLAYER, "phase=movement", "board.txt", "board.txt", "strategy=alphabeta"],
                middle,
            ),
            (
                "penguins-player movement (greedy)",
                [PLAYER, "phase=movement", "board.txt", "board.txt", "strategy=greedy",
                 "id=penguins-alphabeta"],
                middle,
            ),
        ]  # fmt: skip
        times = process_times(calls)
        for label, (wall, fastest, cpu) in times.items():
            rows.append([f"{label}: ms per call", f"{wall:.1f}", f"{fastest:.1f}", f"{cpu:.1f}"])
        floor, name = times["python -c pass (floor)"], times["penguins-player name"]
        rows.append(
            [
                "start-up ratio: name / python -c pass",
                f"{name[0] / floor[0]:.2f}x",
                f"{name[1] / floor[1]:.2f}x",
                f"{name[2] / floor[2]:.2f}x",
            ]
        )
    print_table(
        f"Penguins (process rows: {RUNS} runs each)",
        ["measure", "value (median wall)", "fastest wall", "median cpu"],
        rows,
    )
    games = int(os.environ.get("PENGUINS_BENCH_GAMES", "8"))
    print_table(
        f"Penguins strength: {games} simulated games a pair (10 x 10, paired seeds)",
        ["first vs second", "W/D/L of the first", "score", "mean margin (fish)"],
        strength(games),
    )
    penguins_peers.main(["--games", os.environ.get("PENGUINS_BENCH_PEER_GAMES", "4")])


if __name__ == "__main__":
    main()
