"""The Labyrinth server of the 2017 protocol (server/labyrinth/server.py): whole games over loopback
against every training player in both rules profiles, two programs paired, a league and a
knockout, every malformed or out-of-turn command losing the game for its sender only, and the
clock in virtual time."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator

import pytest
import trio
from labyrinth_kit import AsyncClient, memory_client

from client.labyrinth import Connection, OnlineResult, play_online
from labyrinth.rotator import Rotator
from server.labyrinth.server import LabyrinthServer, Settings, serve_labyrinth

TRAININGS = ["DO_NOTHING", "PLAY_RANDOM", "PLAY_RANDOM rotate=false", "ASTAR", "ROTATOR"]


def blocking_client(port: int, training: str, name: str = "arena") -> OnlineResult:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        return play_online(Connection(sock), name, training, Rotator().choose)
    finally:
        sock.close()


@pytest.mark.parametrize("rules", ["spec", "cgs2017"])
async def test_our_client_wins_whole_games_over_loopback_against_every_training_player(
    rules: str,
) -> None:
    server = LabyrinthServer(Settings(rules=rules), seed=3)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_labyrinth, server)
        for training in TRAININGS:
            for start in (0, 1):
                options = f"{training} start={start} seed={start + 11}"
                result = await trio.to_thread.run_sync(blocking_client, port, options)
                assert result.rules == rules, options
                assert result.we_started == (start == 0)
                # Our rotator beats the course's players; against itself either side may win.
                assert result.won or training == "ROTATOR", options
        nursery.cancel_scope.cancel()
    assert len(server.finished) == 2 * len(TRAININGS)
    assert all(
        run.table.reason.endswith("reached the treasure") for run in server.finished.values()
    )


async def test_seed_reproduces_this_games_maze() -> None:
    server = LabyrinthServer(seed=0)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        mazes = []
        for name in ("a", "b"):
            client = memory_client(nursery, server)
            _, width, height, maze, _ = await client.join(name, "DO_NOTHING seed=42 start=0")
            mazes.append((width, height, maze))
        assert mazes[0] == mazes[1]
        nursery.cancel_scope.cancel()


async def play_program(client: AsyncClient, seat: int, width: int, height: int, maze: str) -> str:
    """Plays ASTAR's moves by the protocol until the end; returns 'won' or 'lost'."""
    from labyrinth.players import astar_move
    from labyrinth.rules import Labyrinth, Move, format_move, parse_move

    lab = Labyrinth.from_maze_text(width, height, maze)
    while True:
        if lab.to_move == seat:
            move = astar_move(lab)
            ok, code, _ = await client.command(f"PLAY_MOVE {format_move(move)}", 3)
            mover_is_us = True
        else:
            ok, text, code = await client.command("GET_MOVE", 3)
            assert text is not None
            move = parse_move(text)
            mover_is_us = False
        assert ok == "OK"
        assert code is not None
        lab.play(Move(*move))
        if int(code) != 0:
            return "won" if (int(code) == 1) == mover_is_us else "lost"


async def test_two_programs_waiting_are_paired_by_the_teacher_and_play_to_the_end() -> None:
    server = LabyrinthServer(seed=5)
    results: dict[str, str] = {}
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        clients = {name: memory_client(nursery, server) for name in ("alice", "bob")}

        async def program(name: str) -> None:
            _game, width, height, maze, seat = await clients[name].join(name, "")
            results[name] = await play_program(clients[name], seat, width, height, maze)

        for name in clients:
            nursery.start_soon(program, name)
        while len(server.waiting) < 2:
            await trio.testing.wait_all_tasks_blocked()
        with pytest.raises(ValueError, match="carol is not waiting"):
            server.pair("alice", "carol")
        run = server.pair("alice", "bob")
        assert run.table.names == ("alice", "bob")
        while len(results) < 2:
            await trio.testing.wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    assert sorted(results.values()) == ["lost", "won"]
    assert results["alice" if run.table.winner == 0 else "bob"] == "won"


async def tournament_program(
    nursery: trio.Nursery, server: LabyrinthServer, name: str, cup: str, played: dict[str, int]
) -> None:
    """A program in tournament ``cup``: it joins, plays each game it is given to the end and
    asks for the next, as the course's C programs do; ``played`` counts its games."""
    client = memory_client(nursery, server)
    assert await client.command(f"CLIENT_NAME {name}", 1) == ["OK"]
    while True:
        ok, _game, size = await client.command(f"WAIT_GAME TOURNAMENT {cup}", 3)
        assert ok == "OK"
        assert size is not None
        width, height = (int(x) for x in size.split())
        _, maze, seat = await client.command("GET_GAME_DATA", 3)
        assert maze is not None
        assert seat is not None
        await play_program(client, int(seat), width, height, maze)
        played[name] += 1


async def test_a_league_tournament_plays_phase_by_phase_with_standings() -> None:
    server = LabyrinthServer(seed=9)
    names = ["p1", "p2", "p3"]
    played: dict[str, int] = dict.fromkeys(names, 0)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        server.create_tournament("cup", "league")

        for name in names:
            nursery.start_soon(tournament_program, nursery, server, name, "cup", played)
        await trio.testing.wait_all_tasks_blocked()
        tournament = server.tournaments["cup"]
        assert tournament.players == names
        assert tournament.total_phases() == 6
        for _ in range(6):
            server.next_phase("cup")
            while tournament.phase_running:
                await trio.testing.wait_all_tasks_blocked()
        assert tournament.finished
        with pytest.raises(ValueError, match="is over"):
            server.next_phase("cup")
        nursery.cancel_scope.cancel()
    assert played == dict.fromkeys(names, 4)
    standings = tournament.standings()
    assert (
        sum(int(row["wins"]) for row in standings)
        + sum(int(row["draws"]) for row in standings) // 2
        == 6
    )
    assert [row["played"] for row in standings] == [4, 4, 4]


async def test_a_knockout_ends_with_one_winner() -> None:
    from labyrinth.tournament import Tournament

    cup = Tournament("ko", "knockout")
    for name in "abcde":
        cup.join(name)
    rounds = 0
    while not cup.finished:
        for pairing in cup.next_phase():
            cup.record(pairing, pairing.second)
        rounds += 1
    assert rounds == cup.total_phases() == 3
    assert len(cup.alive) == 1


async def test_a_knockout_of_five_on_the_server_plays_phase_by_phase_with_a_bye() -> None:
    """Five programs join a knockout: the first phase pairs four and gives the fifth a bye,
    winners go on phase by phase, and three phases leave one winner."""
    server = LabyrinthServer(seed=10)
    names = ["p1", "p2", "p3", "p4", "p5"]
    played: dict[str, int] = dict.fromkeys(names, 0)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        server.create_tournament("ko", "knockout")

        for name in names:  # one after the other: the order of joining seeds the draw
            nursery.start_soon(tournament_program, nursery, server, name, "ko", played)
            await trio.testing.wait_all_tasks_blocked()
        tournament = server.tournaments["ko"]
        assert tournament.players == names
        assert tournament.total_phases() == 3
        phases = []
        for _ in range(3):
            pairings = server.next_phase("ko")
            phases.append([(p.first, p.second) for p in pairings])
            assert all(p.game for p in pairings)  # every game started at once
            while tournament.phase_running:
                await trio.testing.wait_all_tasks_blocked()
        assert tournament.finished
        with pytest.raises(ValueError, match="is over"):
            server.next_phase("ko")
        nursery.cancel_scope.cancel()
    assert phases[0] == [("p1", "p2"), ("p3", "p4")]  # p5 has a bye
    assert [len(phase) for phase in phases] == [2, 1, 1]
    assert "p5" in {name for pair in phases[1] + phases[2] for name in pair}
    assert len(tournament.alive) == 1
    (champion,) = tournament.alive
    last = tournament.phases[-1][0]
    assert last.winner == champion
    assert sum(played.values()) == 2 * 4  # four games of two programs each
    assert played[champion] == (3 if champion != "p5" else 2)
    wins = {row["player"]: row["wins"] for row in tournament.standings()}
    assert wins[champion] == played[champion]


@pytest.mark.parametrize(
    ("before", "command", "answer"),
    [
        ([], b"HELLO", "The first command must be CLIENT_NAME"),
        ([], b"CLIENT_NAME bad name!", "is not valid"),
        ([], b"CLIENT_NAME " + b"a" * 21, "is not valid"),
        ([], b"\xff\xfe", "ASCII"),
        # A write is one command, at most 1024 bytes (the public server's recv(1024)), however
        # many reads it takes.
        ([], b"CLIENT_NAME " + b"x" * 2000, "a command is at most 1024 bytes"),
        (["CLIENT_NAME me"], b"WAIT_GAME FOO", "training player name 'FOO' is not valid"),
        (["CLIENT_NAME me"], b"WAIT_GAME PLAY_RANDOM rotate=maybe", "rotate=maybe is incorrect"),
        (["CLIENT_NAME me"], b"WAIT_GAME DO_NOTHING timeout=-3", "timeout=-3 is incorrect"),
        (["CLIENT_NAME me"], b"WAIT_GAME TOURNAMENT nope", "There is no tournament nope"),
        (["CLIENT_NAME me"], b"PLAY_MOVE 4 0", "PLAY_MOVE is not allowed now"),
        (["CLIENT_NAME me"], b"CLIENT_NAME again", "CLIENT_NAME is not allowed now"),
    ],
)
async def test_a_bad_command_outside_a_game_is_answered_and_the_connection_closed(
    before: list[str], command: bytes, answer: str
) -> None:
    server = LabyrinthServer(seed=1)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        client = memory_client(nursery, server)
        for text in before:
            assert await client.command(text, 1) == ["OK"]
        message = (await client.command(command, 1))[0]
        assert message is not None
        assert answer in message
        assert await client.receive() == message  # said twice, as the public server does
        assert await client.receive() is None
        # The server goes on: another client plays a whole game.
        other = memory_client(nursery, server)
        _game, width, height, maze, seat = await other.join("fine", "DO_NOTHING start=0")
        assert await play_program(other, seat, width, height, maze) == "won"
        nursery.cancel_scope.cancel()


#: The answer to a write of blank lines only (an error replaces OK, as for every bad command).
EMPTY = "an empty command: a write of blank lines only"


@contextlib.asynccontextmanager
async def loopback_client(
    nursery: trio.Nursery, server: LabyrinthServer
) -> AsyncIterator[AsyncClient]:
    """A client of ``server`` over a real TCP connection on 127.0.0.1, closed on the way out."""
    port = await nursery.start(serve_labyrinth, server)
    async with await trio.open_tcp_stream("127.0.0.1", port) as stream:
        yield AsyncClient(stream)


@pytest.mark.parametrize(
    ("before", "blank"),
    [([], b"\n\n\n"), ([], b"\r\n"), ([], b"   "), (["CLIENT_NAME me"], b"\n")],
)
async def test_a_blank_write_outside_a_game_is_answered_and_the_connection_closed(
    before: list[str], blank: bytes
) -> None:
    """Every command is answered, an error in place of OK (spec labyrinth.md, "Network play"):
    over loopback, a write of blank lines only is an empty command, answered as every bad
    command outside a game (its message twice, then the close), never left unanswered."""
    server = LabyrinthServer(seed=1)
    async with trio.open_nursery() as nursery:
        async with loopback_client(nursery, server) as client:
            with trio.fail_after(30):  # a guard only: the answer comes within command_gap
                for text in before:
                    assert await client.command(text, 1) == ["OK"]
                assert await client.command(blank, 2) == [EMPTY, EMPTY]
                assert await client.receive() is None
        nursery.cancel_scope.cancel()


async def test_a_blank_write_in_a_game_loses_it_and_a_trailing_newline_does_not() -> None:
    """Over loopback: blank lines around a command in its write are tolerated (no second
    answer); a write of blank lines only in a game is a protocol violation: answered, it loses
    the game for its sender, whose connection then closes, as for every malformed command."""
    server = LabyrinthServer(seed=1)
    async with trio.open_nursery() as nursery:
        async with loopback_client(nursery, server) as client:
            with trio.fail_after(30):
                assert await client.command(b"CLIENT_NAME me\r\n\n", 1) == ["OK"]
                ok, _game, _size = await client.command(b"\nWAIT_GAME DO_NOTHING start=0\n\n", 3)
                assert ok == "OK"
                ok, _maze, seat = await client.command("GET_GAME_DATA", 3)
                assert (ok, seat) == ("OK", "0")
                assert await client.command(b"\n", 1) == [EMPTY]
                run = server.clients["me"].run
                assert run is not None
                assert (run.table.over, run.table.winner) == (True, 1)
                assert await client.receive() is None  # closed, as after every bad command
        nursery.cancel_scope.cancel()


LONG = "x" * 990
#: Inputs the server used to echo whole into its error replies (up to 1045 bytes).
ECHOING_INPUTS = [
    ([], "CLIENT_NAME " + LONG),
    (["CLIENT_NAME me"], "WAIT_GAME " + LONG),
    (["CLIENT_NAME me"], "WAIT_GAME DO_NOTHING " + LONG),
    (["CLIENT_NAME me"], "WAIT_GAME DO_NOTHING timeout=" + "9" * 990),
    (["CLIENT_NAME me"], "WAIT_GAME DO_NOTHING delay=" + "9" * 990),
    (["CLIENT_NAME me"], "WAIT_GAME DO_NOTHING start=" + "9" * 990),
    (["CLIENT_NAME me"], "WAIT_GAME DO_NOTHING seed=" + "9" * 990),
    (["CLIENT_NAME me"], "WAIT_GAME DO_NOTHING rotate=" + LONG),
    (["CLIENT_NAME me"], "X" * 1020),
    (["CLIENT_NAME me", "WAIT_GAME"], "X" * 1020),
]


@pytest.mark.parametrize(("before", "command"), ECHOING_INPUTS)
async def test_an_error_reply_outside_a_game_stays_within_1000_bytes(
    before: list[str], command: str
) -> None:
    """The spec's limit for every message but the maze holds whatever the client sent: the
    echoed input is cut to 64 characters and an ellipsis."""
    server = LabyrinthServer(seed=1)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        client = memory_client(nursery, server)
        for text in before:
            assert await client.command(text, 1) == ["OK"]
        replies = [await client.command(command, 1), [await client.receive()]]
        assert await client.receive() is None
        nursery.cancel_scope.cancel()
    texts = [str(reply[0]) for reply in replies]
    assert all(len(text.encode()) <= 1000 for text in texts), [len(t) for t in texts]
    assert texts[0].count("...") == 1


@pytest.mark.parametrize("command", ["PLAY_MOVE " + LONG, "X" * 1020, "PLAY_MOVE 1 " + LONG])
async def test_an_error_reply_in_a_game_stays_within_1000_bytes_for_both_players(
    command: str,
) -> None:
    """A long bad command loses the game; neither its sender's reply nor the opponent's
    notice of it exceeds 1000 bytes."""
    server = LabyrinthServer(Settings(auto_pair=True), seed=2)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        first, second, _ = await paired(nursery, server)
        await first.receive(), await first.receive()
        await first.send(command)
        sender = [await first.receive() for _ in range(3)]
        notice = await second.command("PLAY_MOVE 0 0", 3)
        nursery.cancel_scope.cancel()
    replies = [str(text) for text in [*sender, *notice] if text is not None]
    assert notice[:2] == ["OK", "1"]
    assert all(len(text.encode()) <= 1000 for text in replies), [len(t) for t in replies]


@pytest.mark.parametrize(
    ("command", "sender_gets"),
    [
        ("PLAY_MOVE 4 -1", ["OK", "-1", "The move is not in correct form"]),
        ("PLAY_MOVE +4 0", ["OK", "-1", "The move is not in correct form"]),
        ("PLAY_MOVE 4", ["OK", "-1", "The move is not in correct form"]),
        ("PLAY_MOVE up", ["OK", "-1", "The move is not in correct form"]),
        ("GET_MOVE", ["It is your turn"]),
        ("WAIT_GAME", ["WAIT_GAME is not allowed now"]),
        ("CLIENT_NAME x", ["CLIENT_NAME is not allowed now"]),
        ("HELLO", ["HELLO is not allowed now"]),
        ("PLAY_MOVE 9 0", ["OK", "-1", "player 0 unknown move type 9"]),
    ],
)
async def test_a_bad_command_in_a_game_loses_it_for_the_sender_and_the_other_wins(
    command: str, sender_gets: list[str]
) -> None:
    """Seat 0 (to move) misbehaves; seat 1, waiting in GET_MOVE, learns it won: an empty move
    and -1 for the opponent, as the public server answers."""
    server = LabyrinthServer(Settings(auto_pair=True), seed=2)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        first, second, joined = await paired(nursery, server)
        assert joined[4] == 1
        await first.receive(), await first.receive()
        await second.send("GET_MOVE")
        await trio.testing.wait_all_tasks_blocked()
        answer = await first.command(command, len(sender_gets))
        assert answer[: len(sender_gets) - 1] == sender_gets[:-1]
        assert sender_gets[-1] in str(answer[-1])
        if sender_gets[0] == "OK":
            assert [await second.receive() for _ in range(3)] in (
                ["OK", "", "-1"],
                ["OK", command.split(" ", 1)[1], "-1"],
            )
        else:
            assert [await second.receive() for _ in range(3)] == ["OK", "", "-1"]
        run = next(iter(server.finished.values()))
        assert run.table.winner == 1
        nursery.cancel_scope.cancel()


async def test_playing_out_of_turn_loses(autojump_clock: trio.abc.Clock) -> None:
    server = LabyrinthServer(Settings(auto_pair=True), seed=2)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        first, second, _ = await paired(nursery, server)
        assert await second.command("PLAY_MOVE 8 0", 1) == ["It is not your turn"]
        assert (await first.receive(), await first.receive()) == (
            first_game(server),
            "{} {}".format(*size(server)),
        )
        assert await first.command("PLAY_MOVE 8 0", 3) == [
            "OK",
            "1",
            "The opponent lost: played out of turn",
        ]
        nursery.cancel_scope.cancel()


async def paired(
    nursery: trio.Nursery, server: LabyrinthServer
) -> tuple[AsyncClient, AsyncClient, tuple[str, int, int, str, int]]:
    """Two programs in one game of an auto-pairing server: "first" waits asking to start,
    "second" joins (its game, width, height, maze and seat come third); nothing of the
    first's game data is read yet."""
    first, second = memory_client(nursery, server), memory_client(nursery, server)
    assert await first.command("CLIENT_NAME first", 1) == ["OK"]
    assert await first.command("WAIT_GAME start=0", 1) == ["OK"]
    return first, second, await second.join("second", "")


def first_game(server: LabyrinthServer) -> str:
    return next(iter(server.finished))


def size(server: LabyrinthServer) -> tuple[int, int]:
    lab = next(iter(server.finished.values())).table.lab
    return lab.width, lab.height


async def test_a_silent_program_loses_on_time_and_the_other_hears_it(
    autojump_clock: trio.abc.Clock,
) -> None:
    """10 s per move (virtual time): the waiting program's GET_MOVE returns an empty move and
    -1; one whose PLAY_MOVE waits for the silent one's GET_MOVE reads 1 "Timeout of the
    opponent!"."""
    server = LabyrinthServer(Settings(auto_pair=True, move_timeout=10.0), seed=4)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        first, _second, _ = await paired(nursery, server)
        await first.receive(), await first.receive()
        start = trio.current_time()
        assert await first.command("PLAY_MOVE 8 0", 3) == ["OK", "1", "Timeout of the opponent!"]
        assert trio.current_time() - start == pytest.approx(10.0)
        nursery.cancel_scope.cancel()
    run = next(iter(server.finished.values()))
    assert run.records[-1] == {
        "type": "end",
        "turn": 1,
        "winner": 0,
        "reason": "second: Timeout",
        "forfeit": 1,
    }


async def test_a_training_game_with_timeout_option_ends_when_the_program_is_silent(
    autojump_clock: trio.abc.Clock,
) -> None:
    server = LabyrinthServer(seed=4)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        client = memory_client(nursery, server)
        await client.join("slow", "ASTAR timeout=3 start=0")
        start = trio.current_time()
        while not server.finished:
            await trio.sleep(0.5)
        assert trio.current_time() - start == pytest.approx(3.0, abs=0.6)
        nursery.cancel_scope.cancel()
    run = next(iter(server.finished.values()))
    assert run.table.reason == "slow: Timeout"


async def test_delay_holds_the_training_players_move(autojump_clock: trio.abc.Clock) -> None:
    server = LabyrinthServer(seed=4)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        client = memory_client(nursery, server)
        await client.join("me", "DO_NOTHING delay=1500 start=0")
        assert await client.command("PLAY_MOVE 8 0", 3) == ["OK", "0", ""]
        start = trio.current_time()
        assert await client.command("GET_MOVE", 3) == ["OK", "8 0", "0"]
        assert trio.current_time() - start == pytest.approx(1.5)
        nursery.cancel_scope.cancel()


async def test_disp_game_and_send_comment() -> None:
    server = LabyrinthServer(seed=4)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        client = memory_client(nursery, server)
        await client.join("me", "DO_NOTHING start=0")
        ok, picture = await client.command("DISP_GAME", 2)
        assert ok == "OK"
        assert picture is not None
        assert "A me" in picture
        assert len(picture.encode()) <= 1000
        assert await client.command("SEND_COMMENT hello teacher", 1) == ["OK"]
        run = next(iter(server.games.values()))
        assert run.table.comments == [(0, "hello teacher")]
        assert run.records[-1]["type"] == "comment"
        nursery.cancel_scope.cancel()


async def test_a_disconnection_mid_game_is_a_loss_and_the_name_is_free_again() -> None:
    server = LabyrinthServer(Settings(auto_pair=True), seed=4)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        first, second, _ = await paired(nursery, server)
        await second.send("GET_MOVE")
        await first.stream.aclose()
        assert [await second.receive() for _ in range(3)] == ["OK", "", "-1"]
        again = memory_client(nursery, server)
        assert await again.command("CLIENT_NAME first", 1) == ["OK"]
        nursery.cancel_scope.cancel()
    run = next(iter(server.finished.values()))
    assert run.table.winner == 1
    assert run.table.reason == "first: Disconnection"


async def test_a_tournament_game_waits_for_a_busy_player_and_an_absent_one_loses() -> None:
    """Phase 2 starts while p3 has not yet asked for its next game: its game starts when it
    does. A player who has disconnected loses its game of the phase."""
    server = LabyrinthServer(seed=9)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        cup = server.create_tournament("cup", "league")
        clients = {name: memory_client(nursery, server) for name in ("p1", "p2", "p3", "p4")}
        for name, client in clients.items():
            assert await client.command(f"CLIENT_NAME {name}", 1) == ["OK"]
            assert await client.command("WAIT_GAME TOURNAMENT cup", 1) == ["OK"]
        await trio.testing.wait_all_tasks_blocked()
        first = server.next_phase("cup")
        assert [(p.first, p.second) for p in first] == [("p1", "p4"), ("p2", "p3")]
        await clients["p1"].stream.aclose()  # p1 leaves mid-game: p4 wins by its disconnection

        async def finish(name: str) -> None:
            client = clients[name]
            game, size = await client.receive(), await client.receive()
            assert game is not None
            assert size is not None
            width, height = (int(x) for x in size.split())
            _, maze, seat = await client.command("GET_GAME_DATA", 3)
            assert maze is not None
            assert seat is not None
            await play_program(client, int(seat), width, height, maze)

        async with trio.open_nursery() as games:
            games.start_soon(finish, "p2")
            games.start_soon(finish, "p3")
        assert await clients["p4"].receive() == first[0].game  # p1 left during this game
        assert await clients["p4"].receive() is not None  # its size
        assert not cup.phase_running
        assert first[0].winner == "p4"
        for name in ("p2", "p4"):  # p3 is slow to come back
            assert await clients[name].command("WAIT_GAME TOURNAMENT cup", 1) == ["OK"]
        second = server.next_phase("cup")
        assert [(p.first, p.second) for p in second] == [("p1", "p2"), ("p3", "p4")]
        assert second[0].winner == "p2"  # p1 is gone
        assert second[1].game == ""  # p3 is not back yet: its game waits for it
        assert await clients["p3"].command("WAIT_GAME TOURNAMENT cup", 1) == ["OK"]
        assert second[1].game.startswith("spec-")
        assert second[1].winner is None
        assert server._pending == []
        nursery.cancel_scope.cancel()


async def test_a_draw_at_the_turn_limit_ends_our_client_with_a_draw() -> None:
    """The protocol has no code for a draw: the server refuses the next move saying so, and
    our client reports a draw instead of an error."""
    server = LabyrinthServer(Settings(max_turns=6), seed=3)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_labyrinth, server)

        def client() -> OnlineResult:
            from labyrinth.players import do_nothing_move

            with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
                return play_online(Connection(sock), "idle", "DO_NOTHING", do_nothing_move)

        result = await trio.to_thread.run_sync(client)
        nursery.cancel_scope.cancel()
    assert result.draw
    assert not result.won
    assert "The game is over: draw, no winner after 6 turns" in result.message
    run = next(iter(server.finished.values()))
    assert run.records[-1]["winner"] is None


async def test_a_bare_command_split_by_tcp_is_heard_whole(autojump_clock: trio.abc.Clock) -> None:
    """The C API writes each command bare (no newline); TCP may hand the server one write in
    pieces. The pieces of one write are one command; the command ends once its client has sent
    nothing more for ``command_gap`` (it waits for the answer), and is answered then."""
    server = LabyrinthServer(seed=1)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        client = memory_client(nursery, server, terminator=b"")
        sent = trio.current_time()
        await client.send(b"CLIENT_NA")
        await trio.sleep(server.settings.command_gap / 2)
        await client.send(b"ME me")
        assert await client.receive() == "OK"
        assert trio.current_time() - sent >= server.settings.command_gap
        ok, _game, _size = await client.command("WAIT_GAME DO_NOTHING start=0", 3)
        assert ok == "OK"
        assert server.clients["me"] is not None
        # A pause longer than the gap ends the command: two commands then, the first malformed.
        await client.send(b"PLAY_MO")
        await trio.sleep(server.settings.command_gap * 2)
        await client.send(b"VE 4 0")
        assert await client.receive() == "PLAY_MO is not allowed now"
        nursery.cancel_scope.cancel()


async def test_a_connection_that_never_names_itself_is_told_and_closed_at_the_name_timeout(
    autojump_clock: trio.abc.Clock,
) -> None:
    # A client that connects and says nothing held its connection (and a place under the
    # server's connection cap) forever; the dungeon and Fish servers close such a one.
    server = LabyrinthServer(seed=1)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        named = memory_client(nursery, server)
        assert await named.command("CLIENT_NAME me", 1) == ["OK"]
        silent = memory_client(nursery, server)
        start = trio.current_time()
        with trio.fail_after(2 * server.settings.name_timeout):
            message = await silent.receive()
        assert trio.current_time() - start == pytest.approx(server.settings.name_timeout)
        assert message == f"No CLIENT_NAME within {server.settings.name_timeout:g} s"
        assert await silent.receive() == message  # said twice, as every error
        assert await silent.receive() is None
        # A named client waits as long as it likes before WAIT_GAME.
        with trio.move_on_after(10 * server.settings.name_timeout) as quiet:
            await named.receive()
        assert quiet.cancelled_caught
        assert await named.command("WAIT_GAME DO_NOTHING start=0", 3) != [None] * 3
        nursery.cancel_scope.cancel()
