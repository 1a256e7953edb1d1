"""Labyrinth interop runs with the course's public server (CodingGameServer, 2017 protocol).

    python -m bench.labyrinth_interop client [--games 20]   our client on the public server
    python -m bench.labyrinth_interop cclient [--games 10]  our C client (client/labyrinth_c,
                                                           built on the fetched C API) on ours

The public server and its C API come from a copy of CodingGameServer named by ``--cgs DIR`` or
``CGS_DIR``; its Python by ``--cgs-python PATH`` or ``CGS_PYTHON`` (default: this Python). When
they are absent the run prints why in one line and exits 0 (skipped). Servers are started on
free loopback ports and stopped at the end.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.common import print_table
from client.labyrinth import (
    Connection,
    RulesDisagreement,
    ServerError,
    play_online,
)
from labyrinth.rotator import Rotator
from protocol.framing import RemoteProtocolError

TRAININGS = ["DO_NOTHING", "ASTAR", "PLAY_RANDOM", "PLAY_RANDOM rotate=false"]


def cgs_from_env() -> tuple[Path, Path] | None:
    """CodingGameServer's copy and its Python, from CGS_DIR and CGS_PYTHON; None when unset."""
    folder = os.environ.get("CGS_DIR")
    if not folder:
        return None
    return Path(folder), Path(os.environ.get("CGS_PYTHON", sys.executable))


C_CLIENT = Path(__file__).resolve().parent.parent / "client" / "labyrinth_c" / "client.c"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[bytes], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        time.sleep(0.2)
    raise RuntimeError(f"nothing listens on port {port} after {seconds} s")


@contextlib.contextmanager
def running(command: list[str], port: int, cwd: Path | None = None) -> Iterator[None]:
    with running_pid(command, port, cwd):
        yield


@contextlib.contextmanager
def running_pid(command: list[str], port: int, cwd: Path | None = None) -> Iterator[int]:
    """Run a server process until the block ends, once it listens on ``port``; its pid."""
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_for_port(port, process)
            yield process.pid
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def client_run(games: int, cgs_dir: Path, cgs_python: Path) -> int:
    if not (cgs_dir / "runCGS.py").exists() or not cgs_python.exists():
        print(f"skipped: no CodingGameServer at {cgs_dir} (or no {cgs_python})")
        return 0
    port, web = free_port(), free_port()
    command = [str(cgs_python), "runCGS.py", "Labyrinth", "-H", "127.0.0.1", "-p", str(port)]
    command += ["-w", str(web), "--dev", "--no-email"]
    tally: dict[str, collections.Counter[str]] = {t: collections.Counter() for t in TRAININGS}
    moves: dict[str, list[float]] = collections.defaultdict(list)
    with running(command, port, cwd=cgs_dir):
        for index in range(games):
            for training in TRAININGS:
                bot = Rotator()
                sock = socket.create_connection(("127.0.0.1", port), timeout=60)
                name = f"arena{index}_{random.Random(index).randrange(1 << 20)}"
                start = time.perf_counter()
                try:
                    result = play_online(Connection(sock), name, training, bot.choose)
                    outcome = "won" if result.won else "lost"
                    tally[training][result.rules] += 1
                    moves[training].append((time.perf_counter() - start) / max(result.moves, 1))
                except RulesDisagreement:
                    outcome = "disagreement"
                except (OSError, RemoteProtocolError, ServerError):
                    outcome = "protocol error"
                finally:
                    sock.close()
                tally[training][outcome] += 1
    rows = []
    for training, counts in tally.items():
        played = sum(counts[k] for k in ("won", "lost", "disagreement", "protocol error"))
        rows.append(
            [
                training,
                played,
                counts["won"],
                f"{counts['won'] / max(played, 1):.0%}",
                counts["lost"],
                counts["disagreement"],
                counts["protocol error"],
                counts["cgs2017"],
            ]
        )
    columns = ["training", "games", "won", "win rate", "lost", "disagree", "proto err", "cgs2017"]
    print_table("our client on CodingGameServer 9f109a7", columns, rows, width=110)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.labyrinth_interop")
    parser.add_argument("run", choices=["client", "cclient"])
    parser.add_argument("--games", type=int, default=20, help="games per opponent (20)")
    parser.add_argument("--cgs", default=os.environ.get("CGS_DIR"), help="CodingGameServer's copy")
    parser.add_argument(
        "--cgs-python", default=os.environ.get("CGS_PYTHON", sys.executable), help="its Python"
    )
    args = parser.parse_args(argv)
    if not args.cgs:
        print("skipped: no CodingGameServer copy (give --cgs DIR or set CGS_DIR)")
        return 0
    if args.run == "client":
        return client_run(args.games, Path(args.cgs), Path(args.cgs_python))
    from bench.labyrinth_cclient import cclient_run

    return cclient_run(args.games, Path(args.cgs), C_CLIENT)


if __name__ == "__main__":
    sys.exit(main())
