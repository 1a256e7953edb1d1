"""The AI client against a scripted server: the interop facts of the spec, call by call."""

from __future__ import annotations

from typing import Any

import trio
import trio.testing

from client.fish import ClientResult, names_for, play
from protocol.fish import NEED_DATA, StreamCodec, encode

BOARD = [[2] * 5 for _ in range(5)]


def state(players: list[tuple[str, list[list[int]]]]) -> dict[str, Any]:
    return {
        "players": [{"color": c, "score": 0, "places": places} for c, places in players],
        "board": BOARD,
    }


class Script:
    """The server side of one memory stream: sends calls, reads replies."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.codec = StreamCodec()

    async def receive(self) -> Any:
        while (value := self.codec.next_value()) is NEED_DATA:
            if self.codec.eof:
                return NEED_DATA
            self.codec.receive_data(await self.stream.receive_some(4096))
        return value

    async def call(self, name: str, *args: Any) -> Any:
        await self.stream.send_all(encode([name, list(args)]))
        return await self.receive()


async def session(server: Any) -> tuple[list[Any], ClientResult]:
    ours, theirs = trio.testing.memory_stream_pair()
    replies: list[Any] = []
    result: list[ClientResult] = []

    async def client() -> None:
        result.append(await play(theirs, "alice", "minimax1", 0))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(client)
        script = Script(ours)
        replies.append(await script.receive())  # the name
        await server(script, replies)
        await ours.aclose()
    return replies, result[0]


async def test_a_game_as_the_ocaml_server_plays_it() -> None:
    """void to start and playing-as; playing-with right before the first setup; a Position to
    setup with the newest penguin listed first; an Action to take-turn with an empty action
    list; void to end(false) mid-tournament, then the client closes."""

    async def server(script: Script, replies: list[Any]) -> None:
        replies.append(await script.call("start", True))
        replies.append(await script.call("playing-as", "red"))
        replies.append(await script.call("playing-with", ["black"]))
        s = state([("red", []), ("black", [[0, 0]])])
        replies.append(await script.call("setup", s))
        s = state([("red", [[4, 4], [0, 1]]), ("black", [[2, 2], [0, 0]])])
        replies.append(await script.call("take-turn", s, []))
        replies.append(await script.call("end", False))
        replies.append(await script.receive())  # then the end of the stream

    replies, result = await session(server)
    assert replies[0] == "alice"
    assert replies[1:4] == ["void", "void", "void"]
    assert replies[4] == [0, 1]  # minimax's placement: the first free tile in row-major order
    src, dst = replies[5]
    assert src in ([4, 4], [0, 1])
    assert dst != src
    assert replies[6] == "void"
    assert replies[7] is NEED_DATA
    assert (result.outcome, result.games) == ("lost", 1)


async def test_the_end_of_the_stream_before_start_means_no_tournament() -> None:
    """Too few signed up: the server hangs up; the client reports it, no error."""

    async def server(script: Script, replies: list[Any]) -> None:
        return

    _, result = await session(server)
    assert result.outcome == "no-tournament"


async def test_a_winner_acknowledges_end_true() -> None:
    async def server(script: Script, replies: list[Any]) -> None:
        replies.append(await script.call("start", True))
        replies.append(await script.call("end", True))

    replies, result = await session(server)
    assert replies[1:] == ["void", "void"]
    assert result.outcome == "won"


async def test_a_call_it_does_not_know_ends_the_session_as_an_error() -> None:
    async def server(script: Script, replies: list[Any]) -> None:
        await script.stream.send_all(b'["dance",[]]')
        replies.append(await script.receive())

    replies, result = await session(server)
    assert replies[1] is NEED_DATA
    assert result.outcome == "error"
    assert "dance" in result.detail


def test_default_names_are_letters_only_and_distinct() -> None:
    names = names_for(100)
    assert len(set(names)) == 100
    assert all(name.isalpha() and name.isascii() and len(name) <= 12 for name in names)
