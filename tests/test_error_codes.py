"""Every `error` the server sends carries a stable `code` from the catalogue (protocol.errors)."""

from __future__ import annotations

import trio

from dungeon.engine import AgentId
from protocol.errors import CODE_OF_CAUSE, ERROR_CODES, ErrorCause, ErrorCode
from protocol.messages import Error, Move, Solution, Start
from tests.server_testkit import connect_memory, memory_match, not_adjacent, running_server


def test_every_code_is_snake_case_and_explained() -> None:
    assert set(ERROR_CODES) == set(ErrorCode)
    for code, meaning in ERROR_CODES.items():
        assert code.value.replace("_", "").isalpha()
        assert code.value.islower()
        assert meaning
    # Every cause a peer can be blamed for has a code.
    remote = set(ErrorCause) - {
        ErrorCause.NOT_A_MESSAGE,
        ErrorCause.DATA_AFTER_EOF,
        ErrorCause.BAD_ARGUMENT,
    }
    assert set(CODE_OF_CAUSE) == remote


async def test_the_server_answers_each_fault_with_its_code() -> None:
    async with running_server() as (server, nursery):
        # Before the match: a move before start closes; a second start is refused.
        early = connect_memory(server, nursery)
        await early.send(Move(to=1))
        [refusal] = await early.until_closed()
        assert isinstance(refusal, Error)
        assert refusal.code == ErrorCode.START_REQUIRED

        garbage = connect_memory(server, nursery)
        await garbage.send(b"{not json\n")
        [refusal] = await garbage.until_closed()
        assert isinstance(refusal, Error)
        assert refusal.code == ErrorCode.BAD_JSON

        agents, dungeons = await memory_match(server, nursery)
        heir = agents[AgentId(0, 0)]
        dungeon = dungeons[AgentId(0, 0)]
        here = dungeon.start[0]
        await heir.send(Start(team=0, agent=1))
        await heir.send(b'{"type": "move"}\n')
        await heir.send(b'{"type": "move", "to": "a"}\n')
        await heir.send(b'{"type": "fly"}\n')
        await heir.send(b"[1]\n")
        await heir.send(b'{"to": 1}\n')
        await heir.send(Move(to=not_adjacent(dungeon, here)))
        await heir.send(Move(to=10**6))
        await heir.send(Solution(assignment=[True]))
        codes: list[str] = []
        while len(codes) < 9:
            message = await heir.receive()
            if isinstance(message, Error):
                codes.append(message.code)
        assert codes == [
            "already_started",
            "missing_field",
            "bad_field",
            "unknown_type",
            "not_an_object",
            "missing_type",
            "not_adjacent",
            "no_such_node",
            "not_committed",
        ]
        await trio.lowlevel.checkpoint()
