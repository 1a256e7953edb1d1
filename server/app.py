"""The dungeon server: a listener, the lobby, one task per socket and one actor per match.

``serve`` is what ``arena serve`` runs and what tests start with ``await nursery.start(serve,
port=0)`` (it reports the bound port). :class:`Server` holds the parts that do not depend on
TCP, so tests can also hand it in-memory streams (``Server.handle``) and drive timeouts in
virtual time.

Shutdown (``shutdown`` event set, e.g. by SIGINT/SIGTERM in the CLI): stop accepting, end every
running match as a draw (its log closes with reason ``shutdown``), close sockets still waiting
for a match, give writers a moment to flush, then return.
"""

from __future__ import annotations

import itertools
import resource
import secrets
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Literal

import structlog
import trio

from dungeon.config import DEFAULT_RULES, RulesConfig
from server.actor import MatchActor
from server.connection import Connection
from server.fairtime import FairGate, Meter
from server.gc_policy import Collector
from server.lobby import Filling, Lobby
from server.net import DEFAULT_LIMITS, Gate, Limits, open_listeners, serve_tcp
from server.optimum_checks import CHECK_GRACE, Checker
from server.seat import Seats

__all__ = ["Server", "limits_for", "serve"]

log = structlog.get_logger()

#: Open files the connection cap leaves for the rest: listeners, match logs, refused sockets.
FILES_KEPT = 256
#: Seconds sockets get to flush their last messages at shutdown.
SHUTDOWN_GRACE = 5.0


class Server:
    """Every match and socket of one server; ``run`` owns their nurseries."""

    def __init__(
        self,
        *,
        config: RulesConfig = DEFAULT_RULES,
        log_dir: Path | str | None = None,
        log_maps: Literal["each", "once", "digest"] = "digest",
        log_key: bytes | None = None,
        log_budget: int | None = None,
        seed: int | None = None,
        checker: Checker | None = None,
        check_workers: int = 2,
        limits: Limits | None = None,
        latency: Callable[[float], None] | None = None,
        check_grace: float = CHECK_GRACE,
        collector: Collector | None = None,
        tokens: Mapping[str, Mapping[int, str]] | None = None,
        seeds: Mapping[str, int] | None = None,
        observer: Callable[[str, MatchActor | Connection], None] | None = None,
        hand_off: Callable[[Filling[Connection], int], Awaitable[None]] | None = None,
        time: Literal["cpu", "wall"] = "wall",
        meters: Callable[[Filling[Connection]], Mapping[int, Meter] | None] | None = None,
        cpu_budget: float | None = None,
    ) -> None:
        self.config = config
        #: Named matches' seeds (name -> seed), read when the match starts: a tournament fixes
        #: each match's seed whatever order its matches fill in.
        self.seeds: Mapping[str, int] = seeds if seeds is not None else {}
        #: Told ``("started", actor)`` (its log holds the dungeon), ``("over", actor)`` (its log
        #: closed; also for a match that could not start) and ``("closed", connection)``
        #: (``fault`` says if its client broke the protocol): a tournament and the live view
        #: follow matches with it. It must not block or raise.
        self.observer = observer
        #: ``arena serve --processes N``: called (as a task) with each full match and its seed
        #: instead of playing it here; it hands the match to a worker process (server.workers).
        self.hand_off = hand_off
        #: ``--time``: "cpu" applies a match's requests in fair-time order (docs/fair-time.md)
        #: when ``meters`` gives both its teams' CPU meters; "wall" in order of arrival.
        self.time: Literal["cpu", "wall"] = time
        #: The CPU meters of a full match's two teams (team -> meter), or None when they cannot
        #: be found (the match is then played in wall-clock order, its log header says so, and
        #: in cpu mode the server logs ``fair_time_off``); an empty mapping when the caller knows
        #: the match is not measured and says so itself (a tournament's built-in team).
        self.meters = meters
        #: Each team's CPU budget per match in seconds (time banks), None: no budget.
        self.cpu_budget = cpu_budget
        self._fair_off_said = False
        #: The process's garbage collection policy, when this server owns the process.
        self.collector = collector
        self._check_grace = check_grace
        self.log_dir = None if log_dir is None else Path(log_dir)
        #: "once": compact match logs, the map written once (docs/log-format.md).
        self.log_maps: Literal["each", "once", "digest"] = log_maps
        #: The key match logs are signed with (digest logs), None: unsigned.
        self.log_key = log_key
        #: A digest log's size budget in bytes (None: replay.digestlog.DEFAULT_BUDGET).
        self.log_budget = log_budget
        self._seeds = itertools.count(seed) if seed is not None else None
        self._checker = checker
        self._limiter = trio.CapacityLimiter(check_workers)
        self._prepare_limiter = trio.CapacityLimiter(1)
        #: The network layer's policy; by default its defaults, with the rules' line limit and
        #: an idle limit of the draw time (the spec lets an agent stay silent that long).
        self.limits = limits if limits is not None else limits_for(config)
        self.gate = Gate(self.limits)
        self._latency = latency
        #: ``tokens``: match name -> team -> the token its starts must carry (arena serve --teams,
        #: or a tournament, which fills it as it names matches)
        self.lobby: Lobby[Connection] = Lobby(self._start_match, tokens)
        self.actors: set[MatchActor] = set()
        #: Every actor ever started, in order (tests and ``arena match`` read their results).
        self.finished: list[MatchActor] = []
        self._connections: set[Connection] = set()
        self._numbers = itertools.count(1)
        self._matches: trio.Nursery | None = None
        self._sockets: trio.Nursery | None = None
        self._shutdown = trio.Event()
        self._stopping = False
        self._idle = trio.Event()
        self._no_matches = trio.Event()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Host matches until :meth:`shutdown`; then end them as draws and return."""
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        if self.collector is not None:
            self.collector.started()
        try:
            await self._run(task_status)
        finally:
            if self.collector is not None:
                self.collector.stopped()
        log.info("server_stopped")

    async def _run(self, task_status: trio.TaskStatus[None]) -> None:
        async with trio.open_nursery() as matches:
            self._matches = matches
            async with trio.open_nursery() as sockets:
                self._sockets = sockets
                task_status.started()
                await self._shutdown.wait()
                self._stopping = True
                log.info("server_stopping", matches=len(self.actors))
                for actor in list(self.actors):
                    actor.stop("shutdown")
                for conn in list(self._connections):
                    if not conn.playing:
                        conn.kill("shutdown")
                self._check_idle()
                with trio.move_on_after(SHUTDOWN_GRACE):
                    await self._idle.wait()
                sockets.cancel_scope.cancel()
            matches.cancel_scope.cancel()

    def shutdown(self) -> None:
        """Ask :meth:`run` to end every match as a draw and return."""
        self._shutdown.set()

    async def handle(self, stream: trio.abc.Stream) -> None:
        """Serve one client stream (a TCP socket, or a memory stream in tests) until it closes.

        Never raises: one client's failure ends only that client.
        """
        if self._stopping:
            await trio.aclose_forcefully(stream)
            return
        await self._serve(self.connection(stream, next(self._numbers)))

    def connection(self, stream: trio.abc.Stream, number: int) -> Connection:
        """A connection of this server for ``stream``."""
        return Connection(
            stream,
            number,
            config=self.config,
            lobby=self.lobby,
            limits=self.limits,
            gate=self.gate,
            latency=self._latency,
        )

    async def _serve(self, conn: Connection) -> None:
        self._connections.add(conn)
        admitted = True  # a connection the gate refused is no observer's business
        try:
            admitted = await conn.run()
        except Exception:
            conn.log.exception("connection_failed")
        finally:
            self._connections.discard(conn)
            if self.observer is not None and admitted:
                self.observer("closed", conn)
            self._check_idle()

    def adopt(self, filling: Filling[Connection], seed: int) -> MatchActor:
        """Play a full match whose sockets another process's lobby filled (a worker of
        ``arena serve --processes``): each seat is a connection made by :meth:`connection` and
        given its socket's state (``Connection.adopt``); the match starts at once with ``seed``.
        """
        assert self._sockets is not None, "Server.run() must be running"
        for conn in filling.seats.values():
            self._sockets.start_soon(self._serve, conn)
        return self.launch(filling, seed)

    def _start_match(self, filling: Filling[Connection]) -> None:
        assert self._matches is not None, "Server.run() must be running"
        seed = self.seeds.get(filling.name) if filling.name is not None else None
        if seed is None:
            seed = next(self._seeds) if self._seeds is not None else secrets.randbits(63)
        if self.hand_off is not None:
            self._matches.start_soon(self.hand_off, filling, seed)
        else:
            self.launch(filling, seed)

    def launch(self, filling: Filling[Connection], seed: int) -> MatchActor:
        """Start playing the full match ``filling`` with ``seed`` (its actor, in a task)."""
        assert self._matches is not None, "Server.run() must be running"

        def prepared() -> None:  # the engine exists, its log is open with the dungeon in it
            if self.collector is not None:
                self.collector.match_prepared()
            if self.observer is not None:
                self.observer("started", actor)

        # The match knows its sockets by their seats; the answers it makes go to this table.
        seats = Seats({slot: conn.seat for slot, conn in filling.seats.items()})
        actor = MatchActor(
            filling,
            seats,
            seed=seed,
            config=self.config,
            log_dir=self.log_dir,
            log_maps=self.log_maps,
            log_key=self.log_key,
            log_budget=self.log_budget,
            checker=self._checker,
            check_limiter=self._limiter,
            prepare_limiter=self._prepare_limiter,
            check_grace=self._check_grace,
            on_over=self._match_over,
            on_prepared=prepared,
            fair=self._fair_gate(filling),
        )
        self.actors.add(actor)
        self.finished.append(actor)
        self._matches.start_soon(self._run_actor, actor, seats)
        return actor

    def _fair_gate(self, filling: Filling[Connection]) -> FairGate | None:
        """The teams' CPU meters for ``filling``, ordering its requests in cpu mode (None:
        not measured, wall-clock order)."""
        meters = None if self.meters is None else self.meters(filling)
        if meters is None or set(meters) != {0, 1}:
            if self.time == "cpu" and meters != {}:
                why = "the teams' programs are not known: wall-clock order"
                # (a warning once per server; each further match at info level)
                say = log.info if self._fair_off_said else log.warning
                self._fair_off_said = True
                say("fair_time_off", match=filling.number, name=filling.name, reason=why)
            return None
        return FairGate(meters, ordered=self.time == "cpu", budget=self.cpu_budget)

    async def _run_actor(self, actor: MatchActor, seats: Seats) -> None:
        try:
            await actor.run()
        finally:
            # What its clients did wrong, by seat, kept with the result: a socket can be
            # reported closed before the match has judged the lines it sent (the 100th error is
            # counted then), so a tournament reads the faults once the match is over.
            actor.faults = seats.faults()
            if actor.fair is not None:
                actor.fair.end()  # the server keeps the actor: not its meters' clocks
            self.lobby.finished(actor.filling)
            self.actors.discard(actor)
            if self.observer is not None:
                self.observer("over", actor)
            if not self.actors:
                self._no_matches.set()
            self._check_idle()

    async def wait_no_matches(self) -> None:
        """Return once no match is running (each finished one has closed its log)."""
        while self.actors:
            self._no_matches = trio.Event()
            await self._no_matches.wait()

    def _match_over(self, actor: MatchActor) -> None:
        self.lobby.finished(actor.filling)

    def _check_idle(self) -> None:
        if self._stopping and not self._connections and not self.actors:
            self._idle.set()


def limits_for(config: RulesConfig) -> Limits:
    """The dungeon server's default limits for ``config``: the network layer's defaults, with
    the rules' line limit, an idle limit of the draw time, and a connection cap the process's
    open-file limit can hold (with room for match logs and workers): past that limit accepting
    would fail instead of refusing with an error."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    cap = DEFAULT_LIMITS.max_connections
    if soft != resource.RLIM_INFINITY:
        cap = max(1, min(cap, soft - FILES_KEPT))
    return DEFAULT_LIMITS.replace(
        max_line_bytes=config.max_line,
        partial_line_bytes=config.max_line + 2,
        idle_seconds=config.draw_seconds,
        max_connections=cap,
    )


async def serve(
    server: Server,
    *,
    host: str = "127.0.0.1",
    port: int = 7700,
    shutdown: trio.Event | None = None,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Listen on ``host:port`` and host ``server``'s matches until ``shutdown`` is set (or
    cancelled). Reports the bound port through ``task_status`` (so ``port=0`` picks a free
    one). Everything else is configured on the :class:`Server`.
    """
    listeners, bound = await open_listeners(port, host)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        assert server._sockets is not None
        accepting = trio.CancelScope()

        async def accept() -> None:
            with accepting:
                await serve_tcp(server.handle, listeners=listeners, handler_nursery=server._sockets)

        nursery.start_soon(accept)
        log.info("server_listening", host=host, port=bound, log_dir=str(server.log_dir or ""))
        task_status.started(bound)
        if shutdown is None:
            shutdown = trio.Event()
        await shutdown.wait()
        accepting.cancel()
        server.shutdown()
