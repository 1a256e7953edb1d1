"""An in-memory server that behaves as the public CodingGameServer was observed to (spec
labyrinth.md, "The public server ... as observed"), for client tests: a move is two unsigned
decimal numbers (anything else is "not in correct form" and loses), the second player starts with
energy 2, an opponent's timeout comes back as PLAY_MOVE returning 1 or GET_MOVE returning an empty
move and -1. Written from the spec's observations, not from that server's code."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from labyrinth.generation import generate
from labyrinth.rules import PROFILES, Labyrinth, Move, ReturnCode

Policy = Callable[[Labyrinth], Move]
UNSIGNED_MOVE = re.compile(r"(\d+) (\d+)\s*.*", re.DOTALL)


def frame(*payloads: str) -> bytes:
    return b"".join(b"%04d" % len(p.encode()) + p.encode() for p in payloads)


class CgsFake:
    """One game of ``seed`` (cgs2017 rules) between the client and ``opponent``.

    ``game`` is the game's name (CGS names are 8 hex digits); ``opponent_times_out_at`` makes the
    opponent time out on that turn, seen through PLAY_MOVE (when it follows our move) or GET_MOVE.
    """

    def __init__(
        self,
        opponent: Policy,
        client_starts: bool = True,
        seed: int = 5,
        game: str = "0005a1b2",
        opponent_times_out_at: int | None = None,
    ) -> None:
        self.labyrinth = generate(seed, PROFILES["cgs2017"])
        self.opponent = opponent
        self.seat = 0 if client_starts else 1
        self.game = game
        self.timeout_at = opponent_times_out_at
        self.commands: list[str] = []

    def _opponent_times_out(self) -> bool:
        return self.timeout_at is not None and self.labyrinth.turn + 1 >= self.timeout_at

    def answer(self, command: str) -> list[str]:
        self.commands.append(command)
        word, _, rest = command.partition(" ")
        lab = self.labyrinth
        if word == "CLIENT_NAME":
            return ["OK"]
        if word == "WAIT_GAME":
            return ["OK", self.game, f"{lab.width} {lab.height}"]
        if word == "GET_GAME_DATA":
            return ["OK", lab.maze_text(), str(self.seat)]
        if word == "PLAY_MOVE":
            match = UNSIGNED_MOVE.fullmatch(rest)
            if match is None:
                lab.over = True
                return ["OK", "-1", "The move is not in correct form"]
            code = lab.play(Move(int(match[1]), int(match[2])))
            if code == ReturnCode.MOVE_OK and self._opponent_times_out():
                lab.over = True
                return ["OK", "1", "Timeout of the opponent!"]
            return ["OK", str(int(code)), lab.end_reason]
        if word == "GET_MOVE":
            if self._opponent_times_out():
                lab.over = True
                return ["OK", "", "-1"]
            move = self.opponent(lab)
            code = lab.play(move)
            return ["OK", f"{move.type} {move.value}", str(int(code))]
        return [f"Unknown command {word}"]


def eager_rotator(rng: random.Random) -> Policy:
    """Rotates a random row as soon as it has 5 energy, else stays: against a client that
    believes the second player started with 1 energy, its first rotation looks illegal."""

    def choose(labyrinth: Labyrinth) -> Move:
        if labyrinth.energies[labyrinth.to_move] >= 5:
            return Move(rng.randrange(2), rng.randrange(labyrinth.height))
        return Move(8, 0)

    return choose


class FakeStream:
    """A socket-like stream onto a fake server (sendall / recv)."""

    def __init__(self, server: CgsFake, chunk: int = 4096) -> None:
        self.server = server
        self.chunk = chunk
        self.outgoing = bytearray()

    def sendall(self, data: bytes, /) -> None:
        self.outgoing += frame(*self.server.answer(data.decode("ascii")))

    def recv(self, size: int, /) -> bytes:
        data = bytes(self.outgoing[: min(size, self.chunk)])
        del self.outgoing[: len(data)]
        return data
