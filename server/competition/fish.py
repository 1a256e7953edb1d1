"""The Fish adapter of ``arena tournament`` (``game = "fish"``): 2-4 client programs a game on
the project's Fish server (spec fish.md: sign-up by name, ``start``, one game, ``end``).

Each game has a server of its own on loopback (:class:`server.fish.server.FishServer`, names
lenient, so that a course client signing up as ``OCaml-AI-3`` plays): its programs are started one
after the other, each once the one before has signed up (or ``connect_seconds`` passed), so the
game's turn order is the seat order the pairings rotate. Placeholders ``{host}`` ``{port}``
``{name}`` (``seata`` ... ``seatd``: a name the seat signs up with; a program that signs up
with another name is known by its place in the sign-up order); ``ARENA_HOST``, ``ARENA_PORT``,
``ARENA_NAME`` too. Options: ``rows``, ``cols``, ``fish`` (the spec's 5 x 5 board of 2 fish),
``holes`` (drawn from the game's seed), ``call_seconds`` (3: the referee's call limit). A
built-in team is our own client (``arena fish clients 1 --strategy NAME``), run as a program.
Logs: ``logs/MATCH/`` (the server's ``tournament.jsonl`` and ``game-r1-g1.jsonl.gz``).

Points: 1 to the winner, a shared first place split; ``scores`` (ratings, head to head) are
the fish, -1 for a program that failed or cheated. Reasons: a cheat is ``illegal_move``; a
call past ``call_seconds`` ``time_limit``; a broken connection ``crashed`` when its program
failed (waited for up to ``EXIT_GRACE`` s), else ``disconnected``; a wrong or malformed reply,
a missing ``"void"`` ``protocol_error``; no sign-up in time ``never_connected``.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import tempfile
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import trio

from replay.journal import Journal
from server.competition.board import Board
from server.competition.competition import (
    EXIT_GRACE,
    HOST,
    Competition,
    RunOptions,
    builtin_program,
)
from server.competition.fish_records import broken_seats, game_record, read_log
from server.competition.labyrinth import NamedTicket
from server.competition.pairings import Game
from server.competition.programs import Entrant
from server.competition.teams import Team, Tournament
from server.fish.server import FishServer, ServerConfig
from server.fish.switchboard import Answer, Answered
from server.net import open_listeners, serve_tcp
from server.sandbox import Limits

__all__ = ["FishRun"]

SEAT_NAMES = ("seata", "seatb", "seatc", "seatd")


class _SeatedServer(FishServer):
    """The Fish server, telling who signed up, in order."""

    def __init__(self, config: ServerConfig, log_dir: Path | None) -> None:
        super().__init__(config, log_dir)
        self.signed: list[str] = []
        self.signed_up = trio.Event()

    async def _sign_up(self, answer: Answer) -> bool:
        ok = await super()._sign_up(answer)
        if ok and isinstance(answer, Answered):  # always: a sign-up answers a name
            self.signed.append(answer.value)
            self.signed_up.set()
            self.signed_up = trio.Event()
        return ok

    async def sign_up_each(
        self, nursery: trio.Nursery, entrants: list[Entrant], names: Sequence[str],
        order: list[int | None], connect_seconds: float,
    ) -> None:  # fmt: skip
        """Start the programs one after the other, each once the one before has signed up (or
        ended, or ``connect_seconds`` passed); ``order`` gets the place of each sign-up (its
        index in ``names``, else the program just started)."""
        for place, entrant in enumerate(entrants):
            await nursery.start(entrant.run)
            with trio.move_on_after(connect_seconds):
                while len(self.signed) == len(order) and not entrant.ended.is_set():
                    with trio.move_on_after(0.1):
                        await self.signed_up.wait()
            while len(order) < len(self.signed):
                signed = self.signed[len(order)]
                order.append(names.index(signed) if signed in names else place)


def letters(number: int) -> str:
    """a, b, ..., z, aa, ab, ...: a name part of letters only (the spec's strict names)."""
    out = ""
    number += 1
    while number:
        number, rest = divmod(number - 1, 26)
        out = chr(ord("a") + rest) + out
    return out


class FishRun(Competition):
    """A tournament of Fish client programs, each game on a Fish server of its own."""

    def __init__(self, tournament: Tournament, options: RunOptions, board: Board | None = None):
        super().__init__(tournament, options, board)
        self._scratch: Path | None = None

    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        self._scratch = Path(tempfile.mkdtemp(prefix="arena-fish-"))
        try:
            await super().run(task_status=task_status)
        finally:
            shutil.rmtree(self._scratch, ignore_errors=True)

    async def _play_all(self, journal: Journal) -> None:
        if self.t.format != "fish-knockout" or self.single is not None:
            await super()._play_all(journal)
            return
        await self.check_programs()
        if self.options.preflight_only:
            return
        for record in sorted(journal.done.values(), key=lambda r: r["index"]):
            self._keep(record)
        if not self.records:
            for record in await self._knockout():
                journal.append(record)
                self._keep(record)
                self.board.finish(record["name"], record["result"], record["replay"])
        self._update_standings()

    def _keep(self, record: dict[str, Any]) -> None:
        game = Game(record["index"], record["round"], tuple(record["seats"]), record["seed"],
                    record["stage"])  # fmt: skip
        self.plan.games.append(game)
        self.records[game.index] = record
        self.results[game.index] = tuple(record["points"])

    async def _knockout(self) -> list[dict[str, Any]]:
        """The course's tournament manager over every team at once (format fish-knockout):
        one Fish server, the teams signed up in file order; one record per game it played
        (and one for the teams that never got to a game)."""
        assert self._scratch is not None
        name = f"{self.t.name}-knockout"[:64]
        teams = self.t.names
        names = [f"team{letters(index)}" for index in range(len(teams))]
        log_dir = self.out / "logs" / name
        log_dir.mkdir(parents=True, exist_ok=True)
        config = dataclasses.replace(
            self._config(Game(0, 0, tuple(teams), self.t.seed)),
            max_players=len(teams), max_connections=max(4096, len(teams)),
        )  # fmt: skip
        server = _SeatedServer(config, log_dir)
        listeners, port = await open_listeners(0, HOST)
        outputs = [f"programs/{name}-{team}.txt" for team in teams]
        entrants = [
            Entrant(
                self._team_program(self.teams[team]),
                NamedTicket(HOST, port, index, name, "", names[index]),
                scratch=self._scratch / f"{name}-{index}",
                output=self.out / outputs[index],
                limits=self._knockout_limits(),
                sandbox=self.options.sandbox,
                seed=self.t.seed,
            )
            for index, team in enumerate(teams)
        ]
        order: list[int | None] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                partial(serve_tcp, server.handle_connection, listeners=listeners,
                        handler_nursery=nursery)
            )  # fmt: skip
            played = trio.Event()

            async def host() -> None:
                await server.run()
                played.set()

            nursery.start_soon(host)
            await server.sign_up_each(nursery, entrants, names, order, self.t.connect_seconds)
            with trio.move_on_after(self.t.match_seconds * len(teams)):
                await played.wait()
            # Everyone's session is over: a program that is ending (a crash) gets the grace.
            with trio.move_on_after(EXIT_GRACE):
                for entrant in entrants:
                    await entrant.ended.wait()
            for entrant in entrants:
                entrant.stop()
            nursery.cancel_scope.cancel()
        return self._knockout_records(name, entrants, order, names, log_dir, outputs)

    def _knockout_limits(self) -> Limits:
        seconds = (
            self.t.connect_seconds * len(self.t.names)
            + self.t.match_seconds * len(self.t.names)
            + EXIT_GRACE
        )
        return self._sandbox_limits(seconds)

    def _knockout_records(
        self, name: str, entrants: list[Entrant], order: list[int | None], names: list[str],
        log_dir: Path, outputs: list[str],
    ) -> list[dict[str, Any]]:  # fmt: skip
        teams = self.t.names
        records: list[dict[str, Any]] = []
        # The sign-up and start: one record naming every team that never reached a game.
        start = Game(0, 0, tuple(teams), self.t.seed, "fish-knockout")
        opening = self._record(
            start, f"{name}-start", entrants, order, log_dir, outputs, 0.0,
            game_log=log_dir / "none.jsonl", game_order=[],
        )  # fmt: skip
        if opening["failures"]:
            # Only the teams that failed: a game of them all was never played.
            failing = sorted(f["seat"] for f in opening["failures"])
            for number, failure in enumerate(opening["failures"]):
                failure["seat"] = number
            opening.update(
                seats=[teams[i] for i in failing], points=[0.0] * len(failing),
                scores=[-1] * len(failing), fish=[0] * len(failing), winner=None,
                outputs=[outputs[i] for i in failing], replay=None, log=None, round=0,
                result="; ".join(f"{f['team']} lost: {f['reason']}" for f in opening["failures"]),
            )  # fmt: skip
            records.append(opening)
        signups = [
            e.get("name") for e in read_log(log_dir / "tournament.jsonl")
            if e.get("event") == "signup"
        ]  # fmt: skip
        team_of = {
            signed: order[index]
            for index, signed in enumerate(signups)
            if index < len(order) and order[index] is not None
        }
        logs = sorted(
            log_dir.glob("game-r*-g*.jsonl.gz"),
            key=lambda p: tuple(int(x) for x in re.findall(r"\d+", p.name)),
        )
        for path in logs:
            events = read_log(path)
            header = next((e for e in events if e.get("event") == "game"), {})
            seats_of = [team_of.get(player) for player in header.get("players", [])]
            if any(seat is None for seat in seats_of):
                continue  # a name nobody signed up with: cannot be told apart
            indices = [seat for seat in seats_of if seat is not None]
            round_number = int(header.get("round", 1))
            game = Game(len(records), round_number, tuple(teams[i] for i in indices),
                        self.t.seed, "fish-knockout")  # fmt: skip
            times = [float(e.get("t", 0.0)) for e in events]
            record = self._record(
                game, f"{name}-r{round_number}-g{header.get('game', 1)}",
                [entrants[i] for i in indices], list(range(len(indices))), log_dir,
                [outputs[i] for i in indices], (max(times) - min(times)) if times else 0.0,
                game_log=path, game_order=list(range(len(indices))), sign_up=False,
            )  # fmt: skip
            records.append(record)
        for index, record in enumerate(records):
            record["index"] = index
        return records

    def _team_program(self, team: Team) -> Team:
        """A built-in team as the program it is: our own client with that strategy."""
        client = (
            "fish", "clients", "1", "--host", "{host}", "--port", "{port}", "--names", "{name}",
        )  # fmt: skip
        return builtin_program(team, self._scratch, client)

    def _config(self, game: Game) -> ServerConfig:
        options = self.t.options
        seats = len(game.seats)
        return ServerConfig(
            call_timeout=float(options["call_seconds"]),
            name_timeout=self.t.connect_seconds,
            wait=self.t.connect_seconds * seats + 1,
            periods=1,
            min_players=2,
            max_players=seats,
            rows=options["rows"],
            cols=options["cols"],
            fish=options["fish"],
            holes=options["holes"],
            seed=game.seed % (1 << 31),
            names="lenient",
        )

    def _limits(self) -> Limits:
        seconds = self.t.connect_seconds * 4 + self.t.match_seconds + EXIT_GRACE
        return self._sandbox_limits(seconds)

    async def _play(self, game: Game) -> dict[str, Any]:
        name = game.name(self.t.name)
        began = time.monotonic()
        assert self._scratch is not None
        self.board.start(name, None)
        log_dir = self.out / "logs" / name
        log_dir.mkdir(parents=True, exist_ok=True)
        server = _SeatedServer(self._config(game), log_dir)
        listeners, port = await open_listeners(0, HOST)
        outputs = [f"programs/{name}-{team}.txt" for team in game.seats]
        entrants = [
            Entrant(
                self._team_program(self.teams[team]),
                NamedTicket(HOST, port, seat, name, "", SEAT_NAMES[seat]),
                scratch=self._scratch / f"{name}-{seat}",
                output=self.out / outputs[seat],
                limits=self._limits(),
                sandbox=self.options.sandbox,
                seed=game.seed,
            )
            for seat, team in enumerate(game.seats)
        ]
        #: seat of each sign-up, in order
        order: list[int | None] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                partial(serve_tcp, server.handle_connection, listeners=listeners,
                        handler_nursery=nursery)
            )  # fmt: skip
            played = trio.Event()
            standing: list[Any] = []

            async def host() -> None:
                standing.append(await server.run())
                played.set()

            nursery.start_soon(host)
            await server.sign_up_each(nursery, entrants, SEAT_NAMES, order, self.t.connect_seconds)
            with trio.move_on_after(self.t.match_seconds):
                await played.wait()
            order.extend(
                SEAT_NAMES.index(late) if late in SEAT_NAMES else None
                for late in server.signed[len(order) :]
            )
            loser_grace = trio.move_on_after(EXIT_GRACE)
            with loser_grace:
                for seat in broken_seats(log_dir, order):
                    await entrants[seat].ended.wait()
            for entrant in entrants:
                entrant.stop()
            nursery.cancel_scope.cancel()
        return self._record(game, name, entrants, order, log_dir, outputs, time.monotonic() - began)

    def _record(
        self, game: Game, name: str, entrants: list[Entrant], order: list[int | None],
        log_dir: Path, outputs: list[str], seconds: float, *, game_log: Path | None = None,
        game_order: list[int | None] | None = None, sign_up: bool = True,
    ) -> dict[str, Any]:  # fmt: skip
        """The journal record of one game (:func:`server.competition.fish_records.game_record`)."""
        return game_record(
            game, name, entrants, order, log_dir, outputs, seconds, game_log=game_log,
            game_order=game_order, sign_up=sign_up, out=self.out,
            connect_seconds=self.t.connect_seconds,
        )  # fmt: skip
