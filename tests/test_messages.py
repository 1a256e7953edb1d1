"""The wire message types (protocol.messages): frozen, tuple-valued, equal whatever built them.

What travels on the wire for each kind is pinned in test_codec.py; this file checks the Python
side that the engine, the server and the clients rely on.
"""

from __future__ import annotations

import msgspec
import pytest

from protocol.messages import (
    CLIENT_MESSAGE_TYPES,
    MESSAGE_TYPES,
    SERVER_MESSAGE_TYPES,
    ClientMessage,
    Dungeon,
    Enemy,
    Error,
    GameOver,
    Message,
    Move,
    Moved,
    Sat,
    ServerMessage,
    Solution,
    Start,
)


def test_directions_split_the_kinds():
    """Every kind is either a client or a server message, and the unions say the same."""
    assert set(CLIENT_MESSAGE_TYPES) == {Start, Move, Solution}
    assert set(SERVER_MESSAGE_TYPES) == {Dungeon, Sat, Moved, Enemy, GameOver, Error}
    assert set(MESSAGE_TYPES) == set(CLIENT_MESSAGE_TYPES) | set(SERVER_MESSAGE_TYPES)
    assert set(ClientMessage.__args__) == set(CLIENT_MESSAGE_TYPES)
    assert set(ServerMessage.__args__) == set(SERVER_MESSAGE_TYPES)


def test_positional_arguments_follow_the_documented_order():
    """Start(team, agent, match=None) and the others take their fields in the spec's order."""
    assert Start(1, 5) == Start(team=1, agent=5, match=None)
    assert Start(0, 2, "finals") == Start(team=0, agent=2, match="finals")
    assert Moved(True, 7, [], "crossed") == Moved(
        success=True, location=7, killed=[], reason="crossed"
    )
    assert Enemy(4, -1, True) == Enemy(location=4, agent=-1, seen=True)


def test_messages_are_frozen():
    """No field of a message can be reassigned."""
    move = Move(3)
    with pytest.raises(AttributeError):
        move.to = 4  # type: ignore[misc]


@pytest.mark.parametrize(
    ("built", "field", "expected"),
    [
        pytest.param(Solution([True, False]), "assignment", (True, False), id="solution"),
        pytest.param(Moved(False, 2, [3, -1], "attacked"), "killed", (3, -1), id="moved"),
        pytest.param(Sat(5, 3, [[1, -2, 3]]), "traps", ((1, -2, 3),), id="sat"),
        pytest.param(
            Dungeon(0, 0, [[0.5, 0.25]], [[0, 1]], [0, 1], [1, 0]),
            "nodes",
            ((0.5, 0.25),),
            id="dungeon-nodes",
        ),
        pytest.param(
            Dungeon(0, 0, [[0.5, 0.25]], [[0, 1]], [0, 1], [1, 0]),
            "edges",
            ((0, 1),),
            id="dungeon-edges",
        ),
        pytest.param(
            Dungeon(0, 0, [[0.5, 0.25]], [[0, 1]], [0, 1], [1, 0]),
            "start",
            (0, 1),
            id="dungeon-start",
        ),
    ],
)
def test_array_fields_are_stored_as_tuples(built: Message, field: str, expected: object):
    """Lists given to a constructor are stored as tuples, so nothing inside can change."""
    assert getattr(built, field) == expected
    assert type(getattr(built, field)) is tuple


@pytest.mark.parametrize(
    "built",
    [
        pytest.param(Solution([True, False, True]), id="solution"),
        pytest.param(Moved(True, 9, [0, -1], "crossed"), id="moved"),
        pytest.param(Sat(2, 3, [[1, 2, -3], [-1, 2, 3]]), id="sat"),
        pytest.param(
            Dungeon(1, 4, [[0.0, 1.0], [0.5, 0.5]], [[0, 1]], [0, 1], [1, 0]), id="dungeon"
        ),
    ],
)
def test_built_and_decoded_messages_are_equal_and_hashable(built: Message):
    """A message built from lists equals the same message decoded from JSON, hash included."""
    decoded = msgspec.json.decode(msgspec.json.encode(built), type=Message)
    assert decoded == built
    assert hash(decoded) == hash(built)
    assert {built, decoded} == {built}


def test_tuples_and_lists_build_the_same_message():
    """Passing tuples instead of lists gives an equal message."""
    assert Sat(1, 3, ((1, 2, 3),)) == Sat(1, 3, [[1, 2, 3]])
    assert Solution((True,)) == Solution([True])


def test_pairs_already_frozen_are_shared_not_copied():
    """Tuples of tuples are kept as they are (the engine gives all twelve `dungeon` messages the
    same nodes and edges); a tuple holding a list is still frozen into tuples."""
    nodes = ((0.1, 0.2), (0.3, 0.4))
    edges = ((0, 1),)
    first = Dungeon(0, 0, nodes, edges, (0, 1), (1, 0))
    second = Dungeon(1, 0, nodes, edges, (0, 1), (1, 0))
    assert first.nodes is nodes
    assert second.nodes is nodes
    assert second.edges is edges
    mixed = Sat(1, 3, ((1, 2, 3), [1, -2, 3]))
    assert mixed.traps == ((1, 2, 3), (1, -2, 3))
    assert all(type(trap) is tuple for trap in mixed.traps)
