"""A real log of each game for the viewer's tests: a dungeon match of the simulator, a Fish game
of a server tournament on virtual time, a Penguins game of the master (its player program
in-process), a Labyrinth game of the server over loopback. Player names may carry HTML, to
check the pages escape them."""

from __future__ import annotations

import contextlib
import io
import random
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

from replay_logs import sim_log

__all__ = ["dungeon_log", "fish_log", "labyrinth_log", "penguins_log"]


def dungeon_log(directory: Path, seed: int = 11) -> Path:
    return sim_log(directory / "match.jsonl", seed=seed)


def fish_log(directory: Path, names: Sequence[str] = ("ann", "bob", "cy", "di", "eve")) -> Path:
    import trio
    import trio.testing

    from server.fish.server import ServerConfig
    from tests.fish_kit import Player, tournament

    config = ServerConfig(call_timeout=1.0, name_timeout=2.0, wait=10.0, holes=3)
    clock = trio.testing.MockClock(autojump_threshold=0)
    trio.run(tournament, [Player(name) for name in names], config, directory, clock=clock)
    return sorted(directory.glob("game-*.jsonl.gz"))[0]


def penguins_log(directory: Path, names: Sequence[str] = ("alice", "bob")) -> Path:
    from client import penguins as player
    from penguins.rules import generate_fish
    from protocol.penguins import parse
    from server.penguins.master import LOG_NAME, host
    from server.sandbox import Outcome

    def run(argv: Sequence[str], cwd: Path, timeout: float) -> Outcome:
        args = [str(cwd / a) if a == "board.txt" else a for a in argv[1:]]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = player.main(args)
        return Outcome(code, stdout=out.getvalue(), seconds=0.01)

    rows, cols = 8, 8
    fish = generate_fish(random.Random(3), rows, cols, 8)
    text = f"{rows} {cols}\n" + "".join(
        " ".join(f"{fish[r * cols + c]}0" for c in range(cols)) + "\n" for r in range(rows)
    )
    # The program is the player module run in-process: any existing executable stands for it.
    commands = [[sys.executable, "strategy=greedy", f"id={name}"] for name in names]
    host(commands, parse(text), 2, directory / "game", run)
    return directory / "game" / LOG_NAME


def labyrinth_log(directory: Path, name: str = "me") -> Path:
    import trio

    from client.labyrinth import Connection, play_online
    from labyrinth.players import astar_move
    from server.labyrinth.server import LabyrinthServer, Settings, serve_labyrinth

    server = LabyrinthServer(Settings(log_dir=directory), seed=6)

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(serve_labyrinth, server)

            def client() -> None:
                with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
                    play_online(Connection(sock), name, "PLAY_RANDOM start=1", astar_move)

            await trio.to_thread.run_sync(client)
            nursery.cancel_scope.cancel()

    trio.run(run)
    (path,) = (directory / "games").glob("*.jsonl.gz")
    return path
