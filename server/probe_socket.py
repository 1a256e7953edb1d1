"""The socket side of the probing server (server/probe.py): one program socket, line by line.

A socket whose writes are serialized by a lock (the flood, the answers and the enemy heir's
sightings come from different tasks), a small kernel send buffer so a program that stops
reading shows within a second, and the polite close after `game_over`.
"""

from __future__ import annotations

import socket
from collections import deque
from dataclasses import dataclass, field

import trio

from dungeon.generation import Dungeon
from protocol.codec import NEED_DATA, Codec, RemoteProtocolError
from protocol.messages import ClientMessage, Message

__all__ = ["ProbeSocket", "drain_and_close", "shortest_path", "with_buffer"]


@dataclass
class ProbeSocket:
    stream: trio.SocketStream
    codec: Codec = field(default_factory=lambda: Codec(ClientMessage))
    lock: trio.StrictFIFOLock = field(default_factory=trio.StrictFIFOLock)
    agent: int | None = None
    writable: bool = True

    async def send(self, data: bytes) -> None:
        async with self.lock:
            if not self.writable:
                return
            try:
                await self.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self.writable = False

    async def next(self) -> Message | RemoteProtocolError | None:
        while True:
            try:
                message = self.codec.next_message()
            except RemoteProtocolError as error:
                return error
            if message is not NEED_DATA:
                return message
            if self.codec.eof:
                return None
            try:
                data = await self.stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                data = b""
            self.codec.receive_data(data)


def shortest_path(dungeon: Dungeon, source: int, target: int) -> list[int]:
    """The nodes after ``source`` on a shortest path to ``target``."""
    previous = {source: source}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        if node == target:
            break
        for nxt in dungeon.adjacency[node]:
            if nxt not in previous:
                previous[nxt] = node
                queue.append(nxt)
    path = []
    node = target
    while node != source and node in previous:
        path.append(node)
        node = previous[node]
    return path[::-1]


def with_buffer(stream: trio.SocketStream, size: int) -> None:
    """A small kernel send buffer, so a program that stops reading fills it soon."""
    stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)


async def drain_and_close(conn: ProbeSocket) -> None:
    try:
        if conn.writable:
            await conn.stream.send_eof()
        while await conn.stream.receive_some(65536):
            pass
    except (trio.BrokenResourceError, trio.ClosedResourceError, trio.BusyResourceError):
        pass
