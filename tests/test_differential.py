"""Headless and networked play are the same match (spec section 6, issue 4).

One headless match writes its log. Then the same seed and the same strategies play over the
real server on loopback: twelve TCP sockets, and the test sends one request at a time, in the
headless order (the same step-order generator, the same strategy calls). A shadow engine fed the
same requests says which sockets must receive how many messages before the next request, so
the strategies see every message of a request before they choose again, and each message read
from a socket is checked against it as it arrives. Finally the server's match log and the
headless log must hold the same inputs, engine events and messages, line for line.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import trio

from client.strategies.base import make_strategy
from dungeon.config import RulesConfig
from dungeon.engine import AGENTS, AgentId, Match, Output, Request
from protocol.codec import NEED_DATA, Codec
from protocol.encoding import encode
from protocol.messages import Move, ServerMessage, Solution, Start
from replay.matchlog import read_log
from server.app import Server, serve
from sim.dungeon import DungeonGame
from sim.dungeon_steps import step_order, step_order_generator, strategy_seed

CONFIG = RulesConfig(nodes=300, radius=0.1)
SEED = 21
SEATS = ("reference", "rusher")
#: Seconds one message may take to arrive on loopback before the test fails (not a sleep).
READ_LIMIT = 20.0


class Socket:
    """One agent's TCP connection, with a client-side codec."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.codec = Codec(accept=ServerMessage)

    async def receive(self) -> Any:
        while (message := self.codec.next_message()) is NEED_DATA:
            data = await self.stream.receive_some()
            assert data, "the server closed the socket early"
            self.codec.receive_data(data)
        return message


def comparable(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """The log's inputs, engine events and sends, without line numbers, times or hashes."""
    skipped = {"header", "optimum", "close"}
    return [
        (line.event, {k: v for k, v in line.data.items() if k not in {"seq", "t", "hash"}})
        for line in read_log(path).events
        if line.event not in skipped
    ]


async def play_over_the_network(port: int) -> None:
    """Play SEED with SEATS through the server, one request at a time in the headless order."""
    sockets: dict[AgentId, Socket] = {}
    for agent in AGENTS:
        sockets[agent] = Socket(await trio.open_tcp_stream("127.0.0.1", port))
        start = Start(team=agent.team, agent=agent.agent, match="differential")
        await sockets[agent].stream.send_all(encode(start))
    teams = [
        make_strategy(name, team, strategy_seed(SEED, team)) for team, name in enumerate(SEATS)
    ]
    shadow = Match(SEED, CONFIG)

    async def deliver(expected: Output) -> None:
        for outbound in expected.messages:
            with trio.fail_after(READ_LIMIT):
                received = await sockets[outbound.to].receive()
            assert received == outbound.message, f"{outbound.to} got {received!r}"
            teams[outbound.to.team].observe(outbound.to.agent, received)

    async def request(agent: AgentId, message: Move | Solution) -> None:
        await sockets[agent].stream.send_all(encode(message))
        await deliver(shadow.apply(Request(agent, message)))

    await deliver(shadow.begin())
    order = step_order_generator(SEED)
    while not shadow.is_over:
        for agent in step_order(order):
            if shadow.is_over:
                break
            to = teams[agent.team].choose_move(agent.agent)
            if to is None:
                continue
            await request(agent, Move(to=to))
            problem = shadow.pending(agent)
            if problem is not None:
                assignment = teams[agent.team].solve(agent.agent, problem)
                await request(agent, Solution(assignment=assignment))
    for socket in sockets.values():
        await socket.stream.aclose()


async def test_headless_and_server_play_the_same_match_event_for_event(tmp_path: Path) -> None:
    """Same seed, same strategies, same request order: the same inputs, events and messages."""
    headless_log = tmp_path / "headless.jsonl"
    game = DungeonGame(optimum=False, **CONFIG.to_dict())
    result = game.play_logged(SEED, SEATS, headless_log)
    assert result.winner is not None, "the match must end at a shrine, not on the step limit"

    server = Server(config=CONFIG, log_dir=tmp_path / "server", seed=SEED, checker=None)
    shutdown = trio.Event()
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, port=0, server=server, shutdown=shutdown))
        await play_over_the_network(port)
        shutdown.set()

    (actor,) = server.finished
    assert actor.log_path is not None
    headless, networked = comparable(headless_log), comparable(Path(actor.log_path))
    assert len(headless) > 100
    for number, (mine, theirs) in enumerate(zip(headless, networked, strict=False)):
        assert mine == theirs, f"line {number} differs"
    assert len(networked) == len(headless)
    assert read_log(headless_log).header["seed"] == read_log(actor.log_path).header["seed"]
