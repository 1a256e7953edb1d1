"""Regenerate the golden files: run this only on purpose, when behaviour is meant to change.

    .venv/bin/python tests/golden/regenerate.py

Records, through the installed ``arena`` command only (so any reshuffle of the packages behind it
is checked): headless dungeon match logs for fixed seeds (wall times and hashes left out, the
dungeon's geometry as a digest), the results JSON of ``arena sim`` for all four games (its
``timing`` key left out), the course harnesses' outputs on the shared Fish fixtures, and play
over loopback sockets (``networked.py``: a Fish tournament with misbehaving clients, a Labyrinth
server's games).
``tests/test_golden.py`` runs the same recipes and compares byte for byte. A change of golden
files is a change of behaviour: say why in its commit.

The dungeon's recipes run with the compiled core (``dungeon._fastcore``) when it is built, and
the match logs record the assignments its solver chose; run this only where it is built. The
pure path (``DUNGEON_FASTCORE=0``, or no extension) gives the same results JSON and the same
logs but for another optimal assignment in some ``solution`` lines, which the tests check.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

try:  # run as a script (tests/golden/regenerate.py) or imported as golden.regenerate
    from golden import networked
    from golden.game_logs import GAME_LOGS
except ImportError:  # pragma: no cover - the script's own directory is on sys.path
    import networked  # type: ignore[no-redef]
    from game_logs import GAME_LOGS  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures" / "fish-course"
ARENA = str(Path(sys.executable).with_name("arena"))

#: (game, strategies, matches, seed, config overrides): every run is small and fixed.
SIM_RUNS: tuple[tuple[str, str, int, int, tuple[str, ...]], ...] = (
    ("dungeon", "classic,rusher", 4, 3, ()),
    ("dungeon", "random,rusher", 2, 8, ("nodes=300", "radius=0.1")),
    ("fish", "minimax1,greedy,random", 4, 5, ()),
    ("penguins", "alphabeta,greedy,random", 4, 6, ()),
    ("labyrinth", "rotator,astar,random", 4, 7, ()),
)
#: Headless dungeon matches whose whole logs are recorded.
LOG_RUNS: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("classic,rusher", 11, ("nodes=300", "radius=0.1")),
    ("rusher,random", 12, ("nodes=200", "radius=0.12")),
)


#: The environment variable that switches the compiled core off (dungeon/fastcore.py).
FASTCORE_SWITCH = "DUNGEON_FASTCORE"


def fastcore_built() -> bool:
    """Whether the compiled core can be imported (then the recipes' matches use it)."""
    try:
        importlib.import_module("dungeon._fastcore")
    except ImportError:
        return False
    return True


def arena(*args: str, stdin: bytes | None = None, fastcore: bool = True) -> bytes:
    """``arena ARGS``' standard output; ``fastcore=False`` runs it with DUNGEON_FASTCORE=0, and
    otherwise the extension is used when built (whatever the caller's environment says)."""
    env = {k: v for k, v in os.environ.items() if k != FASTCORE_SWITCH}
    if not fastcore:
        env[FASTCORE_SWITCH] = "0"
    done = subprocess.run([ARENA, *args], input=stdin, capture_output=True, check=False, env=env)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"arena {' '.join(args)}: exit {done.returncode}: {done.stderr!r}")
    return done.stdout


def sim_results(
    game: str,
    strategies: str,
    matches: int,
    seed: int,
    config: tuple[str, ...],
    *,
    fastcore: bool = True,
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
            fastcore=fastcore,
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


def match_logs(
    strategies: str, seed: int, config: tuple[str, ...], *, fastcore: bool = True
) -> str:
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
            "--log-format",
            "full",
            "--config",
            *config,
            fastcore=fastcore,
        )
        parts = []
        for path in sorted(logs.iterdir()):
            lines = path.read_text().splitlines()
            parts.append(f"# {path.name}\n" + "".join(condensed_line(x) + "\n" for x in lines))
    return "".join(parts)


#: Raw match logs of each log format the landed writer ever wrote, kept in ``logs/`` as records:
#: every later ``arena`` must verify and render them (tests/test_log_drift.py). Written by the
#: recipe of the format current when each was added, and never overwritten: an old format's
#: file is the evidence that logs of that format still read.
FORMAT_LOG_DIR = HERE / "logs"
#: (file name, extra flags of ``arena sim``): the formats today's writer can produce.
FORMAT_LOGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("v1-full-reference-rusher-21.jsonl", ("--log-format", "full")),
    ("v1-compact-reference-rusher-21.jsonl", ("--log-format", "compact")),
    ("v2-digest-reference-rusher-21.jsonl.gz", ("--log-format", "digest")),
)


def format_log(flags: tuple[str, ...]) -> bytes:
    """One raw dungeon log (the first of ``arena sim``'s pair), written with ``flags``."""
    with tempfile.TemporaryDirectory() as scratch:
        logs = Path(scratch) / "logs"
        arena(
            "sim", "dungeon", "--strategies", "reference,rusher", "--matches", "1",
            "--seed", "21", "--workers", "1", "--quiet", "--logs", str(logs),
            "--out", str(Path(scratch) / "results.json"),
            "--config", "nodes=60", "radius=0.25", "draw_steps=60", *flags,
        )  # fmt: skip
        return sorted(logs.iterdir())[0].read_bytes()


def write_format_logs() -> None:
    """Add the raw log of every current format not yet kept (an existing one is left alone)."""
    FORMAT_LOG_DIR.mkdir(exist_ok=True)
    for name, flags in FORMAT_LOGS:
        target = FORMAT_LOG_DIR / name
        if not target.exists():
            target.write_bytes(format_log(flags))
            print(f"wrote tests/golden/logs/{name}")
    for name, recipe in GAME_LOGS:
        target = FORMAT_LOG_DIR / name
        if not target.exists():
            target.write_bytes(recipe(ARENA))
            print(f"wrote tests/golden/logs/{name}")


def harness_outputs() -> str:
    outputs = {}
    for case in sorted(FIXTURES.glob("*/*-in.json")):
        name = f"{case.parent.name}/{case.name}"
        outputs[name] = arena("fish", case.parent.name, stdin=case.read_bytes()).decode()
    return json.dumps(outputs, indent=1, sort_keys=True) + "\n"


def goldens(*, fastcore: bool = True, only_dungeon: bool = False) -> dict[str, str]:
    """File name -> content, for every golden file (``only_dungeon``: the dungeon's, the only
    ones the compiled core takes part in; ``fastcore=False``: played with it switched off)."""
    files = {}
    for game, strategies, matches, seed, config in SIM_RUNS:
        if only_dungeon and game != "dungeon":
            continue
        name = f"sim-{game}-{strategies.replace(',', '-')}-{seed}.json"
        files[name] = sim_results(game, strategies, matches, seed, config, fastcore=fastcore)
    for strategies, seed, config in LOG_RUNS:
        files[f"log-{strategies.replace(',', '-')}-{seed}.jsonl"] = match_logs(
            strategies, seed, config, fastcore=fastcore
        )
    if not only_dungeon:
        files["fish-harnesses.json"] = harness_outputs()
        files["net-fish-tournament.txt"] = networked.fish_tournament(ARENA, arena)
        files["net-labyrinth-day.txt"] = networked.labyrinth_day(ARENA, arena)
    return files


def main() -> int:
    if not fastcore_built():
        print(
            "dungeon._fastcore is not built: the match logs record its solver's assignments, "
            "so regenerate where it is (pip install -e . with a C compiler)",
            file=sys.stderr,
        )
        return 2
    for name, content in goldens().items():
        (HERE / name).write_text(content)
        print(f"wrote tests/golden/{name}")
    write_format_logs()
    return 0


if __name__ == "__main__":
    sys.exit(main())
