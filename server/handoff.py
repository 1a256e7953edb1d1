"""The control channel between ``arena serve --processes N``'s front process and its workers.

One Unix stream socket pair per worker. Each frame is a 4-byte big-endian length and a msgpack
body (a tagged struct below); a frame that hands a match over carries the match's socket
descriptors with its first byte (``SCM_RIGHTS``), so they arrive with the frame they belong to.

front -> worker: :class:`Match` (a full match: its seed, and per seat the socket's state as
:class:`server.detach.Detached` describes it), :class:`Stop` (end every match as a draw and
exit; so does the end of the stream), :class:`Probe` (a benchmark's question). worker ->
front: :class:`Ready`, then :class:`Over` for each match it has finished (its log closed), and
:class:`Latencies` answering each :class:`Probe`.
"""

from __future__ import annotations

import array
import socket
from typing import Any, Literal

import msgspec
import trio

from server.net import Limits

__all__ = [
    "MAX_FRAME",
    "Latencies",
    "Match",
    "Over",
    "Probe",
    "Ready",
    "Seat",
    "Settings",
    "Stop",
    "receive_frame",
    "send_frame",
]

#: The largest frame: twelve unfinished lines of at most the line limit (1 MiB) and change.
MAX_FRAME = 64 << 20
#: Descriptors one frame may carry (a match's twelve sockets).
MAX_FDS = 12


class Settings(msgspec.Struct, frozen=True, tag="settings"):
    """What a worker process is started with (on its command line): the front's options."""

    config: dict[str, Any]
    limits: Limits
    log_dir: str | None
    check_workers: int
    #: Compact match logs (``Server(log_maps=...)``).
    log_maps: Literal["each", "once", "digest"] = "digest"
    #: The log key's bytes in hex (any bytes a key file holds), None: unsigned.
    log_key: str | None = None
    #: A digest log's size budget in bytes (None: the writer's default).
    log_budget: int | None = None
    #: Record each request-to-answer time (``Server(latency=...)``) for :class:`Probe`.
    probe: bool = False


class Seat(msgspec.Struct, frozen=True):
    """One socket of a handed-off match; ``fd``: its index among the frame's descriptors, -1
    when it closed before it could be handed off (the match plays on without it)."""

    team: int
    agent: int
    number: int
    fd: int
    leftover: bytes = b""
    errors: int = 0
    held: int = 0
    early_lines: int = 0


class Match(msgspec.Struct, frozen=True, tag="match"):
    """A full match to play: the front's match number and name, and the seed it drew."""

    number: int
    name: str | None
    seed: int
    seats: list[Seat]


class Stop(msgspec.Struct, frozen=True, tag="stop"):
    """End every match as a draw (reason ``shutdown``) and exit."""


class Ready(msgspec.Struct, frozen=True, tag="ready"):
    """The worker is up (sent once)."""

    pid: int


class Over(msgspec.Struct, frozen=True, tag="over"):
    """Match ``number`` is over and its log closed."""

    number: int
    reason: str | None
    winner: int | None
    log: str | None


class Probe(msgspec.Struct, frozen=True, tag="probe"):
    """Send the request-to-answer times recorded since the last probe (with ``Settings.probe``;
    ``reset``: only forget them)."""

    reset: bool = False


class Latencies(msgspec.Struct, frozen=True, tag="latencies"):
    """The answer to a :class:`Probe`: seconds from reading each request to its answer."""

    seconds: list[float]


Frame = Match | Stop | Probe | Ready | Over | Latencies
_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Frame)


def encode_frame(frame: Frame) -> bytes:
    body = _encoder.encode(frame)
    return len(body).to_bytes(4, "big") + body


async def send_frame(
    sock: trio.socket.SocketType, frame: Frame, fds: list[int] | None = None
) -> None:
    """Write ``frame``, with ``fds`` (still the caller's: it closes them after) on its first
    byte. OSError if the peer has gone."""
    data = memoryview(encode_frame(frame))
    if fds:
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds).tobytes())]
        data = data[await sock.sendmsg([data], rights) :]
    while data:
        data = data[await sock.send(data) :]


async def receive_frame(sock: trio.socket.SocketType) -> tuple[Frame, list[int]] | None:
    """The next frame and the descriptors that came with it (now the caller's); None once the
    peer has closed. ValueError for a frame that is not one of ours."""
    fds: list[int] = []
    try:
        frame = await _receive(sock, fds)
    except BaseException:
        for fd in fds:
            socket.close(fd)
        raise
    return None if frame is None else (frame, fds)


async def _receive(sock: trio.socket.SocketType, fds: list[int]) -> Frame | None:
    """The next frame; the descriptors that come with it are added to ``fds``."""
    head = b""
    while len(head) < 4:
        data, ancillary, flags, _ = await sock.recvmsg(
            4 - len(head), socket.CMSG_SPACE(MAX_FDS * array.array("i").itemsize)
        )
        fds += _descriptors(ancillary)
        if flags & socket.MSG_CTRUNC:
            raise ValueError("a frame carried more descriptors than a match has")
        if not data:
            if head:
                raise ValueError("the stream ended inside a frame")
            return None
        head += data
    size = int.from_bytes(head, "big")
    if size > MAX_FRAME:
        raise ValueError(f"a frame of {size} bytes")
    body = bytearray()
    while len(body) < size:
        data = await sock.recv(min(size - len(body), 1 << 20))
        if not data:
            raise ValueError("the stream ended inside a frame")
        body += data
    frame: Frame = _decoder.decode(body)
    return frame


def _descriptors(ancillary: list[tuple[int, int, bytes]]) -> list[int]:
    fds: list[int] = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(data) - len(data) % array.array("i").itemsize
            fds += array.array("i", data[:usable]).tolist()
    return fds
