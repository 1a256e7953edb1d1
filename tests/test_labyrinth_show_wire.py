"""``arena replay show --wire`` of a Labyrinth game log: every message each program sent and
received in a game, regenerated from the log alone, is what went over the wire (recorded by the
programs themselves, over the server's in-memory streams): two programs to a win with a
comment, a program against a training player, and a timeout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio
import trio.testing
from labyrinth_kit import AsyncClient

from arena.main import main as arena_main
from labyrinth.players import astar_move
from labyrinth.replay import read_game_log
from labyrinth.rules import Labyrinth, Move, format_move, parse_move
from protocol.labyrinth import frame
from replay.labyrinthwire import wire_lines
from server.labyrinth.server import LabyrinthServer, Settings


class Recorder(AsyncClient):
    """A client that keeps every command it sent and every message it read, in order, from the
    game's start (``recording``)."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        super().__init__(stream)
        self.seen: list[tuple[str, str]] = []
        self.recording = False

    async def send(self, text: str | bytes) -> None:
        if self.recording:
            self.seen.append(("program", str(text)))
        await super().send(text)

    async def receive(self) -> str | None:
        message = await super().receive()
        if self.recording and message is not None:
            self.seen.append(("server", frame(message, limit=9999).decode()))
        return message


def merged(lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Consecutive server messages as one piece (how the bytes were cut is not the game's)."""
    out: list[tuple[str, str]] = []
    for sender, text in lines:
        if out and sender == "server" and out[-1][0] == "server":
            out[-1] = ("server", out[-1][1] + text)
        else:
            out.append((sender, text))
    return out


def client(nursery: trio.Nursery, server: LabyrinthServer) -> Recorder:
    mine, theirs = trio.testing.memory_stream_pair()
    nursery.start_soon(server.handle, theirs)
    return Recorder(mine)


async def join(program: Recorder, name: str, wait: str) -> tuple[Labyrinth, int]:
    assert await program.command(f"CLIENT_NAME {name}", 1) == ["OK"]
    assert await program.command(f"WAIT_GAME {wait}", 1) == ["OK"]
    program.recording = True  # the game's name and size start the game
    game, size = await program.receive(), await program.receive()
    assert game is not None
    assert size is not None
    width, height = (int(x) for x in size.split())
    ok, maze, seat = await program.command("GET_GAME_DATA", 3)
    assert ok == "OK"
    assert maze is not None
    assert seat is not None
    return Labyrinth.from_maze_text(width, height, maze), int(seat)


async def play(program: Recorder, lab: Labyrinth, seat: int, comment: str | None = None) -> None:
    """ASTAR's moves to the end; ``comment`` sent before its first move."""
    while True:
        if lab.to_move == seat:
            if comment is not None:
                assert await program.command(f"SEND_COMMENT {comment}", 1) == ["OK"]
                comment = None
            move = astar_move(lab)
            _, code, _ = await program.command(f"PLAY_MOVE {format_move(move)}", 3)
        else:
            _, text, code = await program.command("GET_MOVE", 3)
            assert text is not None
            move = parse_move(text)
        assert code is not None
        lab.play(Move(*move))
        if int(code) != 0:
            return


def regenerated(log_dir: Path) -> tuple[Path, dict[str, list[tuple[str, str]]]]:
    (path,) = (log_dir / "games").glob("*.jsonl.gz")
    by_player: dict[str, list[tuple[str, str]]] = {}
    for line in wire_lines(read_game_log(str(path))):
        by_player.setdefault(line["player"], []).append((line["from"], line["wire"]))
    return path, {name: merged(lines) for name, lines in by_player.items()}


async def test_two_programs_messages_come_back_from_the_log(tmp_path: Path) -> None:
    server = LabyrinthServer(Settings(auto_pair=True, log_dir=tmp_path), seed=5)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        alice, bob = client(nursery, server), client(nursery, server)

        async def program(me: Recorder, name: str, wait: str, comment: str | None) -> None:
            lab, seat = await join(me, name, wait)
            await play(me, lab, seat, comment)

        async with trio.open_nursery() as games:
            games.start_soon(program, alice, "alice", "start=0", None)
            while not server.waiting:
                await trio.testing.wait_all_tasks_blocked()
            games.start_soon(program, bob, "bob", "", "on my way: 100% sure")
        nursery.cancel_scope.cancel()
    _, wire = regenerated(tmp_path)
    assert wire == {"alice": merged(alice.seen), "bob": merged(bob.seen)}
    assert ("program", "SEND_COMMENT on my way: 100% sure") in wire["bob"]
    assert sum(sender == "program" for sender, _ in wire["alice"]) > 5


async def test_a_program_against_a_training_player(tmp_path: Path) -> None:
    server = LabyrinthServer(Settings(log_dir=tmp_path), seed=3)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        me = client(nursery, server)
        lab, seat = await join(me, "carol", "ASTAR start=1")
        assert seat == 1
        await play(me, lab, seat)
        nursery.cancel_scope.cancel()
    _, wire = regenerated(tmp_path)
    assert wire == {"carol": merged(me.seen)}


async def test_a_timeout_and_what_the_other_program_reads(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    server = LabyrinthServer(Settings(auto_pair=True, move_timeout=10.0, log_dir=tmp_path), seed=4)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        first, second = client(nursery, server), client(nursery, server)
        assert await first.command("CLIENT_NAME first", 1) == ["OK"]
        assert await first.command("WAIT_GAME start=0", 1) == ["OK"]
        first.recording = True
        await join(second, "second", "")
        await first.receive(), await first.receive()
        assert (await first.command("GET_GAME_DATA", 3))[0] == "OK"
        await first.send("PLAY_MOVE 8 0")
        _, text, _ = await second.command("GET_MOVE", 3)
        assert text == "8 0"
        assert [await first.receive() for _ in range(3)] == ["OK", "0", ""]
        # second falls silent; first asks for its move and reads that it won
        assert await first.command("GET_MOVE", 3) == ["OK", "", "-1"]
        nursery.cancel_scope.cancel()
    _, wire = regenerated(tmp_path)
    assert wire == {"first": merged(first.seen), "second": merged(second.seen)}


def test_show_wire_prints_them_as_json_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async def game() -> None:
        server = LabyrinthServer(Settings(log_dir=tmp_path), seed=3)
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            me = client(nursery, server)
            lab, seat = await join(me, "carol", "ASTAR start=0")
            await play(me, lab, seat)
            nursery.cancel_scope.cancel()

    trio.run(game)
    (path,) = (tmp_path / "games").glob("*.jsonl.gz")
    assert arena_main(["replay", "show", "--wire", str(path)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines == wire_lines(read_game_log(str(path)))
    assert lines[0]["from"] == "server"
    assert lines[1] == {**lines[1], "from": "program", "wire": "GET_GAME_DATA", "player": "carol"}
    assert any(line["wire"].startswith("PLAY_MOVE ") and "t" in line for line in lines)


@pytest.mark.parametrize("bad", ["PLAY_MOVE 9 ", "PLAY_MOVE " + "x" * 80])
async def test_a_malformed_move_loses_and_both_programs_answers_come_back(
    tmp_path: Path, bad: str
) -> None:
    """Only the losing command's text is not in the log: everything else matches."""
    server = LabyrinthServer(Settings(auto_pair=True, log_dir=tmp_path), seed=2)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        first, second = client(nursery, server), client(nursery, server)
        assert await first.command("CLIENT_NAME first", 1) == ["OK"]
        assert await first.command("WAIT_GAME start=0", 1) == ["OK"]
        first.recording = True
        await join(second, "second", "")
        await first.receive(), await first.receive()
        assert (await first.command("GET_GAME_DATA", 3))[0] == "OK"
        await second.send("GET_MOVE")
        await trio.testing.wait_all_tasks_blocked()
        assert await first.command(bad, 3) == ["OK", "-1", "The move is not in correct form"]
        assert [await second.receive() for _ in range(3)] == ["OK", "", "-1"]
        nursery.cancel_scope.cancel()
    _, wire = regenerated(tmp_path)
    kept = [line for line in first.seen if line != ("program", bad)]
    assert wire == {"first": merged(kept), "second": merged(second.seen)}
