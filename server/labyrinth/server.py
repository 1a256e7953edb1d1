"""The Labyrinth server of the course's 2017 protocol: a thin trio shell on the shared network
layer (:mod:`server.net`) around the pure parts: :mod:`protocol.labyrinth` (framing, commands),
:mod:`labyrinth.session` (a connection's phases), :mod:`labyrinth.table` (one game) and
:mod:`labyrinth.tournament`; the records it keeps per connection and per game, and the page's
views of a game, are :mod:`server.labyrinth.gamerun`'s, its files :mod:`server.labyrinth.logs`'s.

``await nursery.start(server.run)`` then ``await nursery.start(serve_tcp, server.handle)``
(``serve_labyrinth`` does both and reports the port). One task per connection reads commands
and handles each at once (no await in between: the server's state has one owner at a time,
trio's); one task per game keeps its clock and plays its bot. Every change is published to
``listeners`` (the teacher's page) as (kind, data).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from labyrinth.rules import PROFILES
from labyrinth.session import Fail, Forfeit, Play, Register, Wait
from labyrinth.table import (
    BotTurn,
    Deadline,
    Disconnect,
    Effect,
    Input,
    LogEntry,
    Over,
    Record,
    Request,
    Send,
    TimeUp,
)
from labyrinth.table import Forfeit as Forfeited
from labyrinth.tournament import Kind, Pairing, Tournament, take_due
from protocol.labyrinth import Malformed, WaitRequest
from server.cycle import Ending, Fault, attribute
from server.labyrinth.gamerun import Client, GameRun, game_state, lobby_view, new_run
from server.labyrinth.logs import ServerLogs
from server.net import DEFAULT_LIMITS, Gate, Limits, OverBudget, serve_tcp

__all__ = ["Client", "GameRun", "LabyrinthServer", "Settings", "game_state", "serve_labyrinth"]
#: Reads of 1024 bytes, as CodingGameServer's recv(1024) (a command is at most that).
LIMITS = DEFAULT_LIMITS.replace(receive_bytes=1024, outbox_messages=64, linger_seconds=0.5)


@dataclasses.dataclass(frozen=True)
class Settings:
    rules: str = "spec"
    move_timeout: float = 10.0
    log_dir: Path | None = None
    #: With a key, each log is sealed (replay/seal.py): a game's when it ends, a player's at
    #: every line.
    log_key: bytes | None = None
    #: Pair programs waiting for a game against another program at once, in arrival order
    #: (otherwise the teacher pairs them on the page).
    auto_pair: bool = False
    limits: Limits = LIMITS
    #: Finished games kept in memory for the page (their logs, newest last).
    keep_games: int = 200
    #: Turns before a draw, instead of the rules profile's (None: the profile's).
    max_turns: int | None = None
    #: A command without a newline ends once its client has sent nothing more for this long
    #: (it waits for the answer): what TCP splits of one write arrive well within it.
    command_gap: float = 0.005
    #: A connection without a valid ``CLIENT_NAME`` this long after it opened is told so and
    #: closed, so that silent connections do not hold places under the connection cap.
    name_timeout: float = 10.0


class LabyrinthServer:
    def __init__(self, settings: Settings | None = None, seed: int | None = None) -> None:
        self.settings = settings or Settings()
        if self.settings.rules not in PROFILES:
            raise ValueError(f"rules is one of {sorted(PROFILES)}, got {self.settings.rules!r}")
        self.rng = random.Random(seed)
        self.gate = Gate(self.settings.limits)
        self.logs = ServerLogs(self.settings.log_dir, self.settings.log_key)
        self.clients: dict[str, Client] = {}
        self.waiting: list[Client] = []
        self.games: dict[str, GameRun] = {}
        self.finished: dict[str, GameRun] = {}
        self.tournaments: dict[str, Tournament] = {}
        #: Tournament games of the current phases not started yet (a player still busy).
        self._pending: list[tuple[Tournament, Pairing]] = []
        self.listeners: list[Callable[[str, dict[str, Any]], None]] = []
        self._numbers = itertools.count(1)
        self._game_numbers = itertools.count(1)
        self._nursery: trio.Nursery | None = None

    # ----- lifetime
    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Hold the games' nursery until cancelled."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started()
            await trio.sleep_forever()

    async def handle(self, stream: trio.abc.Stream) -> None:
        """One connection's cycle (:class:`server.cycle.Link`): its commands, then its end."""
        client = Client(next(self._numbers), stream, self.settings.limits, self.gate)
        await client.link.serve(
            functools.partial(self._read, client), on_close=functools.partial(self._gone, client)
        )

    async def _read(self, client: Client) -> None:
        timeout = self.settings.name_timeout
        with trio.move_on_after(timeout) as naming:
            await self._commands(client, naming)
        if naming.cancelled_caught:
            message = f"No CLIENT_NAME within {timeout:g} s"
            client.link.end(Ending(Fault.TIMEOUT, message))
            client.send((message, message), close=True)

    async def _commands(self, client: Client, naming: trio.CancelScope) -> None:
        link, decoder = client.link, client.decoder
        while not link.closing:
            command = decoder.next_command()
            if command is None:
                if decoder.closed:
                    link.stop(Ending(Fault.DISCONNECT, "disconnected"))
                    return
                try:
                    if decoder.buffered_bytes or decoder.blank_write:
                        # An unterminated command, or blank lines so far: the write ends when
                        # its client stops sending (blank lines alone: an empty command).
                        with trio.move_on_after(self.settings.command_gap) as gap:
                            await link.reader.fill()
                        if gap.cancelled_caught:
                            decoder.end_of_write()
                    else:
                        # Every command of the write is taken: the client waits for the
                        # answers, so what it sends next is a write of its own.
                        decoder.end_of_write()
                        await link.reader.fill()
                except OverBudget as error:
                    link.end(attribute(error))
                    self._command(client, Malformed(error.text))
                    return
                continue
            self._command(client, command)
            if client.session.name is not None:
                naming.deadline = math.inf  # named: it may wait as long as it likes
            await link.reader.frame_done()

    # ----- commands
    def _command(self, client: Client, command: str | Malformed) -> None:
        action = client.session.handle(command)
        if isinstance(action, Fail):
            client.link.end(Ending(Fault.REMOTE, action.message))
            client.send((action.message, action.message), close=True)
        elif isinstance(action, Register):
            if action.name in self.clients:
                message = f"The name {action.name} is already used"
                client.send((message, message), close=True)
                return
            client.session.registered(action.name)
            self.clients[action.name] = client
            self.logs.player(action.name, {"type": "connected"})
            client.send(("OK",))
            self._lobby_changed()
        elif isinstance(action, Wait):
            self._wait(client, action.request)
        elif isinstance(action, Forfeit):
            self._input(client, Forfeited(client.seat, action.reason))
        elif isinstance(action, Play):
            self._input(client, Request(client.seat, action.command))

    def _input(self, client: Client, event: Input) -> None:
        run = client.run
        assert run is not None
        self._apply(run, run.table.apply(event))

    def _wait(self, client: Client, request: WaitRequest) -> None:
        if request.tournament is not None:
            tournament = self.tournaments.get(request.tournament)
            if tournament is None:
                message = f"There is no tournament {request.tournament}"
                client.send((message, message), close=True)
                return
            if tournament.started and client.name not in tournament.players:
                message = f"The tournament {tournament.name} has started without you"
                client.send((message, message), close=True)
                return
            if not tournament.started:
                tournament.join(client.name)
        client.request = request
        client.run = None
        client.session.waiting()
        client.send(("OK",))
        if request.training is not None:
            self.start_game(client, None, request)
            return
        self.waiting.append(client)
        if request.tournament is not None:
            self._start_pending()
            return
        if self.settings.auto_pair:
            regular = [c for c in self.waiting if c.request and c.request.tournament is None]
            if len(regular) >= 2:
                self.start_game(regular[0], regular[1], regular[0].request or request)
                return
        self._lobby_changed()

    # ----- games
    def start_game(
        self,
        client: Client,
        other: Client | None,
        request: WaitRequest,
        pairing: tuple[Tournament, Pairing] | None = None,
    ) -> GameRun:
        """A game of ``client`` against ``other`` (or the training player of ``request``);
        ``request``'s options decide the seed, who starts, the clock and the bot's delay."""
        settings = self.settings
        run = new_run(
            (client, other),
            request,
            settings.rules,
            self.rng,
            next(self._game_numbers),
            max_turns=settings.max_turns,
            timeout=request.timeout or settings.move_timeout,
            pairing=pairing,
        )
        name, labyrinth, seats = run.table.name, run.table.lab, run.clients
        run.log = self.logs.game(name, run.header)
        self.games[name] = run
        for seat, player in enumerate(seats):
            if player is None:
                continue
            if player in self.waiting:
                self.waiting.remove(player)
            player.run, player.seat = run, seat
            player.session.playing()
            player.send((name, f"{labyrinth.width} {labyrinth.height}"))
            self.logs.player(player.name, {"type": "game", "game": name, "seat": seat})
        assert self._nursery is not None, "start the server's run() first"
        self._nursery.start_soon(self._run_game, run)
        self._lobby_changed()
        return run

    async def _run_game(self, run: GameRun) -> None:
        table = run.table
        try:
            self._apply(run, table.start())
            while not table.over:
                if run.bot_due:
                    run.bot_due = False
                    await trio.sleep(run.delay)
                    self._apply(run, table.bot_turn())
                    continue
                seat, deadline = run.deadline_seat, run.deadline_at
                with trio.move_on_at(deadline if seat is not None else math.inf):
                    await run.changed.wait()
                run.changed = trio.Event()
                unchanged = run.deadline_seat == seat and run.deadline_at == deadline
                if seat is not None and unchanged and trio.current_time() >= deadline:
                    self._apply(run, table.apply(TimeUp(seat)))
        finally:
            self._finish(run)

    def _apply(self, run: GameRun, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, Send):
                client = run.clients[effect.seat]
                if client is not None and not client.closed and not client.closing:
                    client.send(effect.message, effect.close)
            elif isinstance(effect, Deadline):
                run.deadline_seat = effect.seat
                run.deadline_at = trio.current_time() + run.timeout
                run.changed.set()
            elif isinstance(effect, BotTurn):
                run.bot_due = True
                run.changed.set()
            elif isinstance(effect, Record):
                self._record(run, effect.entry)
            elif isinstance(effect, Over):
                run.changed.set()
                for client in run.clients:
                    if client is not None and client.run is run:
                        client.session.ended()

    def _record(self, run: GameRun, entry: LogEntry) -> None:
        data = entry.to_json()
        run.records.append(data)
        if run.log is not None:
            run.log.write(data)
        lab = run.table.lab
        self._publish(
            "game",
            {"game": run.table.name, "record": data, "state": game_state(run.table, lab)},
        )

    def _finish(self, run: GameRun) -> None:
        table = run.table
        if self.games.pop(table.name, None) is None:
            return
        if run.log is not None:
            run.log.close()  # signed in the log itself (docs/log-format.md)
        self.finished[table.name] = run
        while len(self.finished) > self.settings.keep_games:
            self.finished.pop(next(iter(self.finished)))
        winner = None if table.winner is None else table.names[table.winner]
        for seat, name in enumerate(table.names):
            if run.clients[seat] is not None:
                result = "draw" if winner is None else ("won" if winner == name else "lost")
                self.logs.player(
                    name, {"type": "result", "game": table.name, "result": result,
                           "reason": table.reason}
                )  # fmt: skip
        if run.pairing is not None:
            tournament, pairing = run.pairing
            tournament.record(pairing, winner)
        self._lobby_changed()

    def _gone(self, client: Client) -> None:
        if client in self.waiting:
            self.waiting.remove(client)
        if self.clients.get(client.name) is client:
            del self.clients[client.name]
            self.logs.player(client.name, {"type": "disconnected"})
        run = client.run
        if run is not None and not run.table.over:
            self._apply(run, run.table.apply(Disconnect(client.seat)))
        if self._pending:
            self._start_pending()
        self._lobby_changed()

    # ----- the teacher's actions
    def pair(self, first: str, second: str) -> GameRun:
        """Start a game between two programs waiting for one (ValueError naming who is not)."""
        clients = []
        for name in (first, second):
            client = self.clients.get(name)
            if client is None or client not in self.waiting or client.request is None:
                raise ValueError(f"{name} is not waiting for a game")
            if client.request.tournament is not None:
                raise ValueError(f"{name} waits for tournament {client.request.tournament}")
            clients.append(client)
        if first == second:
            raise ValueError("a game needs two different players")
        request = dataclasses.replace(clients[0].request or WaitRequest(), start=0)
        return self.start_game(clients[0], clients[1], request)

    def create_tournament(self, name: str, kind: str) -> Tournament:
        if name in self.tournaments:
            raise ValueError(f"tournament {name} exists")
        tournament = Tournament(name, Kind.named(kind))
        self.tournaments[name] = tournament
        self._lobby_changed()
        return tournament

    def next_phase(self, name: str) -> list[Pairing]:
        tournament = self.tournaments.get(name)
        if tournament is None:
            raise ValueError(f"there is no tournament {name}")
        pairings = tournament.next_phase()
        for pairing in pairings:
            self._pending.append((tournament, pairing))
        self._start_pending()
        return pairings

    def _start_pending(self) -> None:
        """Start each pending tournament game whose two players wait for it. A player who is
        not connected loses it (both absent: a draw); one still busy is waited for."""
        waiting = {
            (client.request.tournament, client.name)
            for client in self.waiting
            if client.request is not None and client.request.tournament is not None
        }
        for tournament, pairing in take_due(self._pending, self.clients, waiting):
            request = WaitRequest(tournament=tournament.name, start=0)
            first, second = self.clients[pairing.first], self.clients[pairing.second]
            run = self.start_game(first, second, request, (tournament, pairing))
            pairing.game = run.table.name
        self._lobby_changed()

    # ----- what the page shows
    def snapshot(self) -> dict[str, Any]:
        """The lobby as the page draws it: players, games, finished games, tournaments."""
        return lobby_view(self.clients, self.waiting, self.games, self.finished, self.tournaments)

    def game(self, name: str) -> GameRun | None:
        return self.games.get(name) or self.finished.get(name)

    def _lobby_changed(self) -> None:
        self._publish("lobby", self.snapshot())

    def _publish(self, kind: str, data: dict[str, Any]) -> None:
        for listener in self.listeners:
            listener(kind, data)


async def serve_labyrinth(
    server: LabyrinthServer,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Run ``server`` and listen on ``host:port`` until cancelled; reports the bound port."""
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        bound = await nursery.start(
            functools.partial(serve_tcp, server.handle, host=host, port=port)
        )
        task_status.started(bound)
