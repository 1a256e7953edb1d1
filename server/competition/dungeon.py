"""Run a tournament: its own dungeon server on loopback, N matches at once, every result kept.

For each game of the :class:`~server.competition.pairings.Plan` the runner names a match, gives
each team a fresh token and the game's seed to the server, starts both teams
(:mod:`server.competition.programs`), waits for the match to start (``connect_seconds``) and end
(``match_seconds``), stops both programs, and judges it (:func:`judge`). Every finished match is
journaled (replay.journal) before the next batch is planned, so ``--resume`` loses none. A team
that fails loses; the reasons (docs/tournament.md):

* ``never_connected``: its six sockets were not all in the match ``connect_seconds`` after it
  was started;
* ``protocol_error``: the server closed one of its sockets for a protocol fault (a line that
  is not JSON or too long, the error limit, a socket it stopped reading);
* ``crashed``: all its sockets closed before the end and the program had failed (non-zero
  exit, a signal: the sandbox's limits end a program that exceeds them this way), waited for
  up to ``EXIT_GRACE`` seconds after the sockets closed;
* ``disconnected``: all its sockets closed before the end, the program exiting cleanly;
* ``hung``: the match reached ``match_seconds`` and the team had not crossed a single corridor;
* ``time_limit``: the team went past its CPU budget (``--cpu-budget``) and forfeited.

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

from protocol.conformance import PASSED, Observations, evaluate
from replay.keyfile import default_key_path, load_key
from replay.matchlog import LogFormatError
from server.app import Server, serve
from server.competition.board import Board, BoardMatch
from server.competition.competition import Competition, RunOptions
from server.competition.pairings import Game, Points
from server.competition.programs import Entrant, MatchTicket
from server.competition.teams import Team, Tournament
from server.connection import Connection
from server.fairtime import Meter
from server.probe import ProbeConfig, run_probe
from server.sandbox import Limits
from server.sandbox.cpu import CpuMeter

__all__ = ["RunOptions", "TournamentRun", "judge"]

log = structlog.get_logger()

HOST = "127.0.0.1"
#: Seconds past ``match_seconds`` before a match that has not ended is stopped anyway.
END_GRACE = 10.0
#: Seconds a team whose sockets all closed has to end by itself before it is stopped.
EXIT_GRACE = 3.0
#: Seconds a match's CPU meters wait for their programs' last processes to end.
CLOSE_SECONDS = 5.0
#: How often a match that is filling is looked at, once one of its programs has ended.
POLL_SECONDS = 0.05


@dataclass
class _Watch:
    """What the server told about one match."""

    started: trio.Event = field(default_factory=trio.Event)
    over: trio.Event = field(default_factory=trio.Event)
    actor: Any = None
    faults: dict[int, str] = field(default_factory=dict)


#: Signals the sandbox's limits send: the program went past a limit (spec: sandbox_limit).
LIMIT_SIGNALS = ("SIGXCPU", "SIGXFSZ")


def _failed_kind(exit_text: str | None) -> str:
    """crashed, or sandbox_limit when a limit's signal ended the program."""
    return "sandbox_limit" if any(s in (exit_text or "") for s in LIMIT_SIGNALS) else "crashed"


def judge(
    *,
    connected: tuple[bool, bool],
    winner: int | None,
    reason: str | None,
    faults: dict[int, str],
    exits: tuple[tuple[str | None, bool], tuple[str | None, bool]],
    crossings: tuple[int, int],
    match_seconds: float,
) -> tuple[Points, list[dict[str, Any]], str]:
    """Each seat's points, the failures (seat, reason, detail) and the result's reason."""
    failures: list[dict[str, Any]] = []
    for seat in (0, 1):
        exit_text, failed = exits[seat]
        if not connected[seat]:
            if failed:
                detail = f"{exit_text} before its six sockets joined"
                failures.append({"seat": seat, "reason": _failed_kind(exit_text), "detail": detail})
            else:
                detail = exit_text or "its six sockets did not all join in time"
                failures.append({"seat": seat, "reason": "never_connected", "detail": detail})
        elif reason == "forfeit" and winner == 1 - seat and failed:
            # An exit code or a signal wins over a protocol fault and the closed sockets.
            failures.append({"seat": seat, "reason": _failed_kind(exit_text), "detail": exit_text})
        elif reason == "time_limit" and winner == 1 - seat:
            detail = "it went past its CPU budget for the match"
            failures.append({"seat": seat, "reason": "time_limit", "detail": detail})
        elif seat in faults:
            failures.append({"seat": seat, "reason": "protocol_error", "detail": faults[seat]})
        elif reason == "forfeit" and winner == 1 - seat:
            detail = exit_text or "its sockets closed before the end"
            failures.append({"seat": seat, "reason": "disconnected", "detail": detail})
        elif reason == "time" and crossings[seat] == 0:
            detail = f"no corridor crossed in {match_seconds:g} s"
            failures.append({"seat": seat, "reason": "hung", "detail": detail})
    failed_seats = {f["seat"] for f in failures}
    if len(failed_seats) == 2:
        return (0.0, 0.0), failures, failures[0]["reason"]
    if failed_seats:
        loser = failed_seats.pop()
        points: Points = (0.0, 1.0) if loser == 0 else (1.0, 0.0)
        return points, failures, failures[0]["reason"]
    if winner is None:
        return (0.5, 0.5), failures, reason or "draw"
    return ((1.0, 0.0) if winner == 0 else (0.0, 1.0)), failures, reason or "win"


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
        """A dungeon program's pre-flight is ``arena check-client``'s: the scripted server
        (:func:`server.probe.run_probe`) plays the other team and probes it, and
        :func:`protocol.conformance.evaluate` judges what it saw; the program runs sandboxed,
        started as in a match. The first check that did not pass is its reason."""
        assert self._scratch is not None
        name = f"{self.t.name}-preflight-{team.name}"[:64]
        output = f"programs/{name}-{team.name}.txt"
        token = secrets.token_hex(16)
        config = ProbeConfig(
            match=name, token=token, seed=self.t.seed, rules=self.t.config,
            start_timeout=self.t.connect_seconds,
        )  # fmt: skip
        seen = Observations(team=0, start_timeout=config.start_timeout)
        exited = trio.Event()
        listeners = await trio.open_tcp_listeners(0, host=HOST)
        port = listeners[0].socket.getsockname()[1]
        seconds = config.start_timeout + config.flood_timeout + config.play_seconds + END_GRACE
        entrant = Entrant(
            team, MatchTicket(HOST, port, 0, name, token), scratch=self._scratch / name,
            output=self.out / output, limits=self._sandbox_limits(seconds),
            sandbox=self.options.sandbox, seed=self.t.seed, players=self.options.players,
        )  # fmt: skip
        self.board.matches[name] = BoardMatch(name, (team.name, "check-client"))
        self.board.start(name, None)
        stopping = False
        try:
            async with trio.open_nursery() as nursery:
                await nursery.start(entrant.run)

                async def watch() -> None:
                    await entrant.ended.wait()
                    if stopping:
                        return
                    # Judged as it exits (as arena check-client judges it).
                    seen.exited_after_game_over = seen.game_over_sent
                    seen.exited_early = not seen.game_over_sent
                    seen.exit_status = entrant.status
                    exited.set()

                nursery.start_soon(watch)
                await run_probe(listeners, config, seen, exited)
                with trio.move_on_after(END_GRACE if seen.sockets else 0):
                    await exited.wait()
                stopping = True
                entrant.stop()
                nursery.cancel_scope.cancel()
        finally:
            for listener in listeners:
                await listener.aclose()
        seen.stderr_tail = await trio.to_thread.run_sync(_tail, self.out / output)
        verdicts = evaluate(seen)
        passed = sum(v.status == PASSED for v in verdicts)
        result = f"{passed} of {len(verdicts)} checks of arena check-client passed"
        self.board.finish(name, result, None)
        first = next((v for v in verdicts if v.status != PASSED), None)
        reason = detail = None
        if first is not None:
            detail = f"{first.check.name}: {first.detail} (see {first.check.section})"
            reason = "protocol_error"
            if first.check.name == "runs" and seen.exit_status is not None:
                reason, detail = "crashed", f"{entrant.exit}; {detail}"
            elif first.check.name == "runs" and seen.sockets == 0:
                reason = "never_connected"
        return {
            "passed": first is None, "reason": reason, "detail": detail, "output": output,
            "result": result, "replay": None,
            "checks": [v.as_dict() for v in verdicts],
        }  # fmt: skip

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
        allows), known to the server by the match's name; None when a team is built in."""
        if not all(self.teams[team].external for team in game.seats):
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
        # Worded by who failed: "ann wins; fay lost: crashed", never "ann wins (crashed)".
        lost = [f"{game.seats[f['seat']]} lost: {f['reason']}" for f in failures]
        if points[0] == points[1]:
            result = f"draw ({reason})" if points[0] else "both lose"
        else:
            result = f"{a if points[0] > points[1] else b} wins"
            result += "" if failures else f" ({reason})"
        result = "; ".join([result, *lost])
        self.watches.pop(name, None)
        return {
            "index": game.index,
            "name": name,
            "round": game.round,
            "stage": game.stage,
            "seed": game.seed,
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
            "cpu": _cpu_by_team(None if actor is None else actor.cpu, game.seats),
            "log": None if log_path is None else str(Path(log_path).relative_to(self.out)),
            "replay": replay,
        }


def _cpu_by_team(cpu: dict[str, Any] | None, seats: tuple[str, ...]) -> dict[str, Any] | None:
    """The match's CPU per team name (the actor's is per seat); None: not measured."""
    if cpu is None:
        return None
    return {team: cpu[str(seat)] for seat, team in enumerate(seats) if str(seat) in cpu}


def _tail(path: Path, lines: int = 5) -> list[str]:
    """The last lines a program wrote (its output file's last 4 KiB)."""
    try:
        with path.open("rb") as file:
            file.seek(max(0, path.stat().st_size - 4096))
            text = file.read().decode("utf-8", "replace")
    except OSError:
        return []
    return [line for line in text.splitlines() if line.strip()][-lines:]
