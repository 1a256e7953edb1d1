"""A game the Labyrinth server hosts, and a connection that plays in it: the records the
server's tasks share (:class:`Client`, :class:`GameRun`), how a run is set up from a ``WAIT``
request (:func:`new_run`: seed, seats, training bot, log header), and the page's views of a run
(:func:`game_state`, :func:`game_summary`) and of the lobby (:func:`lobby_view`).
:mod:`server.labyrinth.server` owns and drives them.
"""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any

import trio

from labyrinth.generation import generate
from labyrinth.players import astar_move, do_nothing_move, random_move
from labyrinth.rotator import Rotator
from labyrinth.rules import PROFILES, Labyrinth, Move
from labyrinth.session import Session
from labyrinth.table import Bot, Table
from labyrinth.tournament import Pairing, Tournament
from protocol.labyrinth import CommandDecoder, WaitRequest, frame
from replay.labyrinthlog import LabyrinthGameLog
from server.cycle import Link
from server.net import Gate, Limits

__all__ = [
    "LOG_FORMAT",
    "Client",
    "GameRun",
    "game_state",
    "game_summary",
    "lobby_view",
    "new_run",
]

LOG_FORMAT = "labyrinth-2017/1"


class Client:
    """One connection (its :class:`server.cycle.Link`) and what the server keeps of it."""

    def __init__(self, number: int, stream: trio.abc.Stream, limits: Limits, gate: Gate) -> None:
        self.number = number
        self.decoder = CommandDecoder()
        self.link: Link[bytes] = Link(stream, self.decoder, limits, gate, refusal, _render)
        self.session = Session()
        self.request: WaitRequest | None = None
        self.run: GameRun | None = None
        self.seat = 0

    @property
    def name(self) -> str:
        return self.session.name or f"#{self.number}"

    @property
    def closing(self) -> bool:
        return self.link.closing

    @property
    def closed(self) -> bool:
        return self.link.closed

    def send(self, messages: tuple[str, ...], close: bool = False) -> None:
        """Each message in a write of its own (as the public server), then close if asked."""
        self.link.deliver([frame(message, limit=9999) for message in messages], close)


def refusal(why: str) -> bytes:
    """How the Labyrinth server refuses a connection: one framed line."""
    return frame(f"Refused: {why}")


def _render(items: list[bytes]) -> tuple[bytes, bool]:
    return b"".join(items), False


@dataclasses.dataclass
class GameRun:
    """A game being played: its table, its programs, its clock and its log."""

    table: Table
    clients: list[Client | None]
    seed: int
    rules: str
    timeout: float
    delay: float
    header: dict[str, Any]
    records: list[dict[str, Any]]
    log: LabyrinthGameLog | None = None
    pairing: tuple[Tournament, Pairing] | None = None
    changed: trio.Event = dataclasses.field(default_factory=trio.Event)
    deadline_seat: int | None = None
    deadline_at: float = math.inf
    bot_due: bool = False


def new_run(
    players: tuple[Client, Client | None],
    request: WaitRequest,
    rules: str,
    rng: random.Random,
    number: int,
    *,
    max_turns: int | None,
    timeout: float,
    pairing: tuple[Tournament, Pairing] | None = None,
) -> GameRun:
    """Game ``number`` of ``players`` (the second None: the training player of ``request``);
    ``request``'s options decide the seed, who starts and the bot's delay, ``rng`` what they
    leave open (the seed first, then who starts)."""
    client, other = players
    seed = request.seed if request.seed is not None else rng.randrange(1 << 24)
    config = PROFILES[rules]
    if max_turns is not None:
        config = dataclasses.replace(config, max_turns=max_turns)
    labyrinth = generate(seed, config)
    first = rng.randrange(2) if request.start == -1 else request.start
    seats: list[Client | None] = [client, other] if first == 0 else [other, client]
    bot = _training_bot(request, seed) if other is None else None
    bots = tuple(bot if seat is None else None for seat in seats)
    names = tuple(seat.name if seat is not None else (request.training or "BOT") for seat in seats)
    name = f"{rules}-{number}-s{seed}"
    table = Table(name, labyrinth, (names[0], names[1]), bots)
    header = {
        "type": "game",
        "format": LOG_FORMAT,
        "game": name,
        "rules": rules,
        "seed": seed,
        "width": labyrinth.width,
        "height": labyrinth.height,
        "maze": labyrinth.maze_text(),
        "players": list(names),
        "bots": [b is not None for b in bots],
        "max_turns": labyrinth.config.max_turns,
        "timeout": timeout,
    }
    if pairing is not None:
        header["tournament"] = pairing[0].name
    return GameRun(
        table=table,
        clients=seats,
        seed=seed,
        rules=rules,
        timeout=timeout,
        delay=request.delay,
        header=header,
        records=[header],
        pairing=pairing,
    )


def game_state(table: Table, lab: Labyrinth) -> dict[str, Any]:
    """A position as the page draws it."""
    return {
        "width": lab.width,
        "height": lab.height,
        "maze": lab.maze_text(),
        "players": [list(cell) for cell in lab.players],
        "treasure": list(lab.treasure),
        "energies": list(lab.energies),
        "turn": lab.turn,
        "to_move": lab.to_move,
        "names": list(table.names),
        "over": table.over,
        "winner": table.winner,
        "reason": table.reason,
        "comments": [[seat, text] for seat, text in table.comments[-20:]],
    }


def game_summary(run: GameRun) -> dict[str, Any]:
    table = run.table
    return {
        "game": table.name,
        "players": list(table.names),
        "turn": table.lab.turn,
        "over": table.over,
        "winner": None if table.winner is None else table.names[table.winner],
        "reason": table.reason,
        "tournament": run.pairing[0].name if run.pairing else None,
    }


def _training_bot(request: WaitRequest, seed: int) -> Bot:
    if request.training == "DO_NOTHING":
        return do_nothing_move
    if request.training == "ASTAR":
        return astar_move
    if request.training == "ROTATOR":
        return Rotator().choose
    rng = random.Random(seed)
    rotate = request.rotate

    def play_random(labyrinth: Labyrinth) -> Move:
        return random_move(labyrinth, rng, rotate)

    return play_random


def lobby_view(
    clients: dict[str, Client],
    waiting: list[Client],
    games: dict[str, GameRun],
    finished: dict[str, GameRun],
    tournaments: dict[str, Tournament],
) -> dict[str, Any]:
    """The server's lobby as the page draws it: each connected player's state, the games being
    played, the last 50 finished (newest first) and the tournaments."""
    return {
        "players": [
            {
                "name": name,
                "state": "finished" if client.run is not None and client.run.table.over
                else client.session.phase.value,
                "game": client.run.table.name if client.run is not None else None,
                "waiting": None if client not in waiting or client.request is None
                else (f"tournament {client.request.tournament}" if client.request.tournament
                      else "a game"),
            }
            for name, client in sorted(clients.items())
        ],
        "games": [game_summary(run) for run in games.values()],
        "finished": [game_summary(run) for run in reversed(finished.values())][:50],
        "tournaments": [t.snapshot() for t in tournaments.values()],
    }  # fmt: skip
