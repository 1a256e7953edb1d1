"""The server's hooks a tournament relies on: team tokens, per-name seeds, the observer."""

from __future__ import annotations

from typing import Any

import trio.testing
from server_testkit import connect_memory, running_server

from dungeon.engine import AGENTS
from protocol.messages import Dungeon, Error, Start
from server.connection import Connection

TOKENS = {"cup-1": {0: "zero-secret", 1: "one-secret"}}


async def test_a_match_with_tokens_takes_each_team_only_with_its_own_token() -> None:
    """Missing, wrong or the other team's token: error bad_token and the slot stays free; the
    right token takes it. A match without tokens is open as before."""
    async with running_server(tokens=TOKENS) as (server, nursery):
        agent = connect_memory(server, nursery)
        for token in (None, "guess", "one-secret"):
            await agent.send(Start(team=0, agent=0, match="cup-1", token=token))
            error = await agent.receive_a(Error)
            assert error.code == "bad_token"
        assert server.lobby.filling == []  # nothing was taken
        await agent.send(Start(team=0, agent=0, match="cup-1", token="zero-secret"))
        other = connect_memory(server, nursery)
        await other.send(Start(team=1, agent=0, match="free-for-all"))
        await trio.testing.wait_all_tasks_blocked()  # both starts handled
        assert sorted(m.name or "" for m in server.lobby.filling) == ["cup-1", "free-for-all"]


async def test_named_matches_take_their_seed_and_the_observer_follows_them() -> None:
    """The seed given for a name is the match's, whatever order matches fill in; the observer
    hears started (log open), the closed sockets, then over."""
    heard: list[tuple[str, Any]] = []

    def observe(event: str, subject: Any) -> None:
        name = subject.filling.name if isinstance(subject, Connection) else subject.name
        heard.append((event, name))

    seeds = {"later": 11, "sooner": 22}
    async with running_server(seeds=seeds, observer=observe) as (server, nursery):
        agents = {}
        for slot in AGENTS:
            agents[slot] = connect_memory(server, nursery)
            await agents[slot].send(Start(team=slot.team, agent=slot.agent, match="sooner"))
        for agent in agents.values():
            await agent.receive_a(Dungeon)
        assert [actor.seed for actor in server.finished] == [22]
        assert ("started", "sooner") in heard
        for agent in agents.values():
            await agent.aclose()
        await server.wait_no_matches()
    assert heard.index(("started", "sooner")) < heard.index(("over", "sooner"))
    assert ("closed", "sooner") in heard
    assert server.finished[0].end_reason == "forfeit"
