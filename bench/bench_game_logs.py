"""The other games' logs, old format against the shared one, side by side (``python -m bench
logs`` prints this table after the dungeon's).

One game of each is played once: Fish (two minimax1 clients against the server over memory
streams, on virtual time, an 8x8 board), Labyrinth (the server's table with the ASTAR training
player on both seats: its records are what the server logs) and Penguins (the game master
running two ``penguins-player`` programs unsandboxed on a 10x10 board). The game's records are
then written again, to a file, by the writer each game used before (JSON Lines) and by the
shared format's writer (``replay/chainlog.py``, gzip, signed), and each is read back, verified
(the rules re-run) and rendered (the viewer's page).
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import median_seconds

KEY = b"k" * 64


def fish_records(directory: Path) -> list[dict[str, Any]]:
    """A two-player Fish game's records (the old format's, regenerated from the server's log)."""
    import trio
    import trio.testing

    from client.fish import play
    from fish.gamelog import read_jsonl
    from server.fish.server import FishServer, ServerConfig

    config = ServerConfig(min_players=2, max_players=2, rows=8, cols=8, wait=5.0, seed=4)
    server = FishServer(config, directory)

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            for index, name in enumerate(("ann", "bob")):
                ours, theirs = trio.testing.memory_stream_pair()
                nursery.start_soon(server.handle_connection, ours)
                nursery.start_soon(play, theirs, name, "minimax1", index)
            await server.run()

    trio.run(run, clock=trio.testing.MockClock(autojump_threshold=0))
    (path,) = sorted(directory.glob("game-*.jsonl.gz"))
    return read_jsonl(path)


def labyrinth_records() -> list[dict[str, Any]]:
    """A Labyrinth game of two ASTAR players, seed 8: the header and records the server logs."""
    from labyrinth.generation import generate
    from labyrinth.players import astar_move
    from labyrinth.rules import PROFILES
    from labyrinth.table import Record, Table

    lab = generate(8, PROFILES["spec"])
    table = Table("spec-1-s8", lab, ("ASTAR", "ASTAR2"), (astar_move, astar_move))
    header = {"type": "game", "format": "labyrinth-2017/1", "game": "spec-1-s8", "rules": "spec",
              "seed": 8, "width": lab.width, "height": lab.height, "maze": lab.maze_text(),
              "players": ["ASTAR", "ASTAR2"], "bots": [True, True],
              "max_turns": lab.config.max_turns, "timeout": 10.0}  # fmt: skip
    records: list[dict[str, Any]] = [header]
    effects = table.start()
    while True:
        records += [e.entry.to_json() for e in effects if isinstance(e, Record)]
        if table.over:
            return records
        effects = table.bot_turn()


def penguins_records(directory: Path) -> list[dict[str, Any]]:
    """greedy against random, 10x10, by the game master (programs unsandboxed)."""
    from penguins.rules import generate_fish, penguins_each
    from protocol.penguins import BoardFile, parse
    from replay.penguinslog import read_penguins
    from server.penguins.master import LOG_NAME, host, sandbox_runner

    player = str(Path(sys.executable).with_name("penguins-player"))
    each = penguins_each(2, 10, 10)
    fish = generate_fish(random.Random(6), 10, 10, 2 * each)
    board = parse(BoardFile(10, 10, fish, [0] * len(fish), []).render())
    commands = [[player, "strategy=greedy", "id=g"], [player, "strategy=random", "id=r"]]
    host(commands, board, each, directory, sandbox_runner("none"), 30.0)
    record = read_penguins(directory / LOG_NAME)
    return [record.header, *record.records]


def old_bytes(game: str, records: list[dict[str, Any]], directory: Path) -> bytes:
    """The records as the game's old writer wrote them, to a file: fish/gamelog.py's JsonlLog
    (flushed per line), the Labyrinth server's json.dumps (buffered), the Penguins master's
    json.dumps ensure_ascii=False (flushed per line)."""
    path = directory / f"{game}-old.jsonl"
    with path.open("w", encoding="utf-8") as stream:
        for record in records:
            if game == "fish":
                stream.write(json.dumps(record, separators=(",", ":"), default=repr) + "\n")
                stream.flush()
            elif game == "labyrinth":
                stream.write(json.dumps({k: v for k, v in record.items() if k != "t"}) + "\n")
            else:
                line = {k: v for k, v in record.items() if k != "t"}
                stream.write(json.dumps(line, ensure_ascii=False) + "\n")
                stream.flush()
    return path.read_bytes()


def shared_bytes(game: str, records: list[dict[str, Any]], directory: Path) -> bytes:
    """The records written again by the game's writer of the shared format (signed)."""
    from replay.fishlog import FishGameLog
    from replay.labyrinthlog import LabyrinthGameLog
    from replay.penguinslog import PenguinsGameLog

    path = directory / f"{game}.jsonl.gz"
    if game == "fish":
        fish = FishGameLog(path, time.monotonic, KEY, version="bench", seed=4)
        for record in records:
            fields = {k: v for k, v in record.items() if k not in ("t", "event")}
            fish.write(record["event"], **fields)
        fish.close()
    elif game == "labyrinth":
        labyrinth = LabyrinthGameLog(path, records[0], clock=time.monotonic, key=KEY)
        for record in records[1:]:
            labyrinth.write({k: v for k, v in record.items() if k != "t"})
        labyrinth.close()
    else:
        with path.open("wb") as stream:
            penguins = PenguinsGameLog(stream, clock=time.monotonic, key=KEY, seed=6)
            for record in records:
                penguins({k: v for k, v in record.items() if k != "t"})
            penguins.close()
    return path.read_bytes()


def _render(game: str, path: Path) -> object:
    if game == "fish":
        from fish.replay import render_html as fish_page

        return fish_page(path)
    if game == "labyrinth":
        from labyrinth.replay import read_game_log
        from labyrinth.replay import render_html as labyrinth_page

        return labyrinth_page(read_game_log(str(path)))
    from penguins.replay import render_html as penguins_page

    return penguins_page(path)


def _verify(path: Path) -> None:
    from replay.games import read_game, verify_game

    verdict = verify_game(read_game(path))
    if not verdict.ok:
        raise AssertionError(f"{path}: {verdict.line}")


def _moves(game: str, records: list[dict[str, Any]]) -> int:
    kinds = {"fish": ("reply", "failure"), "labyrinth": ("move",), "penguins": ("call",)}[game]
    return sum(1 for r in records if r.get("event", r.get("type")) in kinds)


def rows() -> list[list[str]]:
    """The table's rows: for each game, the old format then the shared one."""
    out = []
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        (directory / "fish").mkdir()
        sources: list[tuple[str, Callable[[], list[dict[str, Any]]]]] = [
            ("fish", lambda: fish_records(directory / "fish")),
            ("labyrinth", labyrinth_records),
            ("penguins", lambda: penguins_records(directory / "penguins")),
        ]
        for game, source in sources:
            records = source()
            moves = max(1, _moves(game, records))
            old = old_bytes(game, records, directory)
            new = shared_bytes(game, records, directory)
            for kind, data in (("old", old), ("shared", new)):
                suffix = ".jsonl" if kind == "old" else ".jsonl.gz"
                path = directory / f"{game}-{kind}-read{suffix}"
                path.write_bytes(data)
                writer = old_bytes if kind == "old" else shared_bytes
                write = median_seconds(
                    lambda w=writer, g=game, r=records: w(g, r, directory), repeat=5
                )
                verify = median_seconds(lambda p=path: _verify(p), repeat=5, warmup=1)
                render = median_seconds(lambda g=game, p=path: _render(g, p), repeat=5, warmup=1)
                out.append([
                    f"{game} ({moves} moves)" if kind == "old" else "", kind,
                    f"{len(data) / moves:,.0f}", f"{len(old) / len(data):.1f}x",
                    f"{write / moves * 1e6:,.0f}", f"{verify * 1000:,.1f}",
                    f"{render * 1000:,.1f}",
                ])  # fmt: skip
    return out


HEADERS = ["game", "format", "B/move", "old/this", "write us/move", "verify ms", "read+render ms"]
TITLE = (
    "the other games' logs: old format (each game's own JSON Lines) against the shared one "
    "(gzip, chained, signed; the rules re-run to verify and to read); a move: a Fish answer, a "
    "Labyrinth move, a Penguins call"
)
