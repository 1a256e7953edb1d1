"""A dungeon socket handed from one process to another (``arena serve --processes N``).

A socket's ``start`` is read in the front process and its match played in a worker process
(:mod:`server.workers`, :mod:`server.worker`): :meth:`server.connection.Connection.detach` stops
the reader where nothing read is lost and gives up the socket, leaving a :class:`Detached`, and
:meth:`server.connection.Connection.adopt` takes it up again in the worker, as if that process
had read the ``start`` itself. :class:`HandOff` is the reader's side of it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import trio

from dungeon.engine import AgentId
from server.net import FrameReader

if TYPE_CHECKING:
    from protocol.session import Session

__all__ = ["Detach", "Detached", "HandOff", "detached_state"]


@dataclass(frozen=True, slots=True)
class Detached:
    """What another process needs to go on serving a socket whose ``start`` was read here: a
    duplicate of its descriptor (the caller owns it and closes it), its slot, what was read of
    an unfinished line, and its session's counters (spec section 4: errors count from the first
    line; lines and requests before ``dungeon`` count toward their budget and are answered)."""

    fd: int
    number: int
    slot: AgentId
    leftover: bytes
    errors: int
    held: int
    early_lines: int


class Detach(Exception):
    """Raised in the reader instead of reading: its socket is being handed off."""


class HandOff:
    """One socket's hand-off to another process: asked for, the read it cancels, the reader
    stopped, and what it left (None: the socket could not be handed off)."""

    def __init__(self) -> None:
        self.asked = False
        self._fill_scope: trio.CancelScope | None = None
        self.reader_stopped = trio.Event()
        self.detached: Detached | None = None
        self.abandoned = False  # the hand-off was called off: nothing to hand on

    async def wait(self) -> Detached | None:
        """Ask for the hand-off and wait for the reader to stop (see
        :meth:`server.connection.Connection.detach`)."""
        self.asked = True
        if self._fill_scope is not None:
            self._fill_scope.cancel()
        try:
            await self.reader_stopped.wait()
        except BaseException:  # cancelled (the server is stopping): the duplicate is ours
            self.abandoned = True
            if self.detached is not None:
                os.close(self.detached.fd)
            raise
        return self.detached

    async def fill(self, reader: FrameReader) -> None:
        """Read more, unless a hand-off was asked for (then :class:`Detach`): its cancellation
        reaches the read only while it waits, so nothing read is lost."""
        if self.asked:
            raise Detach
        with trio.CancelScope() as scope:
            self._fill_scope = scope
            await reader.fill()
        self._fill_scope = None
        if scope.cancelled_caught:
            raise Detach


def detached_state(
    *,
    fd: int | None,
    number: int,
    slot: AgentId | None,
    leftover: bytes,
    session: Session,
    settled: bool,
    abandoned: bool,
) -> Detached | str:
    """At a wait for data, a socket's state for another process, from plain values (``fd``
    its descriptor, ``settled``: open with nothing left unwritten); or why it cannot go, for
    the caller to end it with."""
    if fd is None or not settled or slot is None:
        return "not_handed_off"
    if abandoned:
        return "shutdown"
    try:
        duplicate = os.dup(fd)
    except OSError as error:  # out of descriptors
        return f"not_handed_off: {error.strerror}"
    return Detached(
        fd=duplicate,
        number=number,
        slot=slot,
        leftover=leftover,
        errors=session.errors,
        held=session.held,
        early_lines=session.early_lines,
    )
