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
    fish_result,
)
from server.competition.labyrinth import NamedTicket
from server.competition.pairings import Game
from server.competition.programs import Entrant
from server.competition.teams import Team, Tournament
from server.fish.remote import Answer, Remote
from server.fish.server import FishServer, ServerConfig
from server.net import open_listeners, serve_tcp
from server.sandbox import Limits

__all__ = ["FishRun", "fish_reason"]

SEAT_NAMES = ("seata", "seatb", "seatc", "seatd")


def fish_reason(kind: str, reason: str, failed: bool) -> str:
    """The tournament's reason for a referee's verdict ``kind`` (failed, cheated) and its text,
    given whether the program ended with a failure."""
    if kind == "cheated":
        return "illegal_move"
    if "within" in reason:  # "no reply within 3 s", "nothing within 10 s"
        return "time_limit"
    if "connection broken" in reason or "disconnected" in reason or "closed" in reason:
        return "crashed" if failed else "disconnected"
    return "protocol_error"


class _SeatedServer(FishServer):
    """The Fish server, telling who signed up, in order."""

    def __init__(self, config: ServerConfig, log_dir: Path | None) -> None:
        super().__init__(config, log_dir)
        self.signed: list[str] = []
        self.signed_up = trio.Event()

    async def _sign_up(self, remote: Remote, answer: Answer) -> bool:
        ok = await super()._sign_up(remote, answer)
        if ok:
            self.signed.append(remote.name)
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
            e.get("name") for e in self._events(log_dir / "tournament.jsonl")
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
            events = self._events(path)
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
                for seat in self._broken_seats(log_dir, order):
                    await entrants[seat].ended.wait()
            for entrant in entrants:
                entrant.stop()
            nursery.cancel_scope.cancel()
        return self._record(game, name, entrants, order, log_dir, outputs, time.monotonic() - began)

    @staticmethod
    def _events(path: Path) -> list[dict[str, Any]]:
        from replay.games import read_events

        return read_events(path)

    def _broken_seats(self, log_dir: Path, order: list[int | None]) -> list[int]:
        """Seats whose connection broke: their programs may be ending (a crash)."""
        out = []
        tournament = self._events(log_dir / "tournament.jsonl")
        started = next((e for e in tournament if e.get("event") == "started"), {})
        signed = [e.get("name") for e in tournament if e.get("event") == "signup"]
        for index, name in enumerate(signed):
            seat = order[index] if index < len(order) else None
            if seat is not None and name in started.get("failed", []):
                out.append(seat)
        game_order = self._game_order(log_dir, order)
        for event in self._events(log_dir / "game-r1-g1.jsonl.gz"):
            if event.get("event") == "verdict" and event.get("kind") == "failed":
                seat = game_order[event["seat"]]
                if seat is not None and "broken" in str(event.get("reason")):
                    out.append(seat)
        return out

    def _game_order(self, log_dir: Path, order: list[int | None]) -> list[int | None]:
        """Our seat of each seat of the server's game (the game seats the players who
        acknowledged start, in sign-up order)."""
        tournament = self._events(log_dir / "tournament.jsonl")
        failed_start: list[str] = next(
            (e.get("failed", []) for e in tournament if e.get("event") == "started"), []
        )
        signed = [e for e in tournament if e.get("event") == "signup"]
        seats: list[int | None] = []
        skipped = list(failed_start)
        for index, event in enumerate(signed):
            if (signed_name := str(event.get("name"))) in skipped:
                skipped.remove(signed_name)
                continue
            seats.append(order[index] if index < len(order) else None)
        return seats

    def _record(
        self, game: Game, name: str, entrants: list[Entrant], order: list[int | None],
        log_dir: Path, outputs: list[str], seconds: float, *, game_log: Path | None = None,
        game_order: list[int | None] | None = None, sign_up: bool = True,
    ) -> dict[str, Any]:  # fmt: skip
        """The journal record of one game: its log ``game_log`` (default the server's only
        game), ``game_order`` our seat of each of its seats; ``sign_up``: judge the sign-up
        and ``start`` too (a fish-knockout's games leave that to the run)."""
        count = len(game.seats)
        game_log = game_log if game_log is not None else log_dir / "game-r1-g1.jsonl.gz"
        failures: dict[int, dict[str, Any]] = {}

        def fail(seat: int, reason: str, detail: str) -> None:
            failures.setdefault(seat, {
                "team": game.seats[seat], "seat": seat, "reason": reason, "detail": detail,
                "output": outputs[seat],
            })  # fmt: skip

        for seat, entrant in enumerate(entrants):
            if sign_up and seat not in order:
                if entrant.failed:
                    fail(seat, "crashed", f"{entrant.exit} before it signed up")
                else:
                    why = entrant.exit or f"no sign-up within {self.t.connect_seconds:g} s"
                    fail(seat, "never_connected", why)
        tournament = self._events(log_dir / "tournament.jsonl")
        started = next((e for e in tournament if e.get("event") == "started"), None)
        signed_names = [e.get("name") for e in tournament if e.get("event") == "signup"]
        if started is not None and sign_up:
            for index, signed in enumerate(signed_names):
                where = order[index] if index < len(order) else None
                if where is not None and signed in started.get("failed", []):
                    if entrants[where].failed:
                        fail(where, "crashed", f"{entrants[where].exit} before it answered start")
                    else:
                        fail(where, "protocol_error", 'start: no "void" in time')
        if game_order is None:
            game_order = self._game_order(log_dir, order)
        catch = [0] * count
        events = self._events(game_log)
        winners: list[int] = []
        for event in events:
            if event.get("event") == "verdict" and event.get("kind") in ("failed", "cheated"):
                where = game_order[event["seat"]]
                if where is not None:
                    failed = entrants[where].failed
                    reason = fish_reason(event["kind"], str(event["reason"]), failed)
                    detail = str(event["reason"])
                    if reason == "crashed":
                        detail = f"{entrants[where].exit} ({detail})"
                    fail(where, reason, detail)
            if event.get("event") == "result":
                for index, score in enumerate(event.get("scores", [])):
                    where = game_order[index] if index < len(game_order) else None
                    if where is not None:
                        catch[where] = score
        result = next((e for e in events if e.get("event") == "result"), None)
        header = next((e for e in events if e.get("event") == "game"), None)
        if result is not None and header is not None:
            players = header.get("players", [])
            for winner_name in result.get("winners", []):
                # a name may repeat (duplicates are allowed): the first seat with it not yet taken
                for index, player in enumerate(players):
                    where = game_order[index] if index < len(game_order) else None
                    if player == winner_name and where is not None and where not in winners:
                        winners.append(where)
                        break
        elif not failures or len(failures) == count - 1:
            winners = [seat for seat in range(count) if seat not in failures][:1]
        winners = [seat for seat in winners if seat not in failures]
        points = [1.0 / len(winners) if seat in winners else 0.0 for seat in range(count)]
        scores = [-1 if seat in failures else catch[seat] for seat in range(count)]
        seats = list(game.seats)
        listed = sorted(failures.values(), key=lambda f: f["seat"])
        best = catch[winners[0]] if winners else None
        replay = self._write_replay(game_log, name, seats, game_order)
        return {
            "index": game.index,
            "name": name,
            "round": game.round,
            "stage": game.stage,
            "seed": game.seed,
            "seats": seats,
            "points": points,
            "scores": scores,
            "fish": catch,
            "winner": winners[0] if len(winners) == 1 else None,
            "reason": listed[0]["reason"] if listed else "fish",
            "result": fish_result(seats, winners, best, listed),
            "failures": listed,
            "outputs": outputs,
            "seconds": round(seconds, 3),
            "log": str(game_log.relative_to(self.out)),
            "replay": replay,
        }

    def _write_replay(
        self, path: Path, name: str, seats: list[str], game_order: list[int | None]
    ) -> str | None:
        from fish.replay import render_html

        if not path.is_file():
            return None
        teams = [seats[seat] if seat is not None else "?" for seat in game_order]
        try:
            page, _ = render_html(path, standings="../index.html", players=teams)
        except Exception:
            return None
        out = self.out / "replays" / f"{name}.html"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(page, encoding="utf-8")
        return str(out.relative_to(self.out))
