"""Simulator speed: this tree's ``arena sim dungeon`` against today's code, side by side.

``python -m bench sim``. The baseline is a commit (``BENCH_SIM_BASELINE``, default the commit
before the compiled core, issue 21) checked out in a scratch ``git worktree`` and run with the
same interpreter and dependencies: it is the code as it was, not this tree with the extension
hidden. Each round runs both, alternately, as whole processes (``python -m arena sim dungeon
--strategies reference,rusher --workers 2``), so both meet the same machine load. The table
shows the medians of the rounds: wall time, and CPU time (the process and its workers: the
figure that other work on a shared machine distorts least), their ratios, and whether the
results JSON (``timing`` left out) are identical (this tree runs ``--schedule steps``, the one
schedule today's code has). Then: memory per worker (peak RSS of one process playing
matches), and, with ``BENCH_SIM_CALLGRIND=1``, instructions per match under valgrind's
callgrind (deterministic: the figure to compare across machines). ``python -m bench timed``
compares the schedules with network play.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.common import env_number, print_table

ROOT = Path(__file__).resolve().parent.parent
#: Today's code: the last commit before the compiled core (main when issue 21 started).
BASELINE = os.environ.get("BENCH_SIM_BASELINE", "219e8116c86f")
GAMES = env_number("BENCH_SIM_GAMES", 200, minimum=2)
ROUNDS = env_number("BENCH_SIM_ROUNDS", 3, minimum=1)
WORKERS = 2
SEED = 11
CALLGRIND_MATCHES = 4  # seeds: each played in both seatings, after one warm-up match

#: Played in a fresh interpreter of either tree: only APIs both trees have.
_PLAY = """
import resource, sys
from sim.dungeon import DungeonGame
from sim.schedule import match_seeds
game = DungeonGame()
game.play(1, ("reference", "rusher"))
for seed in match_seeds(2, int(sys.argv[1])):
    game.play(seed, ("reference", "rusher"))
    game.play(seed, ("rusher", "reference"))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


@contextmanager
def baseline_tree() -> Iterator[Path]:
    """A scratch worktree of BASELINE, removed afterwards."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-sim-baseline-"))
    tree = scratch / "tree"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), BASELINE],
        check=True,
        capture_output=True,
    )
    try:
        yield tree
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
            check=False,
            capture_output=True,
        )
        shutil.rmtree(scratch, ignore_errors=True)


def _env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def sim_run(tree: Path, games: int, *extra: str) -> tuple[float, float, str]:
    """Whole-process wall seconds and CPU seconds (the process and its workers) of one
    ``arena sim`` run in ``tree``, and its results JSON."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "results.json"
        command = [
            sys.executable, "-m", "arena", "sim", "dungeon",
            "--strategies", "reference,rusher", "--matches", str(games),
            "--workers", str(WORKERS), "--seed", str(SEED), "--quiet", "--out", str(out),
            *extra,
        ]  # fmt: skip
        started, cpu = time.perf_counter(), _children_cpu()
        subprocess.run(command, cwd=tree, env=_env(tree), check=True, capture_output=True)
        seconds, cpu = time.perf_counter() - started, _children_cpu() - cpu
        results = json.loads(out.read_text())
    results.pop("timing", None)
    return seconds, cpu, json.dumps(results, sort_keys=True)


def peak_rss_mib(tree: Path, matches: int = 2) -> float:
    done = subprocess.run(
        [sys.executable, "-c", _PLAY, str(matches)],
        cwd=tree, env=_env(tree), check=True, capture_output=True, text=True,
    )  # fmt: skip
    return int(done.stdout.split()[-1]) / 1024


def instructions(tree: Path, matches: int) -> int:
    """Instructions callgrind counts for ``python -c _PLAY matches`` (both seatings each)."""
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            [
                "valgrind", "--tool=callgrind", f"--callgrind-out-file={scratch}/out",
                sys.executable, "-c", _PLAY, str(matches),
            ],
            cwd=tree, env=_env(tree), check=True, capture_output=True, text=True,
        )  # fmt: skip
    refs = [line for line in done.stderr.splitlines() if "refs:" in line][-1]
    return int(refs.split()[-1].replace(",", ""))


def main() -> None:
    with baseline_tree() as base:
        trees = {"today": base, "this tree": ROOT}
        # Today's code knows one schedule, the logical steps: this tree plays the same.
        flags = {"today": (), "this tree": ("--schedule", "steps")}
        seconds: dict[str, list[float]] = {name: [] for name in trees}
        cpu: dict[str, list[float]] = {name: [] for name in trees}
        outputs: dict[str, set[str]] = {name: set() for name in trees}
        for round_ in range(ROUNDS):
            order = list(trees) if round_ % 2 == 0 else list(trees)[::-1]
            for name in order:
                elapsed, used, output = sim_run(trees[name], GAMES, *flags[name])
                seconds[name].append(elapsed)
                cpu[name].append(used)
                outputs[name].add(output)
        same = len(outputs["today"] | outputs["this tree"]) == 1
        rates = {name: GAMES / statistics.median(seconds[name]) for name in trees}
        per_cpu = {name: GAMES / statistics.median(cpu[name]) for name in trees}
        memory = {name: peak_rss_mib(tree) for name, tree in trees.items()}
        rows = [
            (name, f"{rates[name]:.1f}", f"{statistics.median(seconds[name]):.1f}",
             f"{per_cpu[name]:.2f}", f"{statistics.median(cpu[name]):.1f}",
             f"{memory[name]:.0f}")
            for name in trees
        ]  # fmt: skip
        print_table(
            f"arena sim dungeon reference,rusher --matches {GAMES} --workers {WORKERS} --seed "
            f"{SEED}: medians of {ROUNDS} alternating whole-process runs; today = {BASELINE}",
            ["code", "matches/s", "wall s", "matches/CPU-s", "CPU s", "peak RSS MiB a worker"],
            rows,
            width=110,
        )
        print(
            f"ratio this tree / today: {rates['this tree'] / rates['today']:.2f}x matches/s "
            f"(wall), {per_cpu['this tree'] / per_cpu['today']:.2f}x matches per CPU-second; "
            f"results JSON identical: {'yes' if same else 'NO'}"
        )
        if os.environ.get("BENCH_SIM_CALLGRIND") == "1":
            per_match = {}
            for name, tree in trees.items():
                warm = instructions(tree, 0)
                full = instructions(tree, CALLGRIND_MATCHES)
                per_match[name] = (full - warm) / (2 * CALLGRIND_MATCHES)
            print_table(
                f"callgrind: instructions per match ({2 * CALLGRIND_MATCHES} matches after a "
                "warm-up, one process)",
                ["code", "instructions per match", "ratio to today"],
                [
                    (name, f"{value / 1e6:.1f}M", f"{value / per_match['today']:.3f}")
                    for name, value in per_match.items()
                ],
            )


if __name__ == "__main__":
    main()
