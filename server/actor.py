"""A match actor: the one task that owns a running match's engine and its log.

Sockets reach it only through its bounded inbox, with plain values (:mod:`server.inbox`): when
the match begins each socket gets its own ``clone()`` of the inbox's send side (requests, then
"my socket closed"), as does each optimum check while it runs (:mod:`server.optimum_checks`);
the actor learns that all are closed from ``EndOfChannel``. It knows a socket only by its seat
(``AgentId``) and answers with values (``Begun``, ``Replies``, ``Kill``: :mod:`server.owed`)
handed to the one function the server gave it (``answer``: the socket side applies them
without ever waiting, so a client that stops reading is disconnected and the other eleven
never wait for it), which says back the seats gone and those past their error limit. Its log
file and the
match's preparation are :mod:`server.match_file`; its loop in fair time is
:func:`server.fairtime.serve_fair`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog
import trio

from dungeon.config import RulesConfig
from dungeon.engine import AgentId, Disconnect, Input, Match, Output, Request, TimeUp
from protocol.encoding import encode_lines
from protocol.messages import Error
from replay.digestlog import DEFAULT_BUDGET, DigestLogWriter
from replay.matchlog import MatchLogWriter
from server.fairtime import FairGate, TimeLimit, serve_fair, watch_budget
from server.inbox import Answers, Begun, Closed, Failure, Refused, Submitted
from server.lobby import Filling
from server.match_file import LogMaps, log_path, open_log, prepare, time_fields, writer_for
from server.optimum_checks import CHECK_GRACE, Checker, Checks, Optimum
from server.owed import Owed

__all__ = ["MatchActor"]

log = structlog.get_logger()

#: Requests (of all twelve sockets) waiting for the actor at most; a full inbox makes readers
#: wait, which is the back-pressure a flooding client feels.
INBOX_SIZE = 64
#: Inbox items the actor handles in one step when they are already waiting. Their answers go
#: out together after the last, so the first waits a little more (docs/server.md, "Batching").
DRAIN = 8


_InboxItem = Submitted | Refused | Closed | Optimum | TimeLimit


class MatchActor:
    """Runs one full match: begin, apply every input in arrival order, end, close the log."""

    def __init__(
        self,
        filling: Filling[Any],
        answer: Answers,
        *,
        seed: int,
        config: RulesConfig,
        log_dir: Path | None,
        log_maps: LogMaps = "digest",
        log_key: bytes | None = None,
        log_budget: int | None = None,
        checker: Checker | None,
        check_limiter: trio.CapacityLimiter | None,
        prepare_limiter: trio.CapacityLimiter | None = None,
        check_grace: float = CHECK_GRACE,
        on_over: Callable[[MatchActor], None],  # the match is over (its name is free)
        on_prepared: Callable[[], None] | None = None,  # the engine exists (Collector)
        fair: FairGate | None = None,
    ) -> None:
        self.filling = filling
        self.number = filling.number
        self.name = filling.name
        self.seed = seed
        self.config = config
        self.log_dir = log_dir
        self.log_maps: LogMaps = log_maps
        self.log_key = log_key
        self.log_budget = DEFAULT_BUDGET if log_budget is None else log_budget
        self.log_path: Path | None = None
        self.end_reason: str | None = None
        self.winner: int | None = None
        #: Each seat's protocol fault, once the match is over (the server's, from its seats).
        self.faults: dict[AgentId, str] = {}
        self._prepare_limiter = prepare_limiter
        self._check_grace = check_grace
        self._on_over = on_over
        self._on_prepared = on_prepared
        #: What the match owes each seat (the socket side, ``answer``, applies it).
        self._owed = Owed(answer, filling.seats, self._flush_log)
        #: The inbox's send side is only cloned (one clone per socket and per running check);
        #: it is closed once the match has begun.
        self._inbox, self._inbox_out = trio.open_memory_channel[_InboxItem](INBOX_SIZE)
        self._stop = trio.CancelScope()
        self._stop_reason: str | None = None
        self._writer: MatchLogWriter | DigestLogWriter | None = None
        self._budget_warned = False
        self._engine: Match | None = None
        self.log = log.bind(match=filling.number)
        #: The trap optimum checks (each result comes back through the inbox).
        self._checks: Checks | None = Checks(checker, check_limiter, self._log_optimum, self.log)
        #: The most inbox items handled in one step (a backlog is served without a scheduling
        #: round per item).
        self.largest_batch = 0
        #: The teams' CPU meters (docs/fair-time.md): with ``fair.ordered`` requests are applied
        #: in fair-time order, else in arrival order and only measured; None: not measured.
        self.fair = fair
        #: Each team's CPU in the match (FairGate.summary), once it is over; None: not measured.
        self.cpu: dict[str, Any] | None = None
        #: The team that went past its CPU budget (it forfeited, reason ``time_limit``).
        self.time_limit: int | None = None

    # -- called by other tasks (only cancelling; everything else comes through the inbox) ------

    @property
    def engine(self) -> Match | None:
        """The running match's engine; None before it is prepared and once the match is done
        (a finished actor keeps only its result)."""
        return self._engine

    @property
    def log_lines_written(self) -> int | None:
        """Lines written to the match log so far (None without a log, or once it is closed)."""
        return None if self._writer is None else self._writer.lines_written

    def stop(self, reason: str) -> None:
        """End the match now as a draw (server shutdown); the actor logs and closes it."""
        if self._stop_reason is None:
            self._stop_reason = reason
        self._stop.cancel()
        if self._checks is not None:
            self._checks.stop.cancel()

    # -- the actor -----------------------------------------------------------------------------

    async def run(self) -> None:
        try:
            await self._run()
        except Exception:
            self.log.exception("match_crashed")
            self._owed.kill("match_crashed")
        finally:
            self._inbox_out.close()
            self._release()

    def _release(self) -> None:
        """Drop what only a running match needs. The server keeps every finished actor for its
        result (``Server.finished``): its engine (about 1.3 MB), sockets and log writer must not
        live as long as the server."""
        self._engine = None
        self._writer = None
        self._checks = None
        self._owed.close()
        self.filling.seats.clear()

    async def _run(self) -> None:
        if self.log_dir is not None:
            self.log_path = log_path(self.log_dir, self.number, self.name, self.log_maps)
        with open_log(self.log_path) as stream:
            writer = writer_for(stream, self.log_maps, self.log_key, self.log_budget)
            self._writer = writer
            # One match prepares at a time: its steps run between the checkpoints of _prepare,
            # and a crowd of matches starting at once (a tournament round, a wave of finished
            # matches replaced) would otherwise put one multi-millisecond step of each into the
            # same scheduling batch and hold every running match's answers up for all of them.
            async with self._prepare_limiter or contextlib.nullcontext():
                engine, begin, lines = await prepare(
                    self.seed, self.config, writer, self.name, time_fields(self.fair)
                )
            self._engine = engine
            if self._on_prepared is not None:
                self._on_prepared()
            checks = self._checks
            assert checks is not None
            async with trio.open_nursery() as nursery:
                checks.nursery = nursery
                self._begin(begin, lines)
                # Sent: the twelve maps (about 1 MB) need not live as long as the match.
                del begin, lines
                deadline = trio.current_time() + self.config.draw_seconds
                if self.fair is not None and self.fair.budget is not None:
                    assert checks.results is not None
                    nursery.start_soon(watch_budget, engine, self.fair, checks.results)
                with self._stop, trio.move_on_at(deadline):
                    if self.fair is not None and self.fair.ordered:
                        await serve_fair(
                            self._inbox_out, self.fair, engine, self._handle, self._send_pending
                        )
                    else:
                        async for item in self._inbox_out:
                            self._handle(item)
                            # What else is already waiting, in the same step: a backlog is served
                            # without a scheduling round per item (trio's receive yields even when
                            # an item is there), its log lines reach the file in one write, and a
                            # socket gets what the batch produced for it in one write.
                            drained = 1
                            while drained < DRAIN and not engine.is_over:
                                try:
                                    item = self._inbox_out.receive_nowait()
                                except (trio.WouldBlock, trio.EndOfChannel):
                                    break
                                self._handle(item)
                                drained += 1
                            self.largest_batch = max(self.largest_batch, drained)
                            self._send_pending()
                            if engine.is_over:
                                break
                if not engine.is_over:
                    self._apply(TimeUp())
                    self._send_pending()
                if self.fair is not None:
                    self.fair.observe()
                    self.cpu = self.fair.summary()
                self.end_reason = self._stop_reason or engine.end_reason
                if self.time_limit is not None and engine.end_reason == "forfeit":
                    self.end_reason = "time_limit"
                self.winner = engine.winner
                self.log.info(
                    "match_over", reason=self.end_reason, winner=engine.winner,
                    crossings=engine.crossings,
                )  # fmt: skip
                self._on_over(self)
                if checks.results is not None:
                    checks.results.close()  # from now on: EndOfChannel once all have closed
                grace = min(self._check_grace, self.config.optimum_timeout + 1)
                await checks.finish(self._inbox_out, grace)
                nursery.cancel_scope.cancel()
            if writer is not None:
                extra = {} if self.cpu is None else {"cpu": self.cpu}
                writer.close(reason=self.end_reason or "over", **extra)

    def _begin(self, output: Output, lines: list[bytes]) -> None:
        if self.fair is not None:
            self.fair.begin()
        assert self._checks is not None
        self._checks.results = self._inbox.clone()  # cloned for each optimum check
        # Each open socket's clone of the inbox, its `dungeon`, the errors for what it held.
        maps = [(outbound.to, line) for outbound, line in zip(output.messages, lines, strict=True)]
        gone = self._owed.tell(Begun(self._inbox, maps, self.config.draw_seconds))
        self._inbox.close()
        for slot in gone:
            self._socket_gone(slot)
        self._send_pending()
        self.log.info("match_begun", name=self.name, log=str(self.log_path or ""))

    def _handle(self, item: _InboxItem, cost: float | None = None) -> None:
        """Apply one inbox item; ``cost``: the CPU a request cost its team (fair time)."""
        if isinstance(item, Submitted):
            slot = item.seat  # open or not, as it was when it sent
            if not self._owed.admits(slot):
                return  # past the socket's error limit: nothing it sends reaches the match
            if cost is None and self.fair is not None:
                cost = self.fair.spend(slot.team)  # wall time: measured only
            self._apply(Request(slot, item.message), cpu=cost)
        elif isinstance(item, Refused):
            # A line the socket's reader refused: answered here, after the requests before it.
            if self._owed.admits(item.seat):
                failure = Failure(Error(code=item.code, message=item.text), closing=item.closing)
                self._owed.fail(item.seat, failure)
        elif isinstance(item, Closed):
            self._socket_gone(item.seat)
        elif isinstance(item, TimeLimit):
            self._out_of_time(item.team)
        else:
            assert self._checks is not None
            self._checks.arrived(item)

    def _out_of_time(self, team: int) -> None:
        """``team`` went past its CPU budget: it forfeits (the engine's Disconnect, logged as
        an input; the match ends with reason ``time_limit``)."""
        assert self._engine is not None
        if self._engine.is_over:
            return
        self.time_limit = team
        self.log.info("time_limit", team=team, budget=self.fair and self.fair.budget)
        self._apply(Disconnect(AgentId(team, 0)))

    def _apply(self, event: Input, *, cpu: float | None = None) -> None:
        """Log ``event``, apply it, log what it produced, and hold its messages back for
        :meth:`_send_pending` (the caller's next step), which sends them once they are on disk.
        ``cpu``: the CPU the request cost its team, logged with it."""
        assert self._engine is not None
        if self._writer is not None:
            if cpu is None:
                self._writer.input(event)
            else:
                self._writer.input(event, cpu=cpu)
        output = self._engine.apply(event)
        lines = encode_lines([outbound.message for outbound in output.messages])
        if self._writer is not None:
            # The log's `send` lines embed the very bytes sent (a `sat`'s clauses were encoded
            # twice, for the socket and for the log).
            self._writer.output(output, encoded=lines)
            writer = self._writer
            if type(writer) is DigestLogWriter and writer.over_budget and not self._budget_warned:
                # Once: the match plays on, its log keeps only the result from here.
                self._budget_warned = True
                self.log.warning(
                    "log_budget_exceeded", log=str(self.log_path), budget=writer.budget
                )
        if self._checks is not None:
            self._checks.start(output.events)
        self._owed.hold(output, lines)

    def _flush_log(self) -> None:
        if self._writer is not None:
            self._writer.flush()

    def _send_pending(self) -> bool:
        """Flush the log, then hand over every held message: nothing an input caused reaches a
        socket before the input and all its lines are on disk (handed to the OS). In fair time
        a running match holds back what a team is owed until fair time lets it go (thinking:
        its sleep; asleep: its wake in virtual time; FairGate.holding); whether something was
        held back."""
        fair = self.fair
        sent = None if fair is None else fair.sent
        writer = self._writer
        while True:
            if writer is not None:
                writer.flush()  # also the lines of inputs that sent nothing
            engine = self._engine
            running = engine is not None and not engine.is_over
            hold = fair.holding(self._owed.teams()) if fair is not None and running else frozenset()
            gone = self._owed.send(sent, hold)
            if not gone:
                return self._owed.holds()
            # A team gone is one more input (Disconnect), whose messages the loop sends next.
            for slot in gone:
                self._socket_gone(slot)

    def _socket_gone(self, slot: AgentId) -> None:
        opened = self._owed.open
        if slot not in opened:
            return
        opened.discard(slot)
        assert self._engine is not None
        team_left = any(other.team == slot.team for other in opened)
        if not team_left and not self._engine.is_over:
            self.log.info("team_gone", team=slot.team)
            self._apply(Disconnect(slot))

    # -- optimum checks ------------------------------------------------------------------------

    def _log_optimum(self, crossing: int, value: int | None) -> None:
        if self._writer is not None:
            self._writer.optimum(crossing, value)
            self._writer.flush()
