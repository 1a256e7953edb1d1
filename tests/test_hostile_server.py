"""The dungeon server under a user's attack on its lobby: a thousand named matches that never
fill, and match names a page could choke on; every other match plays on."""

from __future__ import annotations

import json

import trio
import trio.testing
from server_testkit import connect_memory, memory_match, running_server

from protocol.messages import Error, Start

CROWD = 1000


async def test_a_thousand_named_matches_that_never_fill_stall_no_other_match() -> None:
    """1,000 sockets each open a named match of their own and wait there: a full match still
    begins at once, and once they leave every name is free again."""
    async with running_server() as (server, nursery):
        crowd = [connect_memory(server, nursery) for _ in range(CROWD)]
        for number, agent in enumerate(crowd):
            await agent.send(Start(team=0, agent=0, match=f"squat-{number}"))
        await trio.testing.wait_all_tasks_blocked()
        assert len(server.lobby.filling) == CROWD
        with trio.fail_after(30):
            _, dungeons = await memory_match(server, nursery, match="real")
        assert len(dungeons) == 12
        for agent in crowd:
            await agent.aclose()
        await trio.testing.wait_all_tasks_blocked()
        assert [m.name for m in server.lobby.filling] == []


HOSTILE_NAMES = [
    "<script>alert(1)</script>",
    "caf\u00e9",
    "right\u202eleft",
    "bell\x07",
    "nul\x00",
    "a" * 65,
    "../../etc",
    "",
]


async def test_a_match_name_outside_its_alphabet_is_refused_and_opens_nothing() -> None:
    """Names are 1-64 of A-Za-z0-9_-: markup, unicode, control characters, a path or an empty
    name is an error on that socket, and no match is opened under it."""
    async with running_server() as (server, nursery):
        for name in HOSTILE_NAMES:
            agent = connect_memory(server, nursery)
            line = json.dumps({"type": "start", "team": 0, "agent": 0, "match": name}) + "\n"
            await agent.send(line.encode())
            error = await agent.receive_a(Error)
            assert error.code == "bad_field", (name, error)
            assert "field 'match'" in error.message
        await trio.testing.wait_all_tasks_blocked()
        assert server.lobby.filling == []
