"""A worker process of ``arena serve --processes N``: plays the matches the front hands it.

The front (:mod:`server.workers`) runs the lobby; each full match arrives over the control
socket (:mod:`server.handoff`) with its twelve sockets. Here a :class:`server.app.Server` without
a listener plays it: each socket becomes a connection that takes up its state
(``Connection.adopt``) and the match's actor starts with the seed the front drew, so a match
plays and is logged exactly as in a one-process server. When a match is over the front is told
(:class:`~server.handoff.Over`). A ``Stop`` or the end of the control stream (the front has
gone) ends every match as a draw, closes its log, and returns.

The process's entry point (logging, the checker pool, signals) is ``arena.serve``'s: the server
never imports the command line.
"""

from __future__ import annotations

import os
import socket
from collections import deque
from pathlib import Path

import structlog
import trio

from dungeon.config import RulesConfig
from dungeon.engine import AgentId
from server.actor import MatchActor
from server.app import Server
from server.connection import Connection
from server.detach import Detached
from server.gc_policy import Collector
from server.handoff import (
    Latencies,
    Match,
    Over,
    Probe,
    Ready,
    Settings,
    Stop,
    receive_frame,
    send_frame,
)
from server.lobby import Filling
from server.optimum_checks import Checker

__all__ = ["host"]

log = structlog.get_logger()


async def host(
    control: socket.socket,
    settings: Settings,
    *,
    checker: Checker | None = None,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Play the matches the front sends over ``control`` until it says stop or goes away."""
    sock = trio.socket.from_stdlib_socket(control)
    config = RulesConfig.from_dict(settings.config)
    latencies: list[float] = []
    server = Server(
        config=config,
        log_dir=None if settings.log_dir is None else Path(settings.log_dir),
        log_maps=settings.log_maps,
        log_key=None if settings.log_key is None else bytes.fromhex(settings.log_key),
        log_budget=settings.log_budget,
        checker=checker,
        check_workers=max(1, settings.check_workers),
        limits=settings.limits,
        # This process is the server's own: keep the collector off its answer times.
        collector=Collector(),
        latency=latencies.append if settings.probe else None,
    )
    # One small record per finished match, sent by the reporter in order (as many as the
    # matches this worker was given, each sent as soon as the reporter runs).
    finished: deque[Over] = deque()
    wake = trio.Event()

    def observer(what: str, subject: MatchActor | Connection) -> None:
        nonlocal wake
        if what == "over" and isinstance(subject, MatchActor):
            path = None if subject.log_path is None else str(subject.log_path)
            finished.append(Over(subject.number, subject.end_reason, subject.winner, path))
            wake.set()

    async def reporter() -> None:
        nonlocal wake
        try:
            while True:
                await wake.wait()
                wake = trio.Event()
                while finished:
                    await send_frame(sock, finished.popleft())
        except OSError:
            pass  # the front has gone: the receiving loop sees the end of its stream too

    server.observer = observer
    async with trio.open_nursery() as outer:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            try:
                await send_frame(sock, Ready(os.getpid()))
            except OSError:
                server.shutdown()
                return
            outer.start_soon(reporter)
            task_status.started()
            log.info("worker_started")
            await _receive_matches(sock, server, latencies)
            server.shutdown()
        outer.cancel_scope.cancel()
    sock.close()
    log.info("worker_stopped")


async def _receive_matches(
    sock: trio.socket.SocketType, server: Server, latencies: list[float]
) -> None:
    while True:
        broken: str | None = None
        try:
            received = await receive_frame(sock)
        except (OSError, ValueError) as error:
            broken = str(error)
        if broken is not None:
            log.error("control_stream_broken", error=broken)
            return
        if received is None:
            log.info("front_gone")
            return
        frame, fds = received
        if isinstance(frame, Stop):
            for fd in fds:
                os.close(fd)
            return
        if isinstance(frame, Match):
            _play(server, frame, fds)
        elif isinstance(frame, Probe):
            answer = Latencies([] if frame.reset else list(latencies))
            latencies.clear()
            try:
                await send_frame(sock, answer)
            except OSError:
                return
        else:
            for fd in fds:
                os.close(fd)
            log.error("unexpected_frame", frame=type(frame).__name__)


def _play(server: Server, match: Match, fds: list[int]) -> None:
    """Start playing ``match``: its sockets (descriptors ``fds``, now ours) join the server."""
    filling: Filling[Connection] = Filling(match.number, match.name, running=True)
    used: set[int] = set()
    for seat in match.seats:
        if 0 <= seat.fd < len(fds):
            sock = socket.socket(fileno=fds[seat.fd])
            used.add(seat.fd)
        else:
            # Closed before the hand-off: a socket at its end of stream, which the match sees
            # close as it would have seen the original one.
            sock, peer = socket.socketpair()
            peer.close()
        stream = trio.SocketStream(trio.socket.from_stdlib_socket(sock))
        conn = server.connection(stream, seat.number)
        slot = AgentId(seat.team, seat.agent)
        conn.adopt(
            Detached(
                fd=-1,
                number=seat.number,
                slot=slot,
                leftover=seat.leftover,
                errors=seat.errors,
                held=seat.held,
                early_lines=seat.early_lines,
            ),
            filling,
        )
        filling.seats[slot] = conn
    for index, fd in enumerate(fds):
        if index not in used:
            os.close(fd)
    server.adopt(filling, match.seed)
    log.info("match_adopted", match=match.number, name=match.name)
