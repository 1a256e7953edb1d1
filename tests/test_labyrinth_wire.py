"""The server side of the 2017 protocol, sans-I/O (protocol/labyrinth.py): commands end at a newline
or where the client's write ends, whatever the reads; messages are framed with a 4-digit length;
WAIT_GAME's options and PLAY_MOVE's move are read as the public server reads them."""

from __future__ import annotations

import pytest

from labyrinth.rules import Move
from protocol.labyrinth import (
    CommandDecoder,
    Malformed,
    WaitRequest,
    frame,
    parse_move_command,
    parse_wait,
)


def test_a_write_is_one_command_and_newlines_split_commands() -> None:
    decoder = CommandDecoder()
    decoder.receive_data(b"CLIENT_NAME me")
    decoder.end_of_write()
    decoder.receive_data(b"GET_MOVE\nDISP_GAME\r\n")
    assert [decoder.next_command() for _ in range(4)] == [
        "CLIENT_NAME me",
        "GET_MOVE",
        "DISP_GAME",
        None,
    ]


def test_a_command_split_across_reads_is_one_command() -> None:
    """The C API writes each command in one write, but TCP may deliver a write in several
    reads: the command ends where the write ends (the client waits for the answer), or with
    the stream, never where a read ends."""
    decoder = CommandDecoder()
    decoder.receive_data(b"PLAY_MO")
    decoder.receive_data(b"VE 1 1")
    assert decoder.next_command() is None
    decoder.receive_data(b"0")
    decoder.end_of_write()
    assert [decoder.next_command(), decoder.next_command()] == ["PLAY_MOVE 1 10", None]
    assert decoder.buffered_bytes == 0
    decoder.receive_data(b"GET_MO")
    decoder.receive_data(b"VE")
    decoder.receive_data(b"")
    assert decoder.next_command() == "GET_MOVE"


def test_a_command_past_the_limit_is_refused_once_without_holding_it() -> None:
    """A write longer than 1024 bytes is one Malformed, reported as soon as it passes the
    limit; the decoder never holds more than the limit and goes on after the write."""
    decoder = CommandDecoder()
    for _ in range(10):
        decoder.receive_data(b"A" * 1000)
        assert decoder.buffered_bytes <= 1026
    command = decoder.next_command()
    assert isinstance(command, Malformed)
    assert "at most 1024" in str(command)
    decoder.end_of_write()
    decoder.receive_data(b"GET_MOVE\n")
    assert [decoder.next_command(), decoder.next_command()] == ["GET_MOVE", None]


@pytest.mark.parametrize("write", [b"\n", b"\n\n\n", b"\r\n", b"   ", b" \t\n \n", b"\x00"])
@pytest.mark.parametrize("bytewise", [False, True])
def test_a_write_of_blank_lines_only_is_an_empty_command(write: bytes, bytewise: bool) -> None:
    """Every command is answered (spec labyrinth.md, "Network play"): a write holding no command
    is handed out as one malformed command when it ends, however its bytes were read."""
    decoder = CommandDecoder()
    for read in [write[i : i + 1] for i in range(len(write))] if bytewise else [write]:
        decoder.receive_data(read)
        assert decoder.next_command() is None
    assert decoder.blank_write
    decoder.end_of_write()
    command = decoder.next_command()
    assert isinstance(command, Malformed)
    assert str(command) == "an empty command: a write of blank lines only"
    assert decoder.next_command() is None
    decoder.receive_data(b"GET_MOVE")
    decoder.end_of_write()
    assert [decoder.next_command(), decoder.next_command()] == ["GET_MOVE", None]


@pytest.mark.parametrize(
    "write", [b"GET_MOVE\n\n", b"GET_MOVE\r\n", b"\nGET_MOVE", b"\r\n GET_MOVE \n\n\n"]
)
@pytest.mark.parametrize("bytewise", [False, True])
def test_blank_lines_around_a_command_in_its_write_are_tolerated(
    write: bytes, bytewise: bool
) -> None:
    """A trailing newline (or a leading one) is part of the command's write: no second answer."""
    decoder = CommandDecoder()
    taken = []
    for read in [write[i : i + 1] for i in range(len(write))] if bytewise else [write]:
        decoder.receive_data(read)
        while (command := decoder.next_command()) is not None:
            taken.append(command)
    decoder.end_of_write()
    while (command := decoder.next_command()) is not None:
        taken.append(command)
    assert taken == ["GET_MOVE"]
    assert not decoder.blank_write


def test_the_end_of_input_is_seen() -> None:
    decoder = CommandDecoder()
    decoder.receive_data(b"")
    assert decoder.closed


@pytest.mark.parametrize(
    ("data", "reason"),
    [(b"\xff", "ASCII"), (b"A" * 1025, "at most 1024"), (b"PLAY\x01MOVE", "printable")],
)
def test_bad_bytes_are_a_malformed_command(data: bytes, reason: str) -> None:
    decoder = CommandDecoder()
    decoder.receive_data(data)
    decoder.end_of_write()
    command = decoder.next_command()
    assert isinstance(command, Malformed)
    assert reason in str(command)


def test_frames_are_a_4_digit_length_then_the_payload() -> None:
    assert frame("OK") == b"0002OK"
    assert frame("") == b"0000"
    assert frame("x" * 1200) == b"1000" + b"x" * 1000
    assert frame("1" * 2000, limit=9999) == b"2000" + b"1" * 2000


@pytest.mark.parametrize(
    ("text", "move"),
    [("4 0", Move(4, 0)), ("2 3", Move(2, 3)), ("8 0\n", Move(8, 0)), ("1 5 extra", Move(1, 5))],
)
def test_a_move_is_two_unsigned_numbers_and_trailing_text_is_tolerated(
    text: str, move: Move
) -> None:
    assert parse_move_command(text) == move


@pytest.mark.parametrize("text", ["4 -1", "+4 0", "4", "", "up 0", "4,0", "4 0x1"])
def test_anything_else_is_not_in_correct_form(text: str) -> None:
    with pytest.raises(Malformed, match="not in correct form"):
        parse_move_command(text)


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("", WaitRequest()),
        ("DO_NOTHING", WaitRequest(training="DO_NOTHING")),
        (
            "PLAY_RANDOM rotate=False timeout=3 start=1 seed=42 delay=250",
            WaitRequest("PLAY_RANDOM", None, 3.0, 1, 42, 0.25, False),
        ),
        ("ASTAR unknown=7", WaitRequest(training="ASTAR")),
        ("timeout=5", WaitRequest(timeout=5.0)),
        ("TOURNAMENT cup", WaitRequest(tournament="cup")),
    ],
)
def test_wait_game_options(text: str, wanted: WaitRequest) -> None:
    assert parse_wait(text) == wanted


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("FOO", "training player name 'FOO' is not valid"),
        ("PLAY_RANDOM rotate=maybe", "rotate=maybe is incorrect"),
        ("ASTAR start=2", "start=2 is incorrect"),
        ("ASTAR seed=-1", "seed=-1 is incorrect"),
        ("ASTAR seed=16777216", "seed=16777216 is incorrect"),
        ("ASTAR timeout=0", "timeout=0 is incorrect"),
        ("ASTAR delay=abc", "delay=abc is incorrect"),
        ("ASTAR 'unclosed", "do not parse"),
        ("TOURNAMENT", "takes one name"),
        ("TOURNAMENT a b", "takes one name"),
        ("ASTAR lonely", "is not key=value"),
    ],
)
def test_bad_wait_game_options_name_the_problem(text: str, reason: str) -> None:
    with pytest.raises(Malformed, match=reason):
        parse_wait(text)
