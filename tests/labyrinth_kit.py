"""Helpers for the Labyrinth server tests: an async client of the 2017 protocol over any trio
stream, and a server connected through in-memory streams (for virtual time)."""

from __future__ import annotations

import trio
import trio.testing

from protocol.framing import NEED_DATA
from protocol.labyrinth import MessageReader
from server.labyrinth.server import LabyrinthServer


class AsyncClient:
    """Sends commands (one write each) and reads framed messages.

    A text command ends with ``terminator``: a newline by default (the protocol allows one),
    so the server answers at once and a test may wait for it with ``wait_all_tasks_blocked``;
    ``b""`` writes bare commands as the C API does (the server then ends each once no more
    bytes come: ``Settings.command_gap``). Bytes are sent as they are."""

    def __init__(self, stream: trio.abc.Stream, terminator: bytes = b"\n") -> None:
        self.stream = stream
        self.reader = MessageReader()
        self.terminator = terminator

    async def send(self, text: str | bytes) -> None:
        data = text.encode() + self.terminator if isinstance(text, str) else text
        await self.stream.send_all(data)

    async def receive(self) -> str | None:
        """The next message; None when the server closed."""
        while (message := self.reader.next_message()) is NEED_DATA:
            data = await self.stream.receive_some(65536)
            if not data:
                return None
            self.reader.receive_data(bytes(data))
        return message

    async def command(self, text: str | bytes, replies: int) -> list[str | None]:
        await self.send(text)
        return [await self.receive() for _ in range(replies)]

    async def join(self, name: str, wait: str) -> tuple[str, int, int, str, int]:
        """CLIENT_NAME, WAIT_GAME and GET_GAME_DATA: (game, width, height, maze, seat)."""
        assert await self.command(f"CLIENT_NAME {name}", 1) == ["OK"]
        ok, game, size = await self.command(f"WAIT_GAME {wait}", 3)
        assert ok == "OK"
        assert game is not None
        assert size is not None
        width, height = (int(x) for x in size.split())
        ok, maze, seat = await self.command("GET_GAME_DATA", 3)
        assert ok == "OK"
        assert maze is not None
        assert seat is not None
        return game, width, height, maze, int(seat)


def memory_client(
    nursery: trio.Nursery, server: LabyrinthServer, terminator: bytes = b"\n"
) -> AsyncClient:
    """A client connected to ``server`` through an in-memory stream pair."""
    client_stream, server_stream = trio.testing.memory_stream_pair()
    nursery.start_soon(server.handle, server_stream)
    return AsyncClient(client_stream, terminator)
