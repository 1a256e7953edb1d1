"""Recipes of one raw log of each other game (Fish, Labyrinth, Penguins), as its server writes it.

Kept in ``tests/golden/logs/`` by ``regenerate.py`` (never overwritten: a kept file is the
evidence that logs of that format still read, tests/test_log_drift.py). Each recipe runs the
installed commands only, on loopback, with fixed seeds and small boards. Times in the logs are
the host's and differ from run to run; nothing compares them.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

try:  # imported as golden.game_logs, or beside regenerate.py run as a script
    from golden.networked import STEP_SECONDS, finished, free_port, started
except ImportError:  # pragma: no cover - the script's own directory is on sys.path
    from networked import STEP_SECONDS, finished, free_port, started  # type: ignore[no-redef]

__all__ = ["GAME_LOGS"]


def fish_game(executable: str, suffix: str = "jsonl") -> bytes:
    """A two-player Fish tournament (one game, seed 3, a 4x4 board): its game log."""
    with tempfile.TemporaryDirectory() as scratch:
        logs = Path(scratch) / "logs"
        port = str(free_port())
        serve = [executable, "fish", "serve", "--port", port, "--log-dir", str(logs)]
        serve += ["--config", "min_players=2", "max_players=2", "seed=3", "wait=5"]
        serve += ["rows=4", "cols=4", "call_timeout=30"]
        with started(serve, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as server:
            assert server.stderr is not None
            next(line for line in server.stderr if b"listening on" in line)
            clients = [executable, "fish", "clients", "2", "--port", port, "--seed", "3"]
            client = subprocess.Popen([*clients, "--names", "ann,bob"], stdout=subprocess.PIPE)
            finished(client)
            server.wait(STEP_SECONDS)
        (game,) = sorted(logs.glob(f"game-*.{suffix}"))
        return game.read_bytes()


def labyrinth_game(executable: str, suffix: str = "jsonl") -> bytes:
    """``trainee`` (astar) against the ASTAR training player, seed 5: the game's log."""
    with tempfile.TemporaryDirectory() as scratch:
        logs = Path(scratch) / "logs"
        port = str(free_port())
        serve = [executable, "labyrinth", "serve", "--port", port, "--seed", "5"]
        serve += ["--move-timeout", "60", "--log-dir", str(logs)]
        connect = [executable, "labyrinth", "connect", "127.0.0.1", port]
        with started(serve, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as server:
            assert server.stdout is not None
            server.stdout.readline()  # it listens
            trainee = [*connect, "--name", "trainee", "--strategy", "astar"]
            trainee += ["--training", "ASTAR"]
            finished(subprocess.Popen(trainee, stdout=subprocess.PIPE))
        (game,) = sorted((logs / "games").glob(f"*.{suffix}"))
        return game.read_bytes()


def penguins_game(executable: str, suffix: str = "jsonl") -> bytes:
    """``arena penguins master``: greedy against random on a 5x5 board of seed 6."""
    bin_dir = os.path.abspath(Path(executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch) / "game"
        command = [executable, "penguins", "master", "--seed", "6", "--rows", "5", "--cols", "5"]
        command += ["--player", "penguins-player strategy=greedy id=g"]
        command += ["--player", "penguins-player strategy=random id=r seed=1"]
        command += ["--sandbox", "none", "--workdir", str(work), "--timeout", "30"]
        done = subprocess.run(command, capture_output=True, env=env, timeout=STEP_SECONDS)
        if done.returncode != 0:
            raise RuntimeError(f"penguins master: exit {done.returncode}: {done.stderr!r}")
        # The master logs each command as resolved: keep no machine path in the repository.
        return (work / f"log.{suffix}").read_bytes().replace(f"{bin_dir}/".encode(), b"")


def penguins_shared(executable: str) -> bytes:
    """The kept old Penguins game written again by the master's writer of the shared format
    (``host`` logs each command as resolved, a machine path: the kept game's entries have none).
    Unsigned, every time 0.0."""
    from replay.penguinslog import PenguinsGameLog
    from server.penguins.master import LOG_NAME

    del executable
    kept = Path(__file__).resolve().parent / "logs" / "v0-penguins-log-6.jsonl"
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / LOG_NAME
        with path.open("wb") as stream:
            writer = PenguinsGameLog(stream, clock=lambda: 0.0, version=version(), seed=6)
            for line in kept.read_text(encoding="utf-8").splitlines():
                writer(json.loads(line))
            writer.close()
        return path.read_bytes()


def version() -> str:
    from replay.chainlog import software_version

    return software_version()


#: (kept file name, recipe): the other games' writers before they shared the format (v0), then
#: the shared format's (v2, the dungeon's digest log's schema number).
GAME_LOGS: tuple[tuple[str, Callable[[str], bytes]], ...] = (
    ("v0-fish-game-3.jsonl", fish_game),
    ("v0-labyrinth-game-5.jsonl", labyrinth_game),
    ("v0-penguins-log-6.jsonl", penguins_game),
    ("v2-fish-game-3.jsonl.gz", functools.partial(fish_game, suffix="jsonl.gz")),
    ("v2-labyrinth-game-5.jsonl.gz", functools.partial(labyrinth_game, suffix="jsonl.gz")),
    ("v2-penguins-log-6.jsonl.gz", penguins_shared),
)
