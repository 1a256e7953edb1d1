"""Reading a connection into a sans-I/O decoder, within the connection's and the server's budgets.

A game's decoder frames the bytes its own way (lines for the dungeon and the Labyrinth,
concatenated JSON values for Fish); :class:`FrameReader` only feeds it chunks and checks what it
holds of an unfinished frame (``decoder.buffered_bytes``) against ``Limits.partial_line_bytes``
and the server-wide :class:`InputBudget`, and reads each connection at most at
``Limits.input_bytes_per_second`` on average (a flood of input that does nothing, blank lines,
costs the server a bounded share of its CPU). A connection holding an unfinished line longer
than one read is read within ``Limits.long_line_bytes_per_second``, a rate all such connections
share (the :class:`InputBudget`'s): hundreds of sockets sending long lines, or reconnecting to
send them again once closed, cost the server a bounded share of its CPU too. The caller takes
frames out of its decoder and calls :meth:`FrameReader.frame_done` for each, which yields to
other tasks every ``Limits.frames_per_step`` frames: one chunk full of tiny frames cannot hold
the event loop.
"""

from __future__ import annotations

from typing import Protocol

import trio

from server.net.limits import InputBudget, Limits, OverBudget
from server.net.transport import Transport

__all__ = ["Decoder", "FrameReader"]


class Decoder(Protocol):
    """What :class:`FrameReader` needs of a sans-I/O decoder."""

    def receive_data(self, data: bytes | bytearray | memoryview) -> None:
        """Bytes read (``b""``: the peer closed)."""

    @property
    def buffered_bytes(self) -> int:
        """Bytes held of an unfinished frame."""


class FrameReader:
    """Feeds ``decoder`` from ``transport``; accounts what it holds to ``budget``."""

    def __init__(
        self,
        transport: Transport,
        decoder: Decoder,
        limits: Limits,
        budget: InputBudget | None = None,
    ) -> None:
        self.transport = transport
        self.decoder = decoder
        self.limits = limits
        self.budget = budget
        self.eof = False
        self._held = 0  # bytes of ours counted in the budget
        self._frames = 0
        #: The token bucket of ``limits.input_bytes_per_second``: bytes that may be read now.
        self._allowance = float(limits.partial_line_bytes)
        self._refilled = trio.current_time()

    async def fill(self) -> None:
        """Read one chunk into the decoder (``b""`` once the peer has gone: sets :attr:`eof`).

        Raises :class:`OverBudget` when the decoder then holds more of an unfinished frame
        than the connection's budget, or than the server's input budget has room for.
        """
        rate = self.limits.input_bytes_per_second
        if rate is not None:
            await self._within_rate(rate)
        budget = self.budget
        if budget is not None and self.decoder.buffered_bytes >= self.limits.receive_bytes:
            # A long unfinished line: read in its turn at the rate such connections share.
            wait = budget.long_line_turn(trio.current_time())
            if wait > 0:
                await trio.sleep(wait)
        data = await self.transport.receive_some()
        self._allowance -= len(data)
        if not data:
            self.eof = True
        self.decoder.receive_data(data)
        self._account()

    async def _within_rate(self, rate: int) -> None:
        """Wait until the connection's token bucket holds some bytes again."""
        now = trio.current_time()
        burst = self.limits.partial_line_bytes
        self._allowance = min(burst, self._allowance + (now - self._refilled) * rate)
        self._refilled = now
        if self._allowance <= 0:
            await trio.sleep(-self._allowance / rate)
            self._allowance, self._refilled = 0.0, trio.current_time()

    def _account(self) -> None:
        held = self.decoder.buffered_bytes
        grown = held - self._held
        if grown <= 0:
            if self.budget is not None:
                self.budget.give_back(-grown)
            self._held = held
            return
        if held > self.limits.partial_line_bytes:
            raise OverBudget(
                "partial_line",
                f"an unfinished line longer than {self.limits.partial_line_bytes} bytes",
            )
        if self.budget is not None and not self.budget.take(grown):
            raise OverBudget("input_budget", "the server's input budget is used up")
        self._held = held

    async def frame_done(self) -> None:
        """Count one frame handled; every ``frames_per_step`` frames, let other tasks run."""
        self._frames += 1
        if self._frames >= self.limits.frames_per_step:
            self._frames = 0
            await trio.lowlevel.checkpoint()

    def release(self) -> None:
        """Give what this connection holds back to the budget (call once, when it closes)."""
        if self.budget is not None:
            self.budget.give_back(self._held)
        self._held = 0
