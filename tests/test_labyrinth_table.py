"""One Labyrinth game on the server, pure (labyrinth/table.py): typed inputs in, the referees'
effects out (floes.effects), so a game is played and judged with no socket and no clock."""

from __future__ import annotations

from floes.effects import Deadline, Over, Record, Send
from labyrinth.game import LabyrinthGame
from labyrinth.generation import generate
from labyrinth.rules import GAME_TYPE, PROFILES, Move, MoveType
from labyrinth.table import (
    Disconnect,
    EndRecord,
    GetMove,
    MoveRecord,
    PlayMove,
    Request,
    Table,
    TimeUp,
)


def table() -> Table:
    return Table("spec-1-s5", generate(5, PROFILES["spec"]), ("alice", "bob"), (None, None))


def test_a_move_is_answered_once_fetched_and_logged_as_a_typed_record() -> None:
    game = table()
    assert game.start() == [Deadline(0)]
    effects = game.apply(Request(0, PlayMove("8 0")))  # DO_NOTHING
    records = [e.entry for e in effects if isinstance(e, Record)]
    stay = Move(MoveType.DO_NOTHING, 0)
    assert records == [MoveRecord(1, 0, stay, 0, tuple(game.lab.energies))]
    assert records[0].to_json() == {
        "type": "move", "turn": 1, "player": 0, "move": [8, 0], "code": 0,
        "energies": list(game.lab.energies),
    }  # fmt: skip
    assert not [e for e in effects if isinstance(e, Send)]  # alice waits for bob's GET_MOVE
    assert Deadline(1) in effects
    fetched = game.apply(Request(1, GetMove()))
    assert fetched == [Send(1, ("OK", "8 0", "0")), Send(0, ("OK", "0", ""))]


def test_a_timeout_ends_the_game_with_the_other_seat_winning() -> None:
    game = table()
    game.start()
    effects = game.apply(TimeUp(0))
    assert Over((1,), "alice: Timeout") in effects
    assert Record(EndRecord(0, 1, "alice: Timeout", forfeit=0)) in effects
    assert game.apply(TimeUp(0)) == []  # a late clock changes nothing
    assert game.apply(Disconnect(1)) == []


def test_a_move_out_of_turn_loses_and_closes_its_connection() -> None:
    game = table()
    game.start()
    effects = game.apply(Request(1, PlayMove("8 0")))
    assert effects[0] == Send(1, ("It is not your turn",), close=True)
    assert Over((0,), "bob: played out of turn") in effects


def test_the_simulator_reads_the_facts_declared_once() -> None:
    info = LabyrinthGame().info
    assert (info.name, info.num_players) == (GAME_TYPE.name, GAME_TYPE.max_players)
    assert (GAME_TYPE.name, GAME_TYPE.min_players, GAME_TYPE.max_players) == ("labyrinth", 2, 2)
