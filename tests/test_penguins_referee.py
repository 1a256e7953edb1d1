"""The referee of a Penguins game of programs, pure (penguins/referee.py): typed answers in, the
referees' effects out (floes.effects), so a whole game is judged with no process and no file."""

from __future__ import annotations

import pytest

from floes.effects import Deadline, Over, Record, Send
from penguins.facts import GAME_TYPE
from penguins.game import PenguinsGame
from penguins.referee import (
    Answer,
    Call,
    CallRecord,
    Entrant,
    Fault,
    Phase,
    Referee,
    Unprepared,
    Verdict,
)
from protocol.penguins import parse
from server.sandbox import Outcome

START = "1 4\n10 00 00 10\n"  # two one-fish floes, apart: nobody ever moves


def referee(*names: str) -> Referee:
    entrants = [Entrant([f"./{name}"], name=name) for name in names]
    return Referee(entrants, parse(START), 1, timeout=2.0, max_file_bytes=1 << 20)


def placed(board: str, name: str, number: int, tile: int) -> str:
    after = parse(board)
    after.fish[tile], after.owner[tile] = 0, number
    after.add_player(name, number, 1)
    return after.render()


def test_a_call_has_its_deadline_arguments_and_board_and_a_placement_is_judged() -> None:
    game = referee("a", "b")
    first = game.start()
    call = Call(Phase.PLACEMENT, ("phase=placement", "penguins=1", "board.txt", "board.txt"), START)
    assert first == [Deadline(0, 2.0), Send(0, call)]
    effects = game.apply(Answer(0, Outcome(0), placed(START, "a", 1, 0), True))
    record = effects[0]
    assert isinstance(record, Record)
    assert isinstance(record.entry, CallRecord)
    assert record.entry.verdict is Verdict.MOVED
    assert record.entry.to_json()["move"] == "placed on row 1, column 1 (line 2, field 1)"
    assert isinstance(effects[-1], Send)
    assert effects[-1].seat == 1
    assert parse(effects[-1].message.board).owner[0] == 1


def test_a_failed_call_disqualifies_and_the_game_goes_on_without_it() -> None:
    game = referee("a", "b")
    game.start()
    effects = game.apply(Answer(0, Outcome(None, timed_out=True), None, True))
    assert game.entrants[0].disqualified == "timed out after 2 s"
    assert game.entrants[0].kind is Fault.TIME
    assert isinstance(effects[-1], Send)
    assert effects[-1].seat == 1
    effects = game.apply(Unprepared(1, "a link it left"))
    assert game.entrants[1].kind is Fault.PROTOCOL
    assert effects[-1] == Over((), "no program can move")  # nobody left: no winner


def test_the_game_ends_when_every_program_declines_a_round_and_the_top_scorer_wins() -> None:
    game = referee("a", "b")
    effects = game.start()
    for _ in range(20):
        last = effects[-1]
        if isinstance(last, Over):
            break
        assert isinstance(last, Send)
        board = last.message.board
        seat, name = last.seat, "ab"[last.seat]
        if last.message.phase is Phase.PLACEMENT and parse(board).player(name) is None:
            tile = [3, 0][seat]
            effects = game.apply(
                Answer(seat, Outcome(0), placed(board, name, seat + 1, tile), True)
            )
        else:
            effects = game.apply(Answer(seat, Outcome(1), board, True))
    assert effects[-1] == Over((0, 1), "no program can move")  # 1 fish each: both first
    assert [e.disqualified for e in game.entrants] == [None, None]


def test_an_answer_for_a_seat_not_called_is_the_callers_bug() -> None:
    game = referee("a", "b")
    game.start()
    with pytest.raises(ValueError, match="seat 1"):
        game.apply(Answer(1, Outcome(1), START, True))


def test_the_simulator_and_the_commands_read_the_facts_declared_once() -> None:
    assert (GAME_TYPE.name, GAME_TYPE.min_players, GAME_TYPE.max_players) == ("penguins", 2, 9)
    assert PenguinsGame(players=9).info.name == GAME_TYPE.name
    with pytest.raises(ValueError, match="Penguins is for 2-9 players, got 10"):
        PenguinsGame(players=10)
