"""The match log writer: one hash-chained JSON Lines file per match, written as it happens.

One owner (a server's match actor, a simulator's driver) writes each input, output and optimum
as one line, flushed per line (or per input, on the server), so a process killed mid-match
leaves every line up to the kill on disk. The shell passes in the stream (it opens and closes
the file), the clock (for ``t``) and the software version (in the header); nothing here reads
them itself. Records and hashing: :mod:`replay.records`.
"""

from __future__ import annotations

import binascii
import hashlib
import io
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO, Final, Literal, TextIO, cast

from dungeon.engine import Input, Output, Request
from protocol.messages import Dungeon
from replay.records import (
    _MESSAGE_CLASSES,
    _T_SCALE,
    CLOSE,
    GENESIS,
    HEADER,
    INPUT,
    MAPS,
    OPTIMUM,
    RESERVED_KEYS,
    SCHEMA_VERSION,
    SEND,
    SOURCES,
    LogWriteError,
    _encoded_traps,
    _event_encoder,
    _event_fields,
    _line_encoder,
    _message_data,
    input_record,
    to_plain,
)

__all__ = ["MatchLogWriter"]


class MatchLogWriter:
    """Writes one match's log to ``stream``; the caller owns (opens and closes) the stream.

    Call ``header`` first, then ``input`` before applying each input to the engine, ``output``
    with what the engine returned, ``optimum`` whenever a trap optimum check finishes, and
    ``close`` last. Not thread-safe: one owner (the match's actor or driver) writes.

    Each line is flushed as it is written, unless ``flush_each_line`` is false: then lines
    reach the stream's buffer and the owner calls :meth:`flush` when they must be out (the
    server does before it sends any message of the input; ``close`` always flushes).

    ``stream`` is a binary stream (the server's: lines go out as the bytes they are built as)
    or a text stream (each line decoded first).

    ``maps="once"`` writes a compact log: the dungeon map goes into the first ``dungeon``
    message's ``send`` line only, and each of the other eleven names that line (``"map": seq``)
    instead of repeating the ~90 KB map, about half of a match's log. Readers expand them back
    (:func:`replay.reader.parse_log`), so every tool sees the same lines as in a full log.
    """

    def __init__(
        self,
        stream: TextIO | BinaryIO,
        *,
        clock: Callable[[], float],
        flush_each_line: bool = True,
        maps: Literal["each", "once"] = "each",
    ) -> None:
        if maps not in ("each", "once"):
            raise LogWriteError(f"maps must be 'each' or 'once', not {maps!r}")
        self._maps_once = maps == "once"
        #: The seq of the line holding the map, once written (maps="once").
        self._map_line: int | None = None
        self._stream = stream
        # Lines are built as bytes (msgspec's output, hashed as it is): a binary stream takes
        # them as they are, a text stream decoded.
        self._put = _line_sink(stream)
        # False: the owner calls flush() at the moments it promises (the server: once per input,
        # before any of its messages is sent), one write for the lines of an input, not five.
        self._flush_each_line = flush_each_line
        self._clock = clock
        self._start: float | None = None
        self._seq = 0
        #: The last line's hash (hex digits, ASCII bytes): the next line's hash starts with it.
        self._previous = GENESIS.encode("ascii")
        self._closed = False

    @property
    def lines_written(self) -> int:
        return self._seq

    @property
    def last_hash(self) -> str:
        """The chain's head: publishing it elsewhere pins the whole log (see log-format.md)."""
        return self._previous.decode("ascii")

    def header(
        self,
        *,
        seed: int,
        config: dict[str, Any],
        version: str,
        match: str | None,
        source: str,
        **extra: Any,
    ) -> None:
        """The first line: what a replay needs to re-run the match. ``extra`` fields (plain
        data, e.g. a fork's origin) are written after the standard ones; readers ignore them."""
        if self._start is not None:
            raise LogWriteError("the header is written once, first")
        if source not in SOURCES:
            raise LogWriteError(f"source must be one of {sorted(SOURCES)}, not {source!r}")
        clash = (RESERVED_KEYS | {"event", "schema", MAPS}) & extra.keys()
        if clash:
            raise LogWriteError(f"header fields {sorted(clash)} are reserved")
        if self._maps_once:
            extra = {MAPS: "once", **extra}
        self._write(
            HEADER,
            schema=SCHEMA_VERSION,
            seed=int(seed),
            config=to_plain(config),
            version=version,
            match=match,
            source=source,
            **to_plain(extra),
        )

    def input(self, event: Input, *, cpu: float | None = None) -> None:
        """An engine input (``Request``, ``Disconnect`` or ``TimeUp``), before it is applied;
        ``cpu``: the CPU seconds the request cost its team (fair time, docs/fair-time.md)."""
        if type(event) is Request and cpu is None:
            agent = event.agent
            message = event.message
            if type(message) in _MESSAGE_CLASSES:
                # A request's line formatted straight to bytes, the message encoded as it is
                # (the bytes input_record's dict gives): the server's hot path, once a request.
                head = self._head(_INPUT_JSON, _encode_line(self._now(INPUT)))
                self._seal_body(
                    b'%b,"kind":"request","team":%d,"agent":%d,"message":%b}'
                    % (head, agent.team, agent.agent, _encode_line(message))
                )
                return
        fields = input_record(event, plain=False)
        line = self._line(INPUT)
        line.update(fields)
        if cpu is not None:
            line["cpu"] = round(cpu, 6)
        self._seal(line)

    def output(self, output: Output, *, encoded: Sequence[bytes] | None = None) -> None:
        """What applying one input produced: its engine events, then every message sent.

        ``encoded`` holds, for each of ``output.messages``, the JSON the caller already encoded
        that message to (``protocol.encoding.encode``, its newline allowed): written as is, not
        encoded again. It must be the very bytes msgspec gives for the message.

        The lines :func:`output_records` describes, built here straight into each line's dict
        (the server's hot path: about four lines a request). They share one ``t``, read once:
        they are written within microseconds of each other.
        """
        now = self._now("output")
        now_json = _encode_line(now)
        for fact in output.events:
            name, fields = _event_fields(fact)
            # The fields encoded apart, keys sorted, and joined to the line's head: the bytes
            # _event_record's dict gives, without msgspec.to_builtins copying the fact first (a
            # trap problem's clauses are the bulk of a log).
            clauses = _encoded_traps(fields, output.messages, encoded)
            if clauses is not None:
                # A trap problem's clauses are the very tuple its `sat` carries, whose line is
                # encoded: reused, not encoded again. "traps" sorts last.
                del fields["traps"]
                rest = _event_encoder.encode(fields)[1:-1] if fields else b""
                tail = b'%b%b,"traps":%b}' % (b"," if rest else b"", rest, clauses)
            else:
                tail = b"," + _event_encoder.encode(fields)[1:] if fields else b"}"
            self._seal_body(self._head(_encode_line(name), now_json) + tail)
        for index, sent in enumerate(output.messages):
            if self._maps_once and type(sent.message) is Dungeon:
                if self._map_line is not None:
                    to = sent.to
                    self._seal_body(
                        b'%b,"to":[%d,%d],"message":{"type":"dungeon","team":%d,"agent":%d},'
                        b'"map":%d}'
                        % (
                            self._head(_SEND_JSON, now_json),
                            to.team,
                            to.agent,
                            sent.message.team,
                            sent.message.agent,
                            self._map_line,
                        )
                    )
                    continue
                self._map_line = self._seq + 1
            raw = None if encoded is None else encoded[index]
            if raw is not None:
                # Formatted straight to bytes around the message's own JSON: the line the dict
                # below gives, without building it (about three such lines a request).
                to = sent.to
                message = raw[:-1] if raw[-1:] == b"\n" else raw
                self._seal_body(
                    b'%b,"to":[%d,%d],"message":%b}'
                    % (self._head(_SEND_JSON, now_json), to.team, to.agent, message)
                )
                continue
            line = self._line(SEND, now)
            line["to"] = [sent.to.team, sent.to.agent]
            line["message"] = _message_data(sent.message, False)
            self._seal(line)

    def optimum(self, crossing: int, value: int | None) -> None:
        """The least number of active traps for ``crossing``'s problem; None when unknown."""
        self._write(OPTIMUM, crossing=int(crossing), value=None if value is None else int(value))

    def close(self, *, reason: str, **extra: Any) -> None:
        """The last line: a log without it is incomplete. ``extra``: plain fields after the
        reason (a match's CPU per team, ``cpu``)."""
        self._write(CLOSE, reason=reason, **extra)
        self._closed = True
        if not self._flush_each_line:
            self._stream.flush()

    def flush(self) -> None:
        """Hand every line written so far to the operating system (``flush_each_line=False``)."""
        self._stream.flush()

    def _write(self, event: str, **fields: Any) -> None:
        line = self._line(event)
        line.update(fields)
        self._seal(line)

    def _line(self, event: str, t: float | None = None) -> dict[str, Any]:
        """The next line's dict so far: ``seq``, ``t`` (now, unless given) and ``event``; its
        fields follow."""
        self._require_writable(event)
        if t is None:
            now = self._clock()
            if self._start is None:
                self._start = now
            t = self._elapsed(now)
        self._seq += 1
        return {"seq": self._seq, "t": t, "event": event}

    def _elapsed(self, now: float) -> float:
        """Seconds from the header to ``now``, to the microsecond: whole microseconds over a
        million, the float round(seconds, 6) gives (none of a million random times differed),
        in a third of its time (round with digits goes through decimal strings, on every line
        of the server's path)."""
        assert self._start is not None
        return round((now - self._start) * _T_SCALE) / _T_SCALE

    def _require_writable(self, event: str) -> None:
        """Raise LogWriteError if a line ``event`` cannot be written now: before the header
        (unless it is the header) or after the close."""
        if self._start is None and event != HEADER:
            raise LogWriteError(f"write the header before {event!r}")
        if self._closed:
            raise LogWriteError(f"the log is closed; cannot write {event!r}")

    def _now(self, what: str) -> float:
        """``t`` for ``what`` lines written now (never the header: it is written through
        :meth:`_line`, which starts the clock)."""
        self._require_writable(what)
        return self._elapsed(self._clock())

    def _head(self, event_json: bytes, t_json: bytes) -> bytes:
        """The next line's JSON up to its fields, without the closing brace: what :meth:`_line`'s
        dict encodes to, for ``event_json`` (the event's name, encoded) at ``t_json``."""
        self._seq += 1
        return b'{"seq":%d,"t":%b,"event":%b' % (self._seq, t_json, event_json)

    def _seal(self, line: dict[str, Any]) -> None:
        """Write ``line`` (built by :meth:`_line`) as the next sealed line."""
        self._seal_body(_line_encoder.encode(line))

    def _seal_body(self, body: bytes) -> None:
        """Write ``body`` (a line's JSON object without its hash) as the next sealed line.

        The hot path of a server (several lines per request): one msgspec encode per line and
        the hash over those very bytes, the same line :func:`seal` makes of :func:`_serialize`'s
        body (structlog's JSONRenderer was a detour of three copies per line).
        """
        digest = _hexlify(_sha256(self._previous + body).digest())
        self._previous = digest
        self._put(b'%b,"hash":"%b"}\n' % (body[:-1], digest))
        if self._flush_each_line:
            self._stream.flush()


def _line_sink(stream: TextIO | BinaryIO) -> Callable[[bytes], object]:
    """What writes a line, given as UTF-8 bytes, to ``stream``."""
    if isinstance(stream, io.TextIOBase):
        write = stream.write
        return lambda data: write(data.decode("utf-8"))
    return cast(BinaryIO, stream).write


_sha256: Final = hashlib.sha256
_encode_line: Final = _line_encoder.encode
_INPUT_JSON: Final = _encode_line(INPUT)
_SEND_JSON: Final = _encode_line(SEND)
_hexlify: Final = binascii.hexlify
