"""Regenerate the golden files: run this only on purpose, when behaviour is meant to change.

    .venv/bin/python tests/golden/regenerate.py

Records, through the installed ``arena`` command only (so any reshuffle of the packages behind it
is checked): headless dungeon match logs for fixed seeds (wall times and hashes left out, the
dungeon's geometry as a digest), the results JSON of ``arena sim`` for all four games (its
``timing`` key left out), and the course harnesses' outputs on the shared Fish fixtures.
``tests/test_golden.py`` runs the same recipes and compares byte for byte. A change of golden
files is a change of behaviour: say why in its commit.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures" / "fish-course"
ARENA = str(Path(sys.executable).with_name("arena"))

#: (game, strategies, matches, seed, config overrides): every run is small and fixed.
SIM_RUNS: tuple[tuple[str, str, int, int, tuple[str, ...]], ...] = (
    ("dungeon", "reference,rusher", 4, 3, ()),
    ("dungeon", "random,rusher", 2, 8, ("nodes=300", "radius=0.1")),
    ("fish", "minimax1,greedy,random", 4, 5, ()),
    ("penguins", "alphabeta,greedy,random", 4, 6, ()),
    ("labyrinth", "rotator,astar,random", 4, 7, ()),
)
#: Headless dungeon matches whose whole logs are recorded.
LOG_RUNS: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("reference,rusher", 11, ("nodes=300", "radius=0.1")),
    ("rusher,random", 12, ("nodes=200", "radius=0.12")),
)


def arena(*args: str, stdin: bytes | None = None) -> bytes:
    done = subprocess.run([ARENA, *args], input=stdin, capture_output=True, check=False)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"arena {' '.join(args)}: exit {done.returncode}: {done.stderr!r}")
    return done.stdout


def sim_results(
    game: str, strategies: str, matches: int, seed: int, config: tuple[str, ...]
) -> str:
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "results.json"
        extra = ["--config", *config] if config else []
        if game == "dungeon":
            extra += ["--schedule", "steps"]  # recorded before the timed schedule existed
        arena(
            "sim",
            game,
            "--strategies",
            strategies,
            "--matches",
            str(matches),
            "--seed",
            str(seed),
            "--workers",
            "1",
            "--quiet",
            "--out",
            str(out),
            *extra,
        )
        results = json.loads(out.read_text())
    results.pop("timing", None)
    return json.dumps(results, indent=1, sort_keys=True) + "\n"


def condensed_line(line: str) -> str:
    record = json.loads(line)
    for key in ("t", "hash", "prev"):
        record.pop(key, None)
    message = record.get("message")
    if isinstance(message, dict) and message.get("type") == "dungeon":
        geometry = json.dumps([message.pop("nodes"), message.pop("edges")]).encode()
        message["geometry_sha256"] = hashlib.sha256(geometry).hexdigest()
    return json.dumps(record, sort_keys=True)


def match_logs(strategies: str, seed: int, config: tuple[str, ...]) -> str:
    with tempfile.TemporaryDirectory() as scratch:
        logs = Path(scratch) / "logs"
        arena(
            "sim",
            "dungeon",
            "--strategies",
            strategies,
            "--matches",
            "1",
            "--seed",
            str(seed),
            "--workers",
            "1",
            "--quiet",
            "--logs",
            str(logs),
            "--schedule",
            "steps",
            "--config",
            *config,
        )
        parts = []
        for path in sorted(logs.iterdir()):
            lines = path.read_text().splitlines()
            parts.append(f"# {path.name}\n" + "".join(condensed_line(x) + "\n" for x in lines))
    return "".join(parts)


def harness_outputs() -> str:
    outputs = {}
    for case in sorted(FIXTURES.glob("*/*-in.json")):
        name = f"{case.parent.name}/{case.name}"
        outputs[name] = arena("fish", case.parent.name, stdin=case.read_bytes()).decode()
    return json.dumps(outputs, indent=1, sort_keys=True) + "\n"


def goldens() -> dict[str, str]:
    """File name -> content, for every golden file."""
    files = {}
    for game, strategies, matches, seed, config in SIM_RUNS:
        name = f"sim-{game}-{strategies.replace(',', '-')}-{seed}.json"
        files[name] = sim_results(game, strategies, matches, seed, config)
    for strategies, seed, config in LOG_RUNS:
        files[f"log-{strategies.replace(',', '-')}-{seed}.jsonl"] = match_logs(
            strategies, seed, config
        )
    files["fish-harnesses.json"] = harness_outputs()
    return files


def main() -> int:
    for name, content in goldens().items():
        (HERE / name).write_text(content)
        print(f"wrote tests/golden/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
