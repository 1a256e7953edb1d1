"""The team client's sending under fair time (docs/fair-time.md, Limits): a round's moves are
all chosen before the first is sent, so the server stamps them with the same CPU whenever it
reads them."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
import trio
import trio.testing
from server_testkit import SMALL

from client.strategies.base import make_strategy
from client.team import play_team
from dungeon.engine import Match
from protocol.encoding import encode
from protocol.messages import Dungeon, Enemy, GameOver


async def test_a_rounds_moves_are_all_chosen_before_the_first_is_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dungeons = {
        out.to.agent: encode(out.message)
        for out in Match(5, SMALL).begin().messages
        if isinstance(out.message, Dungeon) and out.to.team == 0
    }
    events: list[tuple[str, int]] = []
    strategy = make_strategy("rusher", 0, 1)
    choose = strategy.choose_move

    def choose_move(agent: int) -> int | None:
        events.append(("choose", agent))
        return choose(agent)

    monkeypatch.setattr(strategy, "choose_move", choose_move)

    async def drain(stream: trio.abc.Stream) -> None:
        while await stream.receive_some(65536):
            pass

    async with trio.open_nursery() as nursery:
        servers, streams = [], []
        for agent in range(6):
            client, server_side = trio.testing.memory_stream_pair()
            send_all = client.send_all

            async def recording(data: Any, agent: int = agent, send_all: Any = send_all) -> None:
                if b'"move"' in bytes(data):
                    events.append(("send", agent))
                await send_all(data)

            monkeypatch.setattr(client, "send_all", recording)
            nursery.start_soon(drain, server_side)
            servers.append(server_side)
            streams.append(client)
        nursery.start_soon(partial(play_team, streams, team=0, strategy=strategy))
        for agent in range(6):
            await servers[agent].send_all(dungeons[agent])
        await trio.testing.wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    kinds = [kind for kind, _ in events]
    assert "send" in kinds
    first_send = kinds.index("send")
    assert "choose" not in kinds[first_send:]  # every choice of the round came first
    chosen = [agent for kind, agent in events if kind == "choose"]
    assert chosen == sorted(chosen)
    assert len(chosen) >= kinds.count("send") >= 2


async def test_a_game_over_behind_failed_writes_is_still_read() -> None:
    # The server stops reading (its side closes after the match ends) before the client has
    # read the `game_over` already on its way: every move the client writes fails, yet the
    # match's result is the `game_over`, not "the server closed every connection".
    dungeons = {
        out.to.agent: encode(out.message)
        for out in Match(5, SMALL).begin().messages
        if isinstance(out.message, Dungeon) and out.to.team == 0
    }
    pairs = [trio.testing.memory_stream_pair() for _ in range(6)]
    streams = [client for client, _ in pairs]
    result: list[Any] = []

    async def play() -> None:
        result.append(await play_team(streams, team=0, strategy=make_strategy("rusher", 0, 1)))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(play)
        for agent, (_, server_side) in enumerate(pairs):
            await server_side.receive_stream.aclose()  # stops reading: writes to it fail
            await server_side.send_all(dungeons[agent])
        await trio.testing.wait_all_tasks_blocked()  # its moves written, and failed
        sighting = Enemy(location=0, agent=2, seen=True)
        await pairs[0][1].send_all(encode(sighting))  # what came before the end
        await trio.testing.wait_all_tasks_blocked()
        for _, server_side in pairs:
            await server_side.send_all(encode(GameOver(winner=1)))
            await server_side.send_stream.aclose()
    [team] = result
    assert team.over
    assert team.winner == 1
