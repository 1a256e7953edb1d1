"""Helpers for the Fish server tests: a tournament over memory streams, on trio's clock."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import trio
import trio.testing

from client.fish import ClientResult, play
from fish.gamelog import read_jsonl
from server.fish.server import FishServer, ServerConfig, Standing


@dataclass(frozen=True)
class Player:
    name: str
    misbehaviour: str | None = None
    arrives: float = 0.0  # seconds after the server starts
    strategy: str = "minimax1"


@dataclass
class Run:
    standing: Standing | None
    results: dict[str, ClientResult]
    log_dir: Path

    def tournament_log(self) -> list[dict[str, object]]:
        return read_jsonl(self.log_dir / "tournament.jsonl")

    def started_at(self) -> float:
        return float(next(e["t"] for e in self.tournament_log() if e["event"] == "started"))  # type: ignore[arg-type]


async def tournament(players: list[Player], config: ServerConfig, log_dir: Path) -> Run:
    """Run the server with these clients over memory streams; each client's result by name
    (a duplicate name keeps the last)."""
    server = FishServer(config, log_dir)
    results: dict[str, ClientResult] = {}

    async def client(index: int, player: Player) -> None:
        await trio.sleep(player.arrives)
        ours, theirs = trio.testing.memory_stream_pair()
        nursery.start_soon(server.handle_connection, ours)
        results[player.name] = await play(
            theirs, player.name, player.strategy, index, player.misbehaviour
        )

    async with trio.open_nursery() as nursery:
        for index, player in enumerate(players):
            nursery.start_soon(client, index, player)
        standing = await server.run()
    return Run(standing, results, log_dir)
