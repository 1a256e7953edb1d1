"""Match logs: one hash-chained JSON Lines file per match, written as it happens.

A log answers "what happened in match 17?" and "is this log real?". The writer renders each event
as one compact JSON object (msgspec, keys in insertion order), one event a line, flushed
per line, so a server killed mid-match leaves every line up to the kill on disk. Each line carries
``seq`` (its 1-based line number), ``t`` (monotonic seconds since the header) and ``hash``: the
sha256 of the previous line's hash followed by this line's canonical JSON (sorted keys, compact
separators, without ``hash``). A changed, removed or reordered line breaks the chain at that
line; a log without its ``close`` line is incomplete. See ``docs/log-format.md``.

This module is pure apart from writing to the stream it is given. It cannot import the engine
(``protocol`` sits below ``dungeon``), so it reads engine inputs and outputs by their shape.
"""

from __future__ import annotations

import binascii
import hashlib
import importlib.metadata
import io
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Final, Protocol, TextIO, cast

import msgspec

from protocol.codec import sat_traps_span

__all__ = [
    "CLOSE",
    "HEADER",
    "INPUT",
    "OPTIMUM",
    "RESERVED_EVENTS",
    "RESERVED_KEYS",
    "SCHEMA_VERSION",
    "SEND",
    "BadLine",
    "LogFormatError",
    "LogLine",
    "LogWriteError",
    "MatchLog",
    "MatchLogWriter",
    "UnsupportedSchemaError",
    "chain_hash",
    "input_record",
    "output_records",
    "parse_log",
    "read_log",
    "seal",
    "software_version",
    "to_plain",
    "unseal",
]

#: Bumped whenever a line's meaning changes; readers and the viewer refuse other versions.
SCHEMA_VERSION: Final = 1

HEADER: Final = "header"
INPUT: Final = "input"
SEND: Final = "send"
OPTIMUM: Final = "optimum"
CLOSE: Final = "close"
#: The log's own event kinds: every other ``event`` value is an engine event, written as is.
RESERVED_EVENTS: Final = frozenset({HEADER, INPUT, SEND, OPTIMUM, CLOSE})
#: Keys the writer adds to every line; an engine event may not use them.
RESERVED_KEYS: Final = frozenset({"seq", "t", "hash"})
#: The ``prev`` of the first line's hash.
GENESIS: Final = ""
#: How the hash ends every line: the JSON object's last member.
_HASH_OPEN: Final = ',"hash":"'
_HASH_TAIL: Final = re.compile(r',"hash":"([0-9a-f]{64})"\}$')
SOURCES: Final = frozenset({"server", "sim"})

#: Seconds are rounded to the microsecond: finer is noise, and shorter lines are cheaper.
_T_DIGITS: Final = 6
_T_SCALE: Final = 10.0**_T_DIGITS


class LogWriteError(Exception):
    """Our own misuse of the writer (an event out of order, or one it cannot represent)."""


class LogFormatError(Exception):
    """A file that is not a match log at all (empty, or its first line is not a header)."""


class UnsupportedSchemaError(LogFormatError):
    """A match log written with another schema version than this software reads."""

    def __init__(self, path: str, found: object) -> None:
        super().__init__(
            f"{path}: log schema version {found!r}, but this software reads version "
            f"{SCHEMA_VERSION} only; replay it with the dungeon-arena release that wrote it"
        )
        self.found = found


# --- What the writer reads from the engine, by shape (protocol cannot import dungeon). ---


class _AgentLike(Protocol):
    @property
    def team(self) -> int: ...
    @property
    def agent(self) -> int: ...


class _OutboundLike(Protocol):
    @property
    def to(self) -> _AgentLike: ...
    @property
    def message(self) -> Any: ...


class _OutputLike(Protocol):
    @property
    def messages(self) -> list[Any]: ...
    @property
    def events(self) -> list[dict[str, Any]]: ...


def software_version() -> str:
    """The installed dungeon-arena version, for the header's ``version``."""
    try:
        return importlib.metadata.version("dungeon-arena")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _plain_hook(value: Any) -> Any:
    """numpy scalars and arrays as numbers and lists; anything else is refused by name."""
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "shape", None) == ():
        return item()
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        return tolist()
    raise TypeError(f"cannot write a {type(value).__name__} to a match log: {value!r}")


_plain_encoder = msgspec.json.Encoder(enc_hook=_plain_hook, order="deterministic")
_plain_decoder = msgspec.json.Decoder()
_line_encoder = msgspec.json.Encoder(enc_hook=_plain_hook)
#: An engine event's fields: keys (and sets) sorted, as :func:`_builtins` orders them.
_event_encoder = msgspec.json.Encoder(enc_hook=_plain_hook, order="deterministic")


def _serialize(event: Any, **_: Any) -> str:
    """JSONRenderer's serializer: compact JSON, keys in the order given, UTF-8 as is."""
    return _line_encoder.encode(event).decode("utf-8")


def to_plain(value: Any) -> Any:
    """``value`` as plain JSON data, exactly as a reader parses it back: tuples become lists,
    sets sorted lists, dict keys strings (sorted), structs dicts, numpy scalars numbers.

    Raises TypeError naming the type of anything else, rather than logging its ``repr``.
    """
    # One round trip through msgspec's JSON (C code, floats exact): the cheap way to get the very
    # values ``json.loads`` gives a reader, so ``replay verify`` compares like with like.
    return _plain_decoder.decode(_plain_encoder.encode(value))


def _builtins(value: Any) -> Any:
    """Like :func:`to_plain`, but cheaper: tuples stay tuples (JSON writes them as lists)."""
    return msgspec.to_builtins(value, enc_hook=_plain_hook, order="deterministic", str_keys=True)


def chain_hash(previous: str, body: str) -> str:
    """The hash of a line whose JSON without its hash is ``body``: sha256 of the previous
    line's hash followed by ``body`` (hex digits; UTF-8 bytes)."""
    return hashlib.sha256((previous + body).encode("utf-8")).hexdigest()


def seal(previous: str, body: str) -> tuple[str, str]:
    """The line (without newline) and the hash for ``body``, a JSON object rendered without its
    hash: the hash goes in as the object's last member, ``,"hash":"<64 hex>"}``."""
    if not body.endswith("}") or body.rstrip() == "{}":
        raise LogWriteError(f"not a rendered JSON object with members: {body[:80]!r}")
    digest = chain_hash(previous, body)
    return f'{body[:-1]}{_HASH_OPEN}{digest}"}}', digest


def unseal(text: str) -> tuple[str, str] | None:
    """The body and the hash of a sealed line, or None when it does not end with its hash."""
    found = _HASH_TAIL.search(text)
    if found is None:
        return None
    return text[: found.start()] + "}", found.group(1)


def _message_data(message: Any, plain: bool) -> Any:
    """A message as the log writes it: plain data, or (``plain`` false) a tagged struct as is,
    since msgspec encodes a struct exactly as the plain data it converts to (same bytes)."""
    if not plain and _is_tagged_struct(type(message)):
        return message
    data = to_plain(message) if plain else _builtins(message)
    if not isinstance(data, dict) or "type" not in data:
        raise LogWriteError(f"a message must be a tagged struct with a 'type', not {message!r}")
    return data


_tagged_structs: dict[type, bool] = {}


def _is_tagged_struct(cls: type) -> bool:
    """True for a msgspec Struct class tagged by a ``"type"`` field (every wire message)."""
    known = _tagged_structs.get(cls)
    if known is None:
        config = getattr(cls, "__struct_config__", None)
        known = _tagged_structs[cls] = (
            issubclass(cls, msgspec.Struct)
            and config is not None
            and config.tag_field == "type"
            and isinstance(config.tag, str)
        )
    return known


def _event_name(fact: dict[str, Any]) -> str:
    """An engine event's name, checked: its own (not a log line's kind), and no field of the
    event takes a key the log line itself uses."""
    name = fact.get("event")
    if not isinstance(name, str) or name in RESERVED_EVENTS:
        raise LogWriteError(f"an engine event needs its own 'event' name: {fact!r}")
    if not RESERVED_KEYS.isdisjoint(fact):
        clash = sorted(RESERVED_KEYS & fact.keys())
        raise LogWriteError(f"engine event {name!r} uses reserved keys {clash}")
    return name


def _event_record(fact: dict[str, Any], plain: bool) -> dict[str, Any]:
    """An engine event as its log line's fields: ``event`` first, then the others by name."""
    name = _event_name(fact)
    data = to_plain(fact) if plain else _builtins(fact)
    del data["event"]
    return {"event": name, **data}


def input_record(event: object, *, plain: bool = True) -> dict[str, Any]:
    """The fields of the ``input`` line for an engine input (``Request``, ``Disconnect``,
    ``TimeUp``), without ``event``. ``plain``: exactly the values a reader parses back (lists,
    not tuples), for comparisons; the writer skips that (its JSON renders tuples as lists)."""
    kind = type(event).__name__
    if kind == "Request":
        agent: _AgentLike = event.agent  # type: ignore[attr-defined]
        message = _message_data(event.message, plain)  # type: ignore[attr-defined]
        return {"kind": "request", "team": agent.team, "agent": agent.agent, "message": message}
    if kind == "Disconnect":
        agent = event.agent  # type: ignore[attr-defined]
        return {"kind": "disconnect", "team": agent.team, "agent": agent.agent}
    if kind == "TimeUp":
        return {"kind": "time_up"}
    raise LogWriteError(f"not an engine input: {event!r}")


def output_records(output: _OutputLike, *, plain: bool = True) -> list[dict[str, Any]]:
    """The lines (``event`` and fields) that an engine ``Output`` is logged as: its engine
    events, then one ``send`` per message. ``replay verify`` compares these; ``plain`` as in
    :func:`input_record`. :meth:`MatchLogWriter.output` writes the same lines."""
    records = [_event_record(fact, plain) for fact in output.events]
    for outbound in output.messages:
        sent: _OutboundLike = outbound
        message = _message_data(sent.message, plain)
        records.append({"event": SEND, "to": [sent.to.team, sent.to.agent], "message": message})
    return records


def _encoded_traps(
    fields: dict[str, Any], messages: list[Any], encoded: Mapping[int, bytes] | None
) -> bytes | None:
    """The JSON of ``fields["traps"]`` cut from an encoded message that carries that very object
    (a trap problem's `sat`), when "traps" is the last of ``fields`` in sorted order; else None."""
    traps = fields.get("traps")
    if traps is None or encoded is None or max(fields) != "traps":
        return None
    for index, outbound in enumerate(messages):
        if getattr(outbound.message, "traps", None) is traps and index in encoded:
            line = encoded[index]
            span = sat_traps_span(line)
            return None if span is None else line[span[0] : span[1]]
    return None


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
    """

    def __init__(
        self,
        stream: TextIO | BinaryIO,
        clock: Callable[[], float] = time.monotonic,
        *,
        flush_each_line: bool = True,
    ) -> None:
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
        clash = (RESERVED_KEYS | {"event", "schema"}) & extra.keys()
        if clash:
            raise LogWriteError(f"header fields {sorted(clash)} are reserved")
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

    def input(self, event: object) -> None:
        """An engine input (``Request``, ``Disconnect`` or ``TimeUp``), before it is applied."""
        if type(event).__name__ == "Request":
            agent: _AgentLike = event.agent  # type: ignore[attr-defined]
            message = event.message  # type: ignore[attr-defined]
            if _is_tagged_struct(type(message)):
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
        self._seal(line)

    def output(self, output: _OutputLike, *, encoded: Mapping[int, bytes] | None = None) -> None:
        """What applying one input produced: its engine events, then every message sent.

        ``encoded`` maps positions in ``output.messages`` to the JSON the caller already encoded
        that message to (``protocol.codec.encode``, its newline allowed): written as is, not
        encoded again. It must be the very bytes msgspec gives for the message.

        The lines :func:`output_records` describes, built here straight into each line's dict
        (the server's hot path: about four lines a request). They share one ``t``, read once:
        they are written within microseconds of each other.
        """
        now = self._now("output")
        now_json = _encode_line(now)
        for fact in output.events:
            name = _event_name(fact)
            fields = dict(fact)
            del fields["event"]
            # The fields encoded apart, keys sorted, and joined to the line's head: the bytes
            # _event_record's dict gives, without msgspec.to_builtins copying the fact first (a
            # trap problem's clauses: about a tenth of the log's instructions).
            clauses = _encoded_traps(fields, output.messages, encoded)
            if clauses is not None:
                # A trap problem's clauses are the very tuple its `sat` carries, whose line is
                # encoded: reused, not encoded again (~13 us a problem). "traps" sorts last.
                del fields["traps"]
                rest = _event_encoder.encode(fields)[1:-1] if fields else b""
                tail = b'%b%b,"traps":%b}' % (b"," if rest else b"", rest, clauses)
            else:
                tail = b"," + _event_encoder.encode(fields)[1:] if fields else b"}"
            self._seal_body(self._head(_encode_line(name), now_json) + tail)
        for index, outbound in enumerate(output.messages):
            sent: _OutboundLike = outbound
            raw = None if encoded is None else encoded.get(index)
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

    def close(self, *, reason: str) -> None:
        """The last line: a log without it is incomplete."""
        self._write(CLOSE, reason=reason)
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
        in a third of its time (round with digits goes through decimal strings: 0.6 us a line,
        ~10% of the writer's time on the server's path)."""
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


# --- Reading ---


@dataclass(frozen=True, slots=True)
class LogLine:
    """One verified line of a log: ``data`` is the whole event without its hash."""

    line: int
    event: str
    data: dict[str, Any]

    @property
    def seq(self) -> int:
        seq: int = self.data["seq"]
        return seq

    @property
    def t(self) -> float:
        t: float = self.data["t"]
        return t


@dataclass(frozen=True, slots=True)
class BadLine:
    """The first line that breaks the log: its 1-based number and why."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


@dataclass(slots=True)
class MatchLog:
    """A log as read: every line up to the first bad one, split by kind."""

    path: str
    header: dict[str, Any]
    #: every good line, header and close included, in order
    events: list[LogLine] = field(default_factory=list)
    #: the ``input`` lines, in the order they were applied
    inputs: list[LogLine] = field(default_factory=list)
    #: what the engine produced: engine events and ``send`` lines, in order
    outputs: list[LogLine] = field(default_factory=list)
    #: the ``optimum`` lines
    optima: list[LogLine] = field(default_factory=list)
    close: LogLine | None = None
    #: the first line that is changed, removed, reordered or not JSON; None if the chain holds
    bad: BadLine | None = None
    #: the last line was cut short mid-write (no newline, not JSON): a crash, not tampering
    cut_short: bool = False

    @property
    def complete(self) -> bool:
        """True when the chain holds to the ``close`` line."""
        return self.close is not None and self.bad is None

    @property
    def seed(self) -> int:
        seed: int = self.header["seed"]
        return seed

    @property
    def config(self) -> dict[str, Any]:
        config: dict[str, Any] = self.header["config"]
        return config


def _parse_line(text: str) -> dict[str, Any] | None:
    try:
        data = _plain_decoder.decode(text)
    except msgspec.DecodeError:
        return None
    return data if isinstance(data, dict) else None


def parse_log(text_lines: Iterable[str], path: str = "<log>") -> MatchLog:
    """Check the chain of ``text_lines`` (each with or without its newline) and split them."""
    lines = list(text_lines)
    if not lines or not lines[0].strip():
        raise LogFormatError(f"{path}: empty file, not a match log")
    first = _parse_line(lines[0])
    if first is None or first.get("event") != HEADER:
        raise LogFormatError(f"{path}: line 1 is not a match log header")
    if first.get("schema") != SCHEMA_VERSION:
        raise UnsupportedSchemaError(path, first.get("schema"))
    header = {key: value for key, value in first.items() if key != "hash"}
    log = MatchLog(path=path, header=header)
    previous = GENESIS
    for number, raw in enumerate(lines, start=1):
        text = raw.rstrip("\n")
        last = number == len(lines)
        if log.close is not None:
            log.bad = BadLine(number, "a line after the close line (appended)")
            break
        data = _parse_line(text)
        if data is None:
            if last and not raw.endswith("\n"):
                log.cut_short = True  # the writer died mid-line: the log is merely incomplete
            else:
                log.bad = BadLine(number, "not a JSON object (changed or corrupted)")
            break
        sealed = unseal(text)
        if sealed is None or data.get("hash") != sealed[1]:
            log.bad = BadLine(number, "the line does not end with its hash (changed)")
            break
        sealed_body, found = sealed
        if found != chain_hash(previous, sealed_body):
            log.bad = BadLine(
                number, "hash does not chain to the line before: changed, removed or reordered"
            )
            break
        if data.get("seq") != number:
            log.bad = BadLine(number, f"seq is {data.get('seq')!r} on line {number}")
            break
        event = data.get("event")
        if not isinstance(event, str) or not isinstance(data.get("t"), int | float):
            log.bad = BadLine(number, "missing 'event' or 't'")
            break
        if event == HEADER and number != 1:
            log.bad = BadLine(number, "a second header")
            break
        previous = found
        body = {key: value for key, value in data.items() if key != "hash"}
        entry = LogLine(line=number, event=event, data=body)
        log.events.append(entry)
        if event == INPUT:
            log.inputs.append(entry)
        elif event == OPTIMUM:
            log.optima.append(entry)
        elif event == CLOSE:
            log.close = entry
        elif event != HEADER:
            log.outputs.append(entry)
    return log


def read_log(path: str | Path) -> MatchLog:
    """Read and check the log at ``path``. Raises OSError, LogFormatError; a bad line is reported
    in ``MatchLog.bad`` (with everything before it kept), an unfinished log by ``complete``."""
    with open(path, encoding="utf-8", newline="\n") as stream:
        return parse_log(stream, str(path))
