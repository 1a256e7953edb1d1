"""Helpers for the server and client tests: a raw protocol client and a small rules config."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio
import trio.testing

from dungeon.config import RulesConfig
from dungeon.engine import AGENTS, AgentId
from protocol.codec import NEED_DATA, Codec
from protocol.encoding import encode
from protocol.messages import Dungeon, Message, ServerMessage, Start
from server.app import Server, limits_for

#: A small dungeon (150 nodes) so full matches take a fraction of a second.
SMALL = RulesConfig(nodes=150, radius=0.16)


class RawAgent:
    """One socket spoken to line by line, as a hand-written client would."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.codec = Codec(ServerMessage)
        self.received: list[ServerMessage] = []

    async def send(self, message: Message | bytes) -> None:
        data = message if isinstance(message, bytes) else encode(message)
        await self.stream.send_all(data)

    async def receive(self) -> ServerMessage | None:
        """The next message, or None once the server has closed the socket."""
        while True:
            message = self.codec.next_message()
            if message is not NEED_DATA:
                self.received.append(message)  # type: ignore[arg-type]
                return message  # type: ignore[return-value]
            if self.codec.eof:
                return None
            try:
                data = await self.stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                data = b""
            self.codec.receive_data(data)

    async def receive_a(self, kind: type[Any]) -> Any:
        """Skip messages up to the next one of ``kind`` (fails at end of stream)."""
        while True:
            message = await self.receive()
            assert message is not None, f"socket closed while waiting for {kind.__name__}"
            if isinstance(message, kind):
                return message

    async def until_closed(self) -> list[ServerMessage]:
        """Every message up to the server closing the socket."""
        rest = []
        while (message := await self.receive()) is not None:
            rest.append(message)
        return rest

    async def aclose(self) -> None:
        await self.stream.aclose()


@asynccontextmanager
async def running_server(**options: Any) -> AsyncIterator[tuple[Server, trio.Nursery]]:
    """A :class:`Server` fed in-memory streams; shut down (matches drawn) on exit."""
    options.setdefault("config", SMALL)
    options.setdefault("seed", 2026)  # tests are reproducible: the same dungeons every run
    outbox = options.pop("outbox_size", None)
    limits = limits_for(options["config"]).replace(
        linger_seconds=0.0,  # memory streams lose nothing to a reset: no need to wait
        **({} if outbox is None else {"outbox_messages": outbox}),
    )
    options.setdefault("limits", limits)
    server = Server(**options)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        yield server, nursery
        server.shutdown()


def connect_memory(server: Server, nursery: trio.Nursery, *, lockstep: bool = False) -> RawAgent:
    """A client stream served by ``server`` (``lockstep``: the server's writes wait for reads)."""
    pair = trio.testing.lockstep_stream_pair if lockstep else trio.testing.memory_stream_pair
    client, server_side = pair()
    nursery.start_soon(server.handle, server_side)
    return RawAgent(client)


async def join_all(
    agents: dict[AgentId, RawAgent], match: str | None = None
) -> dict[AgentId, Dungeon]:
    """Send the twelve starts, then read each agent's `dungeon`."""
    for slot, agent in agents.items():
        await agent.send(Start(team=slot.team, agent=slot.agent, match=match))
    return {slot: await agent.receive_a(Dungeon) for slot, agent in agents.items()}


async def memory_match(
    server: Server, nursery: trio.Nursery, match: str | None = None
) -> tuple[dict[AgentId, RawAgent], dict[AgentId, Dungeon]]:
    """Twelve raw agents in one begun match."""
    agents = {slot: connect_memory(server, nursery) for slot in AGENTS}
    return agents, await join_all(agents, match)


def neighbour(dungeon: Dungeon, node: int, *, avoid: set[int] = frozenset()) -> int:  # type: ignore[assignment]
    """Some node adjacent to ``node`` (not in ``avoid``) that an agent of this dungeon's team
    may move to: never the enemy's start or shrine, where a move is an error."""
    enemy = 1 - dungeon.team
    avoid = {*avoid, dungeon.start[enemy], dungeon.shrine[enemy]}
    for u, v in dungeon.edges:
        for here, there in ((u, v), (v, u)):
            if here == node and there not in avoid:
                return there
    raise AssertionError(f"node {node} has no neighbour outside {avoid}")


def not_adjacent(dungeon: Dungeon, node: int) -> int:
    """A node that is neither ``node`` nor adjacent to it."""
    near = (
        {node}
        | {v for u, v in dungeon.edges if u == node}
        | {u for u, v in dungeon.edges if v == node}
    )
    return next(n for n in range(len(dungeon.nodes)) if n not in near)
