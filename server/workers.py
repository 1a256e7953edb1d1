"""``arena serve --processes N``: the front process hands each full match to a worker process.

The front runs a :class:`server.app.Server` as usual (listener, limits, lobby, start timeouts,
tokens, seeds) with :meth:`WorkerPool.hand_off` as its ``hand_off``: when a match is full (the
moment a one-process server would begin it) each of its twelve connections stops reading where
nothing read is lost (``Connection.detach``), and the match goes to the least loaded worker
(:mod:`server.worker`) over that worker's control socket (:mod:`server.handoff`): the sockets'
descriptors, the match's number, name and seed, and each socket's unfinished line and counters.
The front then closes its copies: it keeps no socket of a match it handed off, only the match's
name until the worker reports the match over (a name is free again once its match is over).

A worker that dies loses its matches (their sockets close) and nothing else: the front logs it,
frees the matches' names and starts another worker in its place, unless it died before it was
ready (a worker that cannot start would only die again). :meth:`WorkerPool.stop` tells each
worker to stop (it ends its matches as draws, closing their logs) and waits for them, killing
those that overrun the grace.

Workers run in their own process group: a Ctrl-C on the terminal reaches the front only, which
stops them; none of them sees SIGINT.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog
import trio

from dungeon.engine import AgentId
from server.connection import Connection
from server.detach import Detached
from server.handoff import (
    Latencies,
    Match,
    Over,
    Probe,
    Ready,
    Seat,
    Stop,
    receive_frame,
    send_frame,
)
from server.lobby import Filling

__all__ = ["STOP_GRACE", "WorkerPool"]

log = structlog.get_logger()

#: Seconds a stopping worker gets to end its matches and exit before it is killed (its own
#: server gives its sockets 5 s to flush their last lines).
STOP_GRACE = 10.0


@dataclass(eq=False)
class _Worker:
    """One worker process, the front's end of its control socket and the matches it plays."""

    index: int
    process: trio.Process
    control: trio.socket.SocketType
    ready: bool = False
    pid: int = 0
    matches: dict[int, Filling[Connection]] = field(default_factory=dict)
    sending: trio.Lock = field(default_factory=trio.Lock)
    #: Answers to probes, in order (at most one probe is out per worker: WorkerPool.latencies).
    answers: trio.MemorySendChannel[Latencies] | None = None

    async def send(self, frame: Match | Stop | Probe, fds: list[int] | None = None) -> None:
        async with self.sending:  # one frame at a time on the stream
            await send_frame(self.control, frame, fds)


class WorkerPool:
    """``processes`` worker processes, each started as ``command(fd)`` (``fd``: its end of the
    control socket, inherited); :meth:`run` keeps them, :meth:`hand_off` gives them matches."""

    def __init__(self, processes: int, command: Callable[[int], list[str]]) -> None:
        if processes < 1:
            raise ValueError(f"a WorkerPool needs at least 1 process, got {processes}")
        self.processes = processes
        self._command = command
        #: Told each handed-off match once it is over or lost (the server's ``lobby.finished``:
        #: its name is free again).
        self.finished: Callable[[Filling[Connection]], None] = lambda filling: None
        self._workers: list[_Worker | None] = [None] * processes
        self._stopping = False

    @property
    def pids(self) -> list[int]:
        """The running workers' process ids."""
        return [w.process.pid for w in self._workers if w is not None]

    @property
    def load(self) -> list[int]:
        """Matches each worker plays now (0 for a worker slot without a process)."""
        return [0 if w is None else len(w.matches) for w in self._workers]

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Start the workers (reports once each is ready or has failed), keep them until
        :meth:`stop`, then return once every one has exited."""
        async with trio.open_nursery() as nursery:
            for index in range(self.processes):
                await nursery.start(self._keep, index)
            task_status.started()

    async def stop(self, grace: float = STOP_GRACE) -> None:
        """Tell every worker to stop; kill those still running after ``grace`` seconds."""
        self._stopping = True
        workers = [w for w in self._workers if w is not None]
        for worker in workers:
            with contextlib.suppress(OSError):  # already gone
                await worker.send(Stop())
        with trio.move_on_after(grace):
            for worker in workers:
                await worker.process.wait()
        for worker in workers:
            if worker.process.returncode is None:
                log.warning("worker_killed", worker=worker.index, pid=worker.process.pid)
                worker.process.kill()

    async def latencies(self, *, reset: bool = False) -> list[float]:
        """Every worker's request-to-answer times since the last call (workers started with
        ``Settings.probe``; for benchmarks); ``reset``: forget them instead. One call at a time."""
        found: list[float] = []
        for worker in [w for w in self._workers if w is not None]:
            answers, replies = trio.open_memory_channel[Latencies](1)
            worker.answers = answers
            try:
                await worker.send(Probe(reset))
                with trio.move_on_after(STOP_GRACE):
                    found += (await replies.receive()).seconds
            except OSError:
                pass  # gone: it has nothing to report
            finally:
                worker.answers = None
        return found

    async def _keep(self, index: int, *, task_status: trio.TaskStatus[None]) -> None:
        """Worker slot ``index``: a process, replaced when it dies (once it had been ready)."""
        reported = False
        while not self._stopping:
            worker = await self._start(index)
            try:
                await self._listen(worker, task_status if not reported else None)
            except BaseException:
                worker.process.kill()  # cancelled (the front is failing): no orphan
                raise
            finally:
                reported = True
                self._workers[index] = None
                worker.control.close()
                with trio.CancelScope(shield=True):
                    with trio.move_on_after(STOP_GRACE):
                        await worker.process.wait()
                    if worker.process.returncode is None:
                        worker.process.kill()
                    status = await worker.process.wait()
                lost = list(worker.matches.values())
                worker.matches.clear()
                for filling in lost:
                    self.finished(filling)
            if self._stopping:
                log.info("worker_exited", worker=index, pid=worker.process.pid, status=status)
                return
            log.error(
                "worker_died", worker=index, pid=worker.process.pid, status=status,
                matches_lost=len(lost), restarting=worker.ready,
            )  # fmt: skip
            if not worker.ready:
                return  # it could not start: another would not either

    async def _start(self, index: int) -> _Worker:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            process = await trio.lowlevel.open_process(
                self._command(theirs.fileno()),
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                process_group=0,  # Ctrl-C on a terminal reaches the front only
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        worker = _Worker(index, process, trio.socket.from_stdlib_socket(ours))
        self._workers[index] = worker
        return worker

    async def _listen(self, worker: _Worker, task_status: trio.TaskStatus[None] | None) -> None:
        """Read the worker's reports until its control stream ends (it exited or died)."""
        try:
            while True:
                broken = None
                try:
                    received = await receive_frame(worker.control)
                except (OSError, ValueError) as error:
                    broken, received = str(error), None
                if broken is not None:
                    log.error("worker_stream_broken", worker=worker.index, error=broken)
                if received is None:
                    return
                frame, fds = received
                for fd in fds:
                    os.close(fd)  # a worker sends none
                if isinstance(frame, Ready):
                    worker.ready, worker.pid = True, frame.pid
                    log.info("worker_ready", worker=worker.index, pid=frame.pid)
                    if task_status is not None:
                        task_status.started()
                        task_status = None
                elif isinstance(frame, Over):
                    filling = worker.matches.pop(frame.number, None)
                    if filling is not None:
                        self.finished(filling)
                elif isinstance(frame, Latencies) and worker.answers is not None:
                    with contextlib.suppress(trio.WouldBlock, trio.BrokenResourceError):
                        worker.answers.send_nowait(frame)
        finally:
            if task_status is not None:
                task_status.started()  # it failed to start: the front serves on without it

    async def hand_off(self, filling: Filling[Connection], seed: int) -> None:
        """The ``Server.hand_off`` of a front: detach the full match's sockets and send them
        to the least loaded worker. Never raises: a match that cannot be handed off is lost
        (logged; its sockets close) and its name freed."""
        seats = dict(filling.seats)
        detached: dict[AgentId, Detached | None] = {}

        async def detach(slot: AgentId, conn: Connection) -> None:
            detached[slot] = await conn.detach()

        try:
            async with trio.open_nursery() as nursery:
                for slot, conn in seats.items():
                    nursery.start_soon(detach, slot, conn)
            filling.seats.clear()  # the front keeps only the match's name
            await self._send(filling, seed, seats, detached)
        finally:
            for state in detached.values():
                if state is not None:
                    os.close(state.fd)

    async def _send(
        self,
        filling: Filling[Connection],
        seed: int,
        seats: dict[AgentId, Connection],
        detached: dict[AgentId, Detached | None],
    ) -> None:
        fds: list[int] = []
        wire: list[Seat] = []
        for slot, conn in seats.items():
            state = detached.get(slot)
            if state is None:
                wire.append(Seat(team=slot[0], agent=slot[1], number=conn.number, fd=-1))
                continue
            seat = Seat(slot[0], slot[1], state.number, len(fds), state.leftover, state.errors,
                        state.held, state.early_lines)  # fmt: skip
            wire.append(seat)
            fds.append(state.fd)
        worker = self._choose()
        if worker is None:
            log.error("match_lost", match=filling.number, reason="no worker process is running")
            self.finished(filling)
            return
        worker.matches[filling.number] = filling
        failed = None
        try:
            await worker.send(Match(filling.number, filling.name, seed, wire), fds)
        except OSError as error:
            failed = str(error)
        if failed is not None:
            worker.matches.pop(filling.number, None)
            log.error("match_lost", match=filling.number, worker=worker.index, reason=failed)
            self.finished(filling)
            return
        log.info(
            "match_handed_off", match=filling.number, name=filling.name, worker=worker.index,
            sockets=len(fds),
        )  # fmt: skip

    def _choose(self) -> _Worker | None:
        """The worker with the fewest matches (ready ones first; then the lowest index)."""
        running = [w for w in self._workers if w is not None]
        if not running:
            return None
        return min(running, key=lambda w: (not w.ready, len(w.matches), w.index))
