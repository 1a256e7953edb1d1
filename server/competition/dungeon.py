"""Run a tournament: its own dungeon server on loopback, N matches at once, every result kept.

For each game of the :class:`~server.competition.pairings.Plan` the runner names a match, gives
each team a fresh token and the game's seed to the server, starts both teams
(:mod:`server.competition.programs`), waits for the match to start (``connect_seconds``) and end
(``match_seconds``), stops both programs, and judges it (:mod:`server.competition.dungeon_judge`:
a team that fails loses). Every finished match is journaled (replay.journal) before the next
batch is planned, so ``--resume`` loses none. A program is pre-flighted by ``arena
check-client``'s probe (:mod:`server.competition.dungeon_preflight`).

With ``--time cpu`` (the default) each program runs in a cgroup of its own
(:class:`server.sandbox.cpu.CpuMeter`) whose meter the server reads to apply the match's requests
in fair-time order (docs/fair-time.md); a match with a built-in team (played in this process,
whose CPU cannot be told from the server's) is played in arrival order. Every measured match's
result holds each team's CPU (``cpu``).
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import structlog
import trio

from replay.keyfile import default_key_path, load_key
from replay.matchlog import LogFormatError
from server.app import Server, serve
from server.competition.board import Board
from server.competition.competition import (
    EXIT_GRACE,
    HOST,
    POLL_SECONDS,
    Competition,
    RunOptions,
)
from server.competition.dungeon_judge import cpu_by_team, judge, result_line
from server.competition.dungeon_preflight import check_program
from server.competition.pairings import Game
from server.competition.programs import Entrant
from server.competition.teams import MatchTicket, Team, Tournament
from server.connection import Connection
from server.fairtime import Meter
from server.sandbox import Limits
from server.sandbox.cpu import CpuMeter

__all__ = ["RunOptions", "TournamentRun"]

log = structlog.get_logger()

#: Seconds past ``match_seconds`` before a match that has not ended is stopped anyway.
END_GRACE = 10.0
#: Seconds a match's CPU meters wait for their programs' last processes to end.
CLOSE_SECONDS = 5.0


@dataclass
class _Watch:
    """What the server told about one match."""

    started: trio.Event = field(default_factory=trio.Event)
    over: trio.Event = field(default_factory=trio.Event)
    actor: Any = None
    faults: dict[int, str] = field(default_factory=dict)


class TournamentRun(Competition):
    """A dungeon tournament: each match on the run's own dungeon server."""

    def __init__(self, tournament: Tournament, options: RunOptions, board: Board | None = None):
        super().__init__(tournament, options, board)
        self.tokens: dict[str, dict[int, str]] = {}
        self.seeds: dict[str, int] = {}
        self.watches: dict[str, _Watch] = {}
        self.server = Server(
            config=tournament.config, log_dir=self.out / "logs", log_maps="digest",
            log_key=load_key(default_key_path(self.out / "logs"), create=True),
            tokens=self.tokens, seeds=self.seeds, observer=self._observe, check_workers=1,
            time="wall" if options.time == "wall" else "cpu", cpu_budget=options.cpu_budget,
            meters=lambda filling: self.meters.get(filling.name or ""),
        )  # fmt: skip
        #: Each running match's CPU meters (match name -> seat -> meter): its programs'.
        self.meters: dict[str, dict[int, Meter]] = {}
        self.port = 0
        self._scratch: Path | None = None

    # -- the server's observer -------------------------------------------------------------

    def _observe(self, event: str, subject: Any) -> None:
        if isinstance(subject, Connection):
            name = subject.filling.name if subject.filling is not None else None
            watch = self.watches.get(name or "")
            if watch is not None and subject.fault is not None and subject.slot is not None:
                watch.faults.setdefault(subject.slot.team, subject.fault)
            return
        watch = self.watches.get(subject.name or "")
        if watch is None:
            return
        watch.actor = subject
        if event == "started":
            watch.started.set()
            self.board.start(subject.name, subject.log_path)
        elif event == "over":  # (also for a match that could not start: no "started" then)
            # A socket that hung up may close before the match has judged the lines it sent
            # (the 100th error is counted in the match): by now every fault is known.
            for slot, fault in subject.faults.items():
                watch.faults.setdefault(slot.team, fault)
            watch.started.set()
            watch.over.set()

    # -- the run -----------------------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        """Play every game not yet journaled; reports the server's port once it listens."""
        journal = self.journal if self.journal is not None else self.open_journal()
        self._scratch = Path(tempfile.mkdtemp(prefix="arena-tournament-"))
        try:
            async with trio.open_nursery() as nursery:
                stop = trio.Event()
                self.port = await nursery.start(
                    partial(serve, self.server, host=HOST, port=0, shutdown=stop)
                )
                task_status.started(self.port)
                try:
                    await self._play_all(journal)
                finally:
                    stop.set()
        finally:
            journal.close()
            shutil.rmtree(self._scratch, ignore_errors=True)

    async def _check_program(self, number: int, team: Team) -> dict[str, Any]:
        """A dungeon program's pre-flight: ``arena check-client``'s probe
        (:mod:`server.competition.dungeon_preflight`)."""
        assert self._scratch is not None
        return await check_program(
            team, tournament=self.t, options=self.options, board=self.board, out=self.out,
            scratch=self._scratch, limits=self._sandbox_limits, host=HOST, grace=END_GRACE,
        )  # fmt: skip

    async def _play(self, game: Game) -> dict[str, Any]:
        name = game.name(self.t.name)
        tokens = (secrets.token_hex(16), secrets.token_hex(16))
        self.tokens[name], self.seeds[name] = {0: tokens[0], 1: tokens[1]}, game.seed
        watch = self.watches[name] = _Watch()
        began = time.monotonic()
        assert self._scratch is not None
        entrants = []
        meters = self._open_meters(name, game)
        for seat, team_name in enumerate(game.seats):
            team = self.teams[team_name]
            ticket = MatchTicket(HOST, self.port, seat, name, tokens[seat])
            entrants.append(
                Entrant(
                    team, ticket, scratch=self._scratch / f"{name}-{seat}",
                    output=self.out / "programs" / f"{name}-{team_name}.txt",
                    limits=self._limits(), sandbox=self.options.sandbox,
                    seed=game.seed, players=self.options.players,
                    meter=None if meters is None else meters[seat],
                )
            )  # fmt: skip
        connected = (False, False)
        async with trio.open_nursery() as nursery:
            for entrant in entrants:
                await nursery.start(entrant.run)
            with trio.move_on_after(self.t.connect_seconds):
                await self._wait_start(name, watch, entrants)
            if watch.started.is_set():
                connected = (True, True)
                with trio.move_on_after(self.t.match_seconds + END_GRACE):
                    await watch.over.wait()
                await self._let_forfeiter_exit(watch, entrants)
            else:
                connected = self._seated(name)
            for entrant in entrants:
                entrant.stop()
        if not watch.over.is_set() and watch.actor is not None:
            watch.actor.stop("stalled")
            with trio.move_on_after(5):
                await watch.over.wait()
        # Closed: nobody knows these, so a late or stray start cannot open the name again.
        self.tokens[name] = {0: secrets.token_hex(16), 1: secrets.token_hex(16)}
        for meter in (meters or {}).values():
            # Its programs are stopped: what is left of them is killed, the cgroup goes (the
            # last reading stays).
            await trio.to_thread.run_sync(partial(meter.close, wait=CLOSE_SECONDS))
        self.meters.pop(name, None)
        return await self._record(game, name, watch, entrants, connected, time.monotonic() - began)

    def _open_meters(self, name: str, game: Game) -> dict[int, CpuMeter] | None:
        """A CPU meter for each program of the match (a cgroup of its own where the machine
        allows), known to the server by the match's name; None when a team is built in (the
        server is told none: arrival order by design, which the results page says once)."""
        if not all(self.teams[team].external for team in game.seats):
            self.meters[name] = {}
            return None
        meters = {seat: CpuMeter.open(f"{name}-{seat}"[-48:]) for seat in (0, 1)}
        self.meters[name] = dict(meters)
        return meters

    async def _let_forfeiter_exit(self, watch: _Watch, entrants: list[Entrant]) -> None:
        """A team whose sockets all closed usually did so because its program is ending: its
        sockets close before the process is gone (and before the sandbox reports it). Wait up
        to :data:`EXIT_GRACE` for it to end by itself, so that an exit code or a signal is
        its reason ("crashed"), not the closed sockets ("disconnected")."""
        actor = watch.actor
        if actor is None or actor.end_reason != "forfeit" or actor.winner is None:
            return
        with trio.move_on_after(EXIT_GRACE):
            await entrants[1 - actor.winner].ended.wait()

    async def _wait_start(self, name: str, watch: _Watch, entrants: list[Entrant]) -> None:
        """Until the match starts, or a team has ended and the other is seated (or ended):
        then it cannot start, and waiting longer would only delay the verdict."""
        while not watch.started.is_set():
            with trio.move_on_after(POLL_SECONDS):
                await watch.started.wait()
            seated = self._seated(name)
            ended = [e.ended.is_set() for e in entrants]
            if any(ended) and all(ended[t] or seated[t] for t in (0, 1)):
                return

    def _seated(self, name: str) -> tuple[bool, bool]:
        """Which teams hold all six slots of a match that is still filling."""
        for filling in self.server.lobby.filling:
            if filling.name == name:
                counts = [sum(1 for slot in filling.seats if slot.team == t) for t in (0, 1)]
                return (counts[0] == 6, counts[1] == 6)
        return (False, False)

    def _limits(self) -> Limits:
        seconds = self.t.connect_seconds + self.t.match_seconds + END_GRACE
        return self._sandbox_limits(seconds)

    async def _record(
        self, game: Game, name: str, watch: _Watch, entrants: list[Entrant],
        connected: tuple[bool, bool], seconds: float,
    ) -> dict[str, Any]:  # fmt: skip
        from server.competition.report import match_summary, summary_and_replay

        actor = watch.actor
        log_path = actor.log_path if actor is not None else None
        summary = {"crossings": [0, 0], "deaths": [0, 0]}
        replay = None
        if log_path is not None and actor.end_reason is not None:
            replay_path = self.out / "replays" / f"{name}.html"
            try:
                summary = await trio.to_thread.run_sync(
                    summary_and_replay, log_path, replay_path, game.seats
                )
            except LogFormatError as error:
                log.warning("replay_failed", match=name, error=str(error))
                summary = await trio.to_thread.run_sync(match_summary, log_path)
            else:
                replay = str(replay_path.relative_to(self.out))
        points, failures, reason = judge(
            connected=connected,
            winner=None if actor is None else actor.winner,
            # A match the server could not play (no playable dungeon): a draw, nobody's fault.
            reason="server_error"
            if actor is not None and actor.end_reason is None
            else None
            if actor is None
            else actor.end_reason,
            faults=watch.faults,
            exits=(
                (entrants[0].exit, entrants[0].failed),
                (entrants[1].exit, entrants[1].failed),
            ),
            crossings=(summary["crossings"][0], summary["crossings"][1]),
            match_seconds=self.t.match_seconds,
        )
        a, b = game.seats
        result = result_line(game.seats, points, failures, reason)
        self.watches.pop(name, None)
        return {
            **game.record_head(name),
            "seats": [a, b],
            "points": list(points),
            "winner": None if points[0] == points[1] else (0 if points[0] > points[1] else 1),
            "reason": reason,
            "result": result,
            "failures": [{"team": game.seats[f["seat"]], **f} for f in failures],
            "crossings": summary["crossings"],
            "deaths": summary["deaths"],
            "seconds": round(seconds, 3),
            "time": None if actor is None or actor.fair is None else self.options.time,
            "cpu": cpu_by_team(None if actor is None else actor.cpu, game.seats),
            "log": None if log_path is None else str(Path(log_path).relative_to(self.out)),
            "replay": replay,
        }
