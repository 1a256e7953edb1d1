"""A naive single-file asyncio dungeon server, written only as the benchmark's point of comparison.

What a competent first version looks like: one coroutine per socket reading lines, a dict of
matches by name, the same rules engine and codec as the real server, every message encoded and
written as it comes, the match log written line by line with a flush each. No outboxes, no
actor, no limits. ``python -m bench.naive_server LOG_DIR CPU`` prints its port and serves until
killed. Named matches only (the benchmark's bots always name theirs).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import IO

from dungeon.config import DEFAULT_RULES
from dungeon.engine import AgentId, Disconnect, Match, Output, Request
from protocol.codec import NEED_DATA, Codec, RemoteProtocolError
from protocol.encoding import encode
from protocol.errors import code_of
from protocol.messages import ClientMessage, Error, Move, Solution, Start
from replay.matchlog import MatchLogWriter, software_version


class Game:
    def __init__(self, name: str) -> None:
        self.name = name
        self.seats: dict[AgentId, asyncio.StreamWriter] = {}
        self.match: Match | None = None
        self.log: MatchLogWriter | None = None
        self.file: IO[str] | None = None


class NaiveServer:
    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.games: dict[str, Game] = {}
        self.seed = 1

    def send(self, game: Game, output: Output) -> None:
        if game.log is not None:
            game.log.output(output)
        for outbound in output.messages:
            writer = game.seats.get(outbound.to)
            if writer is not None and not writer.is_closing():
                writer.write(encode(outbound.message))
        if game.match is not None and game.match.is_over:
            self.finish(game)

    def finish(self, game: Game) -> None:
        if game.log is not None and game.file is not None:
            game.log.close(reason="over")
            game.file.close()
            game.log = None
        for writer in game.seats.values():
            writer.close()
        self.games.pop(game.name, None)

    def begin(self, game: Game) -> None:
        self.seed += 1
        game.match = Match(self.seed, DEFAULT_RULES)
        game.file = open(self.log_dir / f"{game.name}.jsonl", "w", encoding="utf-8")  # noqa: SIM115
        game.log = MatchLogWriter(game.file, clock=time.monotonic)
        game.log.header(
            seed=self.seed,
            config=DEFAULT_RULES.to_dict(),
            version=software_version(),
            match=game.name,
            source="server",
        )
        self.send(game, game.match.begin())

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        codec = Codec(ClientMessage)
        game: Game | None = None
        slot: AgentId | None = None
        try:
            while line := await reader.readline():
                codec.receive_data(line)
                try:
                    message = codec.next_message()
                except RemoteProtocolError as error:
                    writer.write(encode(Error(code_of(error), error.text)))
                    continue
                if message is NEED_DATA:
                    continue
                if isinstance(message, Start) and game is None and message.match:
                    game = self.games.setdefault(message.match, Game(message.match))
                    slot = AgentId(message.team, message.agent)
                    game.seats[slot] = writer
                    if len(game.seats) == 12:
                        self.begin(game)
                elif isinstance(message, Move | Solution) and game and game.match and slot:
                    request = Request(slot, message)
                    if game.log is not None:
                        game.log.input(request)
                    self.send(game, game.match.apply(request))
        except (ConnectionError, ValueError):
            pass
        finally:
            if game is not None and slot is not None and game.match is not None:
                game.seats.pop(slot, None)
                if not game.match.is_over and not any(s.team == slot.team for s in game.seats):
                    if game.log is not None:
                        game.log.input(Disconnect(slot))
                    self.send(game, game.match.apply(Disconnect(slot)))
            writer.close()


async def main(log_dir: str) -> None:
    naive = NaiveServer(Path(log_dir))
    server = await asyncio.start_server(naive.handle, "127.0.0.1", 0, limit=(1 << 20) + 2)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    os.sched_setaffinity(0, {int(sys.argv[2])})
    asyncio.run(main(sys.argv[1]))
