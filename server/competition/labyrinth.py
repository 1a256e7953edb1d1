"""The Labyrinth adapter of ``arena tournament`` (``game = "labyrinth"``): two client programs a
game on the project's 2017-protocol server (:mod:`server.labyrinth.server`), one server for the run.

For each game both programs are started sandboxed (:class:`~server.competition.programs.Entrant`,
network on) with ``{host}``, ``{port}`` and ``{name}`` (the ``CLIENT_NAME`` it must use: its
team's name, the game's number and its seat, 1-20 of ``[A-Za-z0-9_]``); the same values are in
``ARENA_HOST``, ``ARENA_PORT``, ``ARENA_NAME``. Once both wait for a game (``WAIT_GAME`` with no
training options) within ``connect_seconds``, the runner starts their game on the game's seed,
seat 0 first. A built-in team is our own client, ``arena labyrinth connect --strategy NAME``,
run the same way. The server's game log is ``logs/games/GAME.jsonl.gz``, its replay page
``replays/MATCH.html``.

Reasons (docs/tournament.md): a program not waiting in time is ``never_connected`` (``crashed``
when it exited with a failure first); a forfeit by timeout ``time_limit``; by disconnection
``crashed`` when its program failed (waited for up to ``EXIT_GRACE`` s; ``sandbox_limit``
when a limit's signal ended it), else ``disconnected``; by a bad command ``protocol_error``;
a move the rules refuse ``illegal_move``; a game past ``match_seconds`` stops as a draw
(``hung`` for a program that has the turn then).
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import trio

from protocol.labyrinth import WaitRequest
from server.competition.board import Board
from server.competition.competition import (
    EXIT_GRACE,
    HOST,
    POLL_SECONDS,
    Competition,
    RunOptions,
    builtin_program,
)
from server.competition.pairings import Game
from server.competition.programs import Entrant
from server.competition.reasons import failed_kind
from server.competition.teams import MatchTicket, Team, Tournament
from server.labyrinth.gamerun import GameRun
from server.labyrinth.server import LabyrinthServer, Settings, serve_labyrinth
from server.sandbox import Limits

__all__ = ["LabyrinthRun", "client_name", "labyrinth_reason"]


@dataclasses.dataclass(frozen=True)
class NamedTicket(MatchTicket):
    """A client of a named-player protocol: host, port and the name it signs up with."""

    name: str = ""

    def values(self) -> dict[str, str]:
        return {"host": self.host, "port": str(self.port), "name": self.name}


def client_name(team: str, index: int, seat: int) -> str:
    """The CLIENT_NAME of a team's program in one game: unique on the server."""
    return f"{re.sub(r'[^A-Za-z0-9_]', '_', team)[:10]}_{index}_{seat}"


def labyrinth_reason(end: dict[str, Any], failed: tuple[bool, bool]) -> tuple[int, str] | None:
    """The seat that failed and its reason, from the game's ``end`` record and whether each
    program ended with a failure; None when nobody failed (a win, a draw)."""
    forfeit = end.get("forfeit")
    reason = str(end.get("reason", ""))
    if forfeit is not None:
        why = reason.split(": ", 1)[-1]
        if failed[forfeit]:
            return forfeit, "crashed"
        if why == "Timeout":
            return forfeit, "time_limit"
        if why == "Disconnection":
            return forfeit, "disconnected"
        return forfeit, "protocol_error"
    winner = end.get("winner")
    if winner is not None and "reached the treasure" not in reason:
        return 1 - winner, "illegal_move"
    return None


class LabyrinthRun(Competition):
    """A tournament of Labyrinth client programs: the competition of :class:`TournamentRun`,
    each game on the run's own Labyrinth server."""

    def __init__(self, tournament: Tournament, options: RunOptions, board: Board | None = None):
        super().__init__(tournament, options, board)
        options_ = tournament.options
        self.server = LabyrinthServer(
            Settings(
                rules=options_["rules"],
                move_timeout=float(options_["call_seconds"]),
                log_dir=self.out / "logs",
                max_turns=options_["max_turns"] or None,
            ),
            seed=tournament.seed,
        )
        self.port = 0
        self._scratch: Path | None = None

    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        journal = self.journal if self.journal is not None else self.open_journal()
        self._scratch = Path(tempfile.mkdtemp(prefix="arena-labyrinth-"))
        try:
            async with trio.open_nursery() as nursery:
                self.port = await nursery.start(partial(serve_labyrinth, self.server, HOST, 0))
                task_status.started(self.port)
                await self._play_all(journal)
                nursery.cancel_scope.cancel()
        finally:
            journal.close()
            import shutil

            shutil.rmtree(self._scratch, ignore_errors=True)

    def _team_program(self, team: Team) -> Team:
        """A built-in team as the program it is: our own client with that strategy."""
        client = ("labyrinth", "connect", "{host}", "{port}", "--name", "{name}")
        return builtin_program(team, self._scratch, client)

    def _limits(self) -> Limits:
        seconds = self.t.connect_seconds + self.t.match_seconds + EXIT_GRACE
        return self._sandbox_limits(seconds)

    async def _play(self, game: Game) -> dict[str, Any]:
        name = game.name(self.t.name)
        began = time.monotonic()
        assert self._scratch is not None
        names = [client_name(team, game.index, seat) for seat, team in enumerate(game.seats)]
        outputs = [f"programs/{name}-{team}.txt" for team in game.seats]
        entrants = [
            Entrant(
                self._team_program(self.teams[team]),
                NamedTicket(HOST, self.port, seat, name, "", names[seat]),
                scratch=self._scratch / f"{name}-{seat}",
                output=self.out / outputs[seat],
                limits=self._limits(),
                sandbox=self.options.sandbox,
                seed=game.seed,
            )
            for seat, team in enumerate(game.seats)
        ]
        self.board.start(name, None)
        run: GameRun | None = None
        waiting = [False, False]
        async with trio.open_nursery() as nursery:
            for entrant in entrants:
                await nursery.start(entrant.run)
            with trio.move_on_after(self.t.connect_seconds):
                while True:
                    waiting = [self._waits(n) for n in names]
                    ended = [e.ended.is_set() for e in entrants]
                    # One ended without waiting: the other still has its time to wait (it
                    # wins by forfeit, or is never_connected too).
                    if all(waiting[s] or ended[s] for s in (0, 1)):
                        break
                    await trio.sleep(POLL_SECONDS)
            waiting = [self._waits(n) for n in names]
            if all(waiting):
                clients = [self.server.clients[n] for n in names]
                request = dataclasses.replace(
                    clients[0].request or WaitRequest(), start=0, seed=game.seed % (1 << 24)
                )
                run = self.server.start_game(clients[0], clients[1], request)
                with trio.move_on_after(self.t.match_seconds):
                    while not run.table.over:
                        await trio.sleep(POLL_SECONDS)
                end = self._end_record(run)
                end = end or {}
                forfeit = end.get("forfeit")
                # Its connection closed: its program may be ending (a crash); give it the grace.
                if forfeit is not None and str(end.get("reason", "")).endswith("Disconnection"):
                    with trio.move_on_after(EXIT_GRACE):
                        await entrants[forfeit].ended.wait()
            for entrant in entrants:
                entrant.stop()
        return self._record(game, name, entrants, waiting, run, outputs, time.monotonic() - began)

    def _waits(self, name: str) -> bool:
        client = self.server.clients.get(name)
        return (
            client is not None and client in self.server.waiting
            and client.request is not None and client.request.training is None
            and client.request.tournament is None
        )  # fmt: skip

    @staticmethod
    def _end_record(run: GameRun) -> dict[str, Any] | None:
        return next((r for r in reversed(run.records) if r.get("type") == "end"), None)

    def _record(
        self, game: Game, name: str, entrants: list[Entrant], waiting: list[bool],
        run: GameRun | None, outputs: list[str], seconds: float,
    ) -> dict[str, Any]:  # fmt: skip
        failures: list[dict[str, Any]] = []
        failed = (entrants[0].failed, entrants[1].failed)

        def fail(seat: int, reason: str, detail: str) -> None:
            failures.append({
                "team": game.seats[seat], "seat": seat, "reason": reason, "detail": detail,
                "output": outputs[seat],
            })  # fmt: skip

        winner: int | None = None
        verdict = "draw"
        log = replay = None
        turns = 0
        if run is None:
            for seat in (0, 1):
                if waiting[seat]:
                    continue
                exit_text = entrants[seat].exit
                if failed[seat]:
                    fail(seat, failed_kind(exit_text), f"{exit_text} before it waited for a game")
                else:
                    detail = exit_text or f"not waiting for a game {self.t.connect_seconds:g} s"
                    fail(seat, "never_connected", detail)
            if len(failures) == 1:
                winner = 1 - failures[0]["seat"]
            verdict = failures[0]["reason"] if failures else "not played"
        else:
            end = self._end_record(run) or {}
            turns = run.table.lab.turn
            if not run.table.over:
                seat = run.table.lab.to_move
                fail(seat, "hung", f"the game passed {self.t.match_seconds:g} s on its turn")
                winner, verdict = 1 - seat, "hung"
            else:
                judged = labyrinth_reason(end, failed)
                winner = run.table.winner
                verdict = str(end.get("reason", ""))
                if judged is not None:
                    seat, reason = judged
                    detail = str(end.get("reason", ""))
                    if reason == "crashed":  # or past a sandbox limit: how it ended says
                        reason = failed_kind(entrants[seat].exit)
                        detail = f"{entrants[seat].exit} ({detail})"
                    fail(seat, reason, detail)
                    winner = 1 - seat
                    verdict = reason
            path = self.out / "logs" / "games" / f"{run.table.name}.jsonl.gz"
            if path.is_file():
                log = str(path.relative_to(self.out))
                replay = self._write_replay(path, name, game.seats)
        points = [0.0, 0.0]
        if winner is None and not failures:
            points = [0.5, 0.5]
        elif winner is not None:
            points[winner] = 1.0
        seats = list(game.seats)
        if winner is None:
            text = f"draw ({verdict})" if not failures else "both lose"
        else:
            text = f"{seats[winner]} wins"
            text += "" if failures else f" ({verdict})"
        lost = [f"{f['team']} lost: {f['reason']}" for f in failures]
        return {
            **game.record_head(name),
            "seats": seats,
            "points": points,
            "winner": winner,
            "reason": failures[0]["reason"] if failures else verdict,
            "result": "; ".join([text, *lost]),
            "failures": failures,
            "outputs": outputs,
            "turns": turns,
            "seconds": round(seconds, 3),
            "log": log,
            "replay": replay,
        }

    def _write_replay(self, log_path: Path, name: str, seats: tuple[str, ...]) -> str | None:
        from labyrinth.replay import LogError, read_game_log, render_html

        try:
            log = read_game_log(str(log_path))
            page = render_html(log, standings="../index.html", players=seats[:2])
        except (LogError, OSError, ValueError):
            return None
        path = self.out / "replays" / f"{name}.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page, encoding="utf-8")
        return str(path.relative_to(self.out))
