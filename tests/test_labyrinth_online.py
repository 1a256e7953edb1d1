"""Playing Labyrinth on a server of the course's 2017 protocol (spec labyrinth.md, "Network
play"). The server here is written from the spec, not from our client: commands are ASCII
strings, every server message is a 4-digit zero-padded length then its payload, an error message
replaces OK, and it referees with the rules (the return code is for the player who just moved).
"""

from __future__ import annotations

import io
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Callable

import pytest

from arena import labyrinth as cli
from client.labyrinth import (
    Connection,
    RulesDisagreement,
    ServerError,
    play_online,
)
from labyrinth.generation import generate
from labyrinth.players import astar_move, do_nothing_move
from labyrinth.rules import Labyrinth, Move, MoveType, ReturnCode
from protocol.framing import NEED_DATA, RemoteProtocolError
from protocol.labyrinth import MessageReader

Policy = Callable[[Labyrinth], Move]


def framed(*payloads: str) -> bytes:
    """Server messages as the spec frames them."""
    return b"".join(b"%04d" % len(p.encode()) + p.encode() for p in payloads)


class SpecServer:
    """A server from the spec: one game of seed 5 between the client and ``opponent``; the
    client starts when ``client_starts``. ``code_of`` may falsify return codes."""

    def __init__(
        self,
        opponent: Policy = do_nothing_move,
        client_starts: bool = True,
        code_of: Callable[[Move, ReturnCode], ReturnCode] = lambda move, code: code,
    ) -> None:
        self.labyrinth = generate(5)
        self.opponent = opponent
        self.client_seat = 0 if client_starts else 1
        self.code_of = code_of
        self.commands: list[str] = []

    def answer(self, command: str) -> list[str]:
        self.commands.append(command)
        word, _, rest = command.partition(" ")
        lab = self.labyrinth
        if word == "CLIENT_NAME":
            return ["OK"] if rest and rest.isidentifier() else ["Bad name"]
        if word == "WAIT_GAME":
            return ["OK", "game_5", f"{lab.width} {lab.height}"]
        if word == "GET_GAME_DATA":
            return ["OK", lab.maze_text(), str(self.client_seat)]
        if word == "PLAY_MOVE":
            if lab.to_move != self.client_seat:
                return ["It is not your turn"]
            kind, value = (int(field) for field in rest.split())
            code = self.code_of(Move(kind, value), lab.play(Move(kind, value)))
            return ["OK", str(int(code)), lab.end_reason]
        if word == "GET_MOVE":
            if lab.to_move == self.client_seat:
                return ["It is your turn"]
            move = self.opponent(lab)
            code = self.code_of(move, lab.play(move))
            return ["OK", f"{int(move.type)} {move.value}", str(int(code))]
        return [f"Unknown command {word}"]


class MemoryStream:
    """The server behind an in-memory stream that hands out ``chunk`` bytes per recv (1: every
    message arrives byte by byte); it closes after ``close_after`` commands."""

    def __init__(self, server: SpecServer, chunk: int = 1, close_after: int = 1 << 30) -> None:
        self.server = server
        self.chunk = chunk
        self.close_after = close_after
        self.outgoing = bytearray()

    def sendall(self, data: bytes, /) -> None:
        if len(self.server.commands) >= self.close_after:
            return
        self.outgoing += framed(*self.server.answer(data.decode("ascii")))

    def recv(self, size: int, /) -> bytes:
        data = bytes(self.outgoing[: min(size, self.chunk)])
        del self.outgoing[: len(data)]
        return data


def test_messages_are_read_whole_whatever_the_byte_boundaries() -> None:
    """Two messages fed one byte at a time come out whole, in order, and only when complete."""
    reader = MessageReader()
    got = []
    for byte in framed("OK", "13 9"):
        assert reader.next_message() is NEED_DATA
        reader.receive_data(bytes([byte]))
        message = reader.next_message()
        if message is not NEED_DATA:
            got.append(message)
    assert got == ["OK", "13 9"]


@pytest.mark.parametrize("data", [b"OK00", b"12ab", b" 002OK"])
def test_a_message_without_its_4_digit_length_is_the_servers_fault(data: bytes) -> None:
    """Spec: every server message starts with a 4-digit zero-padded length."""
    reader = MessageReader()
    reader.receive_data(data)
    with pytest.raises(RemoteProtocolError, match="4-digit length"):
        reader.next_message()


def test_first_player_session_follows_the_protocol_and_wins() -> None:
    """The client names itself, waits for a game with the training options, reads the maze and
    who starts, then alternates PLAY_MOVE and GET_MOVE from the first turn; ASTAR against
    DO_NOTHING reaches the treasure with a step and the server's MOVE_WIN ends the game."""
    server = SpecServer(do_nothing_move, client_starts=True)
    result = play_online(
        Connection(MemoryStream(server)), "arena_bot", "DO_NOTHING timeout=10", astar_move
    )
    assert server.commands[:3] == [
        "CLIENT_NAME arena_bot",
        "WAIT_GAME DO_NOTHING timeout=10",
        "GET_GAME_DATA",
    ]
    in_game = server.commands[3:]
    assert in_game[0::2] == [c for c in in_game if c.startswith("PLAY_MOVE ")]
    assert in_game[1::2] == ["GET_MOVE"] * (len(in_game) // 2)
    assert result.won
    assert result.we_started
    assert result.game == "game_5"
    assert server.labyrinth.winner == 0
    assert result.moves == server.labyrinth.turn == len(in_game)


def test_second_player_session_starts_with_get_move_and_can_lose() -> None:
    """Told '1' (the opponent starts), the client asks GET_MOVE first; when the opponent's move
    comes back with MOVE_WIN, the game is over and lost for us."""
    server = SpecServer(astar_move, client_starts=False)
    result = play_online(Connection(MemoryStream(server, chunk=7)), "me", "", do_nothing_move)
    assert server.commands[1] == "WAIT_GAME "
    assert server.commands[3] == "GET_MOVE"
    assert not result.won
    assert not result.we_started
    assert server.labyrinth.winner == 0


def test_who_starts_may_come_glued_to_the_maze() -> None:
    """The spec sends "the maze ... then 0 if you start": a server that sends it as the maze's
    last character (L*H + 1 characters, one message) is read the same way."""
    server = SpecServer(do_nothing_move, client_starts=True)
    plain = server.answer

    def glued(command: str) -> list[str]:
        replies = plain(command)
        return ["OK", replies[1] + replies[2]] if command == "GET_GAME_DATA" else replies

    server.answer = glued  # type: ignore[method-assign]
    result = play_online(Connection(MemoryStream(server)), "me", "", astar_move)
    assert result.we_started
    assert result.won
    assert server.commands[3].startswith("PLAY_MOVE ")


def test_an_error_instead_of_ok_stops_with_the_servers_message() -> None:
    """Spec: an error replaces OK with its message."""
    server = SpecServer()
    server.answer = lambda command: ["Bad name"]  # type: ignore[method-assign]
    with pytest.raises(ServerError, match="CLIENT_NAME: the server says 'Bad name'"):
        play_online(Connection(MemoryStream(server)), "me", "", astar_move)


def test_a_name_the_protocol_refuses_is_never_sent() -> None:
    """CLIENT_NAME takes 1-20 of [A-Za-z0-9_]."""
    server = SpecServer()
    for name in ("", "a" * 21, "two words", "é"):
        with pytest.raises(ValueError, match="1-20"):
            play_online(Connection(MemoryStream(server)), name, "", astar_move)
    assert server.commands == []


def test_a_server_that_hangs_up_mid_game_is_reported() -> None:
    server = SpecServer()
    with pytest.raises(RemoteProtocolError, match="closed the connection"):
        play_online(Connection(MemoryStream(server, close_after=5)), "me", "", astar_move)


def test_a_return_code_our_rules_contradict_stops_the_game_loudly() -> None:
    """A stay never wins (spec): a server claiming MOVE_WIN for one is not followed blindly."""

    def stay_wins(move: Move, code: ReturnCode) -> ReturnCode:
        return ReturnCode.MOVE_WIN if move.type == MoveType.DO_NOTHING else code

    server = SpecServer(do_nothing_move, client_starts=True, code_of=stay_wins)
    with pytest.raises(RulesDisagreement, match="server says MOVE_WIN; our spec rules say MOVE_OK"):
        play_online(Connection(MemoryStream(server)), "me", "", astar_move)


def serve_one_client(server: SpecServer) -> tuple[int, threading.Thread]:
    """A loopback TCP server (port 0) answering one client; returns its port and thread."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(30)
    port = listener.getsockname()[1]

    def run() -> None:
        with listener:
            conn, _ = listener.accept()
            conn.settimeout(30)
            with conn:
                while data := conn.recv(4096):
                    conn.sendall(framed(*server.answer(data.decode("ascii"))))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return port, thread


def test_arena_labyrinth_connect_plays_a_game_over_loopback() -> None:
    """`arena labyrinth connect HOST PORT` plays a whole game on a real socket and exits 0."""
    server = SpecServer(do_nothing_move, client_starts=True)
    port, thread = serve_one_client(server)
    out = io.StringIO()
    argv = ["connect", "127.0.0.1", str(port), "--name", "arena_test", "--strategy", "astar"]
    assert cli.main([*argv, "--training", "DO_NOTHING timeout=10"], stdout=out) == 0
    thread.join(timeout=30)
    assert out.getvalue().startswith("game game_5: we won after ")
    assert server.commands[1] == "WAIT_GAME DO_NOTHING timeout=10"
    assert server.labyrinth.winner == 0


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["connect", "127.0.0.1", "0"], "is not a port"),
        (["connect", "127.0.0.1", "http"], "is not a port"),
        (["connect", "127.0.0.1", "4000", "--name", "no spaces"], "a name is 1-20"),
        (["connect", "127.0.0.1", "4000", "--timeout", "0"], "must be positive"),
        (["connect", "127.0.0.1", "4000", "--timeout", "nan"], "must be positive"),
        (["connect", "127.0.0.1", "4000", "--training", "caf\u00e9"], "printable ASCII"),
    ],
)
def test_bad_connect_options_exit_2_naming_the_problem(
    argv: list[str], reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad port, a name CLIENT_NAME would refuse or a time limit that is not positive exit 2
    before anything is sent."""
    assert cli.main(argv) == 2
    assert reason in capsys.readouterr().err


def test_no_server_there_exits_1_with_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    """A port nobody listens on (taken from a listener we close) is a clear failure, exit 1."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()
    assert cli.main(["connect", "127.0.0.1", str(port)]) == 1
    assert f"cannot connect to 127.0.0.1:{port}" in capsys.readouterr().err


def test_connect_verbose_says_each_move_in_words_in_a_real_process() -> None:
    """`connect -v` once printed `we: 5 0 -> MOVE_OK`; each move is now told as a person says
    it, with the wire's text beside it, and the last one says who won."""
    server = SpecServer(do_nothing_move, client_starts=True)
    port, thread = serve_one_client(server)
    done = subprocess.run(
        [sys.executable, "-m", "arena", "labyrinth", "connect", "127.0.0.1", str(port),
         "--name", "arena_test", "--strategy", "astar", "--training", "DO_NOTHING", "-v"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    thread.join(timeout=30)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].startswith("turn 1: we step ")
    assert re.fullmatch(
        r"turn 1: we step (up|down|left|right) \('[4-7] 0'\), play goes on", lines[1]
    )
    assert re.fullmatch(r"turn 2: they stay \('8 0'\), play goes on", lines[2])
    assert re.fullmatch(r"turn \d+: we step \w+ \('[4-7] 0'\), we win", lines[-2])
    assert lines[-1].startswith("game game_5: we won after ")
    assert "MOVE_OK" not in done.stdout
    # Before the game, what it waits for (a course server may take minutes to pair it).
    assert done.stderr.startswith(
        f"arena labyrinth: connected to 127.0.0.1:{port} as arena_test: waiting for a game"
        " (DO_NOTHING), then playing it\n"
    )
