"""Fair time: does a match's result depend on the machine's load? (docs/fair-time.md)

Reference against rusher, both as external programs (``arena team``, seeded) over sockets,
through the tournament runner (``arena tournament``), BENCH_FAIRTIME_PAIRS (10) seed pairs
(each seed twice, seats swapped), on BENCH_FAIRTIME_NODES (300)-node dungeons, in four runs:

* ``--time cpu`` and ``--time wall``, each
* quiet: one match at a time, nothing else started; and loaded: ``--concurrency``
  BENCH_FAIRTIME_CONCURRENCY (4) with a CPU hog (one spinning process per core) started by
  the benchmark for the run; BENCH_FAIRTIME_RUNS (quiet,loaded) may add ``partial``: one match
  at a time with a spinning process on half the cores (the machine partly busy: the other
  work of a teacher's laptop), and ``background``: one match at a time with a spinning process
  at nice 19 on every core (low-priority jobs that take every core the programs leave: the
  run that missed the target in docs/fair-time.md), each compared with quiet like loaded is.

For each run: reference's score (points per match) with its 95% interval (normal
approximation), the median match's wall time, the machine's 1-minute load average before and
after the run (the machine may be shared: "quiet" is only this benchmark's own load); then, per
mode, the quiet-minus-loaded score difference, whether the intervals overlap, and how many of the
very same matches (same seed, same seats) changed winner between quiet and loaded. That count
includes run-to-run noise (close CPU races, what a team has received when it decides): two quiet
runs of the same seeds change some winners too (docs/fair-time.md).
BENCH_FAIRTIME_MODES (cpu,wall) picks the modes; BENCH_FAIRTIME_SANDBOX (none) the sandbox;
BENCH_FAIRTIME_OUT, a folder, keeps the four tournaments' outputs (results, match logs) there, to
compare a changed match's quiet and loaded logs (``arena replay show``); BENCH_FAIRTIME_CONTROL=1
runs each quiet run twice and counts the matches whose result changed between the two.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common import SettingError, env_number, print_table

PAIRS = env_number("BENCH_FAIRTIME_PAIRS", 10, minimum=1)
NODES = env_number("BENCH_FAIRTIME_NODES", 300, minimum=50)
CONCURRENCY = env_number("BENCH_FAIRTIME_CONCURRENCY", 4, minimum=1)
MODES = os.environ.get("BENCH_FAIRTIME_MODES", "cpu,wall").split(",")
SANDBOX = os.environ.get("BENCH_FAIRTIME_SANDBOX", "none")
KEEP = os.environ.get("BENCH_FAIRTIME_OUT", "")
#: BENCH_FAIRTIME_CONTROL=1: each mode's quiet run is run twice, to count the results that
#: change with no change of load (the noise floor of "matches whose result changed").
CONTROL = env_number("BENCH_FAIRTIME_CONTROL", 0, minimum=0) > 0
RUNS = os.environ.get("BENCH_FAIRTIME_RUNS", "quiet,loaded").split(",")
OTHER_RUNS = ("partial", "background", "loaded")
#: The hog: one busy loop per core, for the loaded runs.
HOG = "while True:\n    pass\n"


def _team(strategy: str, seed: int) -> str:
    command = [
        sys.executable, "-m", "arena", "team", "--host", "{host}", "--port", "{port}",
        "--team", "{team}", "--match", "{match}", "--token", "{token}", "--strategy", strategy,
        "--seed", str(seed),
    ]  # fmt: skip
    return ", ".join(json.dumps(part) for part in command)


def _teams_file(folder: Path) -> Path:
    for name in ("reference", "rusher"):
        (folder / name).mkdir(exist_ok=True)
    text = f"""[tournament]
name = "fair"
games_per_pair = {2 * PAIRS}
seed = 29
match_seconds = 120
connect_seconds = 30
config = {{ nodes = {NODES}, radius = 0.1 }}

[[team]]
name = "reference"
dir = "reference"
command = [{_team("reference", 1)}]

[[team]]
name = "rusher"
dir = "rusher"
command = [{_team("rusher", 2)}]
"""
    path = folder / "teams.toml"
    path.write_text(text)
    return path


def _run(
    teams: Path, out: Path, mode: str, concurrency: int, hogs: int, nice: int = 0
) -> dict[str, Any]:
    spinner = ["nice", "-n", str(nice), sys.executable, "-c", HOG]
    spinning = [subprocess.Popen(spinner, stdin=subprocess.DEVNULL) for _ in range(hogs)]
    try:
        done = subprocess.run(
            [sys.executable, "-m", "arena", "tournament", str(teams), "--out", str(out),
             "--concurrency", str(concurrency), "--time", mode, "--preflight", "off",
             "--sandbox", SANDBOX],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        if done.returncode != 0:
            said = done.stderr.strip().splitlines()
            raise SettingError(f"arena tournament --out {out}: {said[-1] if said else 'failed'}")
    finally:
        for hog in spinning:
            hog.kill()
            hog.wait()
    data: dict[str, Any] = json.loads((out / "results.json").read_text())
    return data


def _scores(data: dict[str, Any]) -> dict[str, float]:
    """Reference's points in each match, by match name (the same name: the same seed, seats)."""
    return {
        match["name"]: match["points"][match["seats"].index("reference")]
        for match in data["matches"]
    }


def _changed(one: dict[str, float], other: dict[str, float]) -> str:
    changed = sum(1 for name in one if one[name] != other.get(name))
    return f"{changed} of {len(one)}"


def _interval(values: list[float]) -> tuple[float, float, float]:
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, mean - half, mean + half


def main() -> None:
    if SANDBOX not in ("none", "bwrap"):
        raise SettingError(f"BENCH_FAIRTIME_SANDBOX={SANDBOX!r}: expected none or bwrap")
    if not MODES or any(mode not in ("cpu", "wall") for mode in MODES):
        raise SettingError(f"BENCH_FAIRTIME_MODES={','.join(MODES)!r}: expected cpu and/or wall")
    if "quiet" not in RUNS or any(run not in (*OTHER_RUNS, "quiet") for run in RUNS):
        raise SettingError(
            f"BENCH_FAIRTIME_RUNS={','.join(RUNS)!r}: expected quiet and any of "
            + ", ".join(OTHER_RUNS)
        )
    cores = os.cpu_count() or 2
    rows, verdicts = [], []
    with contextlib.ExitStack() as stack:
        if KEEP:
            folder = Path(KEEP)
            if folder.exists() and any(folder.iterdir()):
                raise SettingError(f"BENCH_FAIRTIME_OUT={KEEP}: not empty (an earlier run's?)")
            folder.mkdir(parents=True, exist_ok=True)
        else:
            temporary = tempfile.TemporaryDirectory(prefix="bench-fairtime-")
            folder = Path(stack.enter_context(temporary))
        teams = _teams_file(folder)
        for mode in MODES:
            runs: dict[str, dict[str, float]] = {}
            others = [run for run in RUNS if run != "quiet"]
            for run in ["quiet", *(["quiet again"] if CONTROL else []), *others]:
                loaded = run == "loaded"
                hogs = {"loaded": cores, "partial": max(1, cores // 2), "background": cores}
                label = {
                    "loaded": f"loaded (c={CONCURRENCY}, hog)",
                    "partial": f"partial (c=1, {hogs['partial']} hog)",
                    "background": f"background (c=1, {cores} hogs at nice 19)",
                }.get(run, f"{run} (c=1)")
                out = folder / f"{mode}-{run.replace(' ', '-')}"
                before = os.getloadavg()[0]
                data = _run(
                    teams, out, mode, CONCURRENCY if loaded else 1, hogs.get(run, 0),
                    nice=19 if run == "background" else 0,
                )  # fmt: skip
                after = os.getloadavg()[0]
                scores = runs[run] = _scores(data)
                mean, low, high = _interval(list(scores.values()))
                seconds = statistics.median(m["seconds"] for m in data["matches"])
                measured = sum(1 for m in data["matches"] if m.get("time") == mode)
                rows.append([
                    mode, label, len(scores), f"{mean:.3f}", f"[{low:.3f}, {high:.3f}]",
                    f"{seconds:.1f}", measured, f"{before:.1f} -> {after:.1f}",
                ])  # fmt: skip
            quiet = runs["quiet"]
            q = _interval(list(quiet.values()))
            for other in others:
                o = _interval(list(runs[other].values()))
                overlap = q[1] <= o[2] and o[1] <= q[2]
                verdict = [
                    mode, other, f"{q[0] - o[0]:+.3f}", "yes" if overlap else "no",
                    _changed(quiet, runs[other]),
                ]  # fmt: skip
                if CONTROL:
                    verdict.append(_changed(quiet, runs["quiet again"]))
                verdicts.append(verdict)
    print_table(
        f"fair time: reference vs rusher, {PAIRS} seed pairs, {NODES}-node dungeons, "
        f"sandbox {SANDBOX}",
        ["time", "load", "matches", "reference's score", "95% interval", "median match s",
         "matches measured", "load average"],
        rows, width=120,
    )  # fmt: skip
    print_table(
        "quiet vs each other run, per mode (the same matches: same seeds, same seats)",
        ["time", "against", "score quiet - other", "intervals overlap",
         "matches whose result changed"]
        + (["changed, quiet vs quiet again"] if CONTROL else []),
        verdicts, width=120,
    )  # fmt: skip
