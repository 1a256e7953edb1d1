"""Digest logs (schema 2): what cannot be recomputed, digests of what can, compressed as written.

A schema-1 log writes every engine event and every message a match produced (4.6 KB a crossing
compact, 9.8 KB full). The engine is deterministic: its seed, configuration and inputs give the
rest. A digest log writes the header, each input (with its arrival time) and the facts the engine
cannot derive (optimum checks, why the log ends), and for each input a digest of the output the
engine produced; ``arena replay`` re-runs the engine to regenerate every message and checks each
digest. Lines go through one gzip stream (stdlib ``zlib``) with a sync flush whenever the owner
flushes, so a file cut by a kill holds every flushed line. Format: ``docs/log-format.md``.

:func:`read_digest_log` gives the very :class:`~replay.reader.MatchLog` a schema-1 log of the same
match reads as (outputs regenerated), so ``show``, ``render``, ``fork`` and the viewer need no
second path.
"""

from __future__ import annotations

import hashlib
import hmac
import zlib
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO, Final

import msgspec

from dungeon.engine import Input, Output, Request
from replay.keyfile import key_id
from replay.reader import BadLine, LogLine, MatchLog
from replay.records import (
    _MESSAGE_CLASSES,
    _T_SCALE,
    CLOSE,
    HEADER,
    INPUT,
    OPTIMUM,
    SOURCES,
    LogFormatError,
    LogWriteError,
    _event_encoder,
    _event_fields,
    _line_encoder,
    _plain_decoder,
    input_record,
    output_records,
    to_plain,
)

__all__ = [
    "BEGIN",
    "DEFAULT_BUDGET",
    "DIGEST_SCHEMA",
    "GZIP_MAGIC",
    "DigestLogWriter",
    "DigestTail",
    "key_id",
    "output_digest",
    "parse_digest_log",
]

DIGEST_SCHEMA: Final = 2
GZIP_MAGIC: Final = b"\x1f\x8b"
#: The line holding the digest of ``Match.begin()``'s output (the maps, the first sightings).
BEGIN: Final = "begin"
#: Hex digits kept of the chain's sha256 and of an output's digest (64 bits each: they catch
#: accidents and edits; a forger can recompute them, which is what the signature is for).
CHAIN_HEX: Final = 16
DIGEST_HEX: Final = 16
#: A signed log carries ``sig`` (HMAC-SHA256 of the chain so far, 32 hex digits) every this many
#: lines and on its close line.
SIGN_EVERY: Final = 64
SIG_HEX: Final = 32
#: A match log's size budget in bytes (docs/log-format.md, "Budgets"): a digest log takes about
#: 110 bytes a crossing, so only a runaway match (bots flooding moves for ten minutes) reaches it.
DEFAULT_BUDGET: Final = 32 * 1024 * 1024
_TAIL_LEN: Final = len(',"h":"') + CHAIN_HEX + len('"}')
#: Where a line's hash starts, from its end.
_HASH_AT: Final = -CHAIN_HEX - 2


def _chain(previous: bytes, body: bytes) -> bytes:
    return hashlib.sha256(previous + body).hexdigest()[:CHAIN_HEX].encode("ascii")


def _signature(key: bytes, chain: bytes) -> str:
    return hmac.new(key, chain, hashlib.sha256).hexdigest()[:SIG_HEX]


def output_digest(output: Output, encoded: Sequence[bytes] | None = None) -> str:
    """The digest of one engine output: its events (name, fields with sorted keys) and every
    message with its addressee, as encoded on the wire. ``encoded``: the messages' wire bytes
    when the caller has them (the same bytes msgspec gives; a newline is ignored)."""
    digest = hashlib.sha256()
    for fact in output.events:
        name, fields = _event_fields(fact)
        digest.update(b"%b %b\n" % (name.encode("utf-8"), _event_encoder.encode(fields)))
    for index, sent in enumerate(output.messages):
        if type(sent.message) not in _MESSAGE_CLASSES:
            raise LogWriteError(f"not a wire message: {sent.message!r}")
        raw = _line_encoder.encode(sent.message) if encoded is None else encoded[index]
        if raw[-1:] == b"\n":
            raw = raw[:-1]
        digest.update(b"%d %d %b\n" % (sent.to.team, sent.to.agent, raw))
    return digest.hexdigest()[:DIGEST_HEX]


class DigestLogWriter:
    """Writes one match's digest log to the binary ``stream`` (the caller opens and closes it).

    The same calls as :class:`replay.writer.MatchLogWriter`: ``header`` first, ``input`` before
    applying each input, ``output`` with what the engine returned, ``optimum`` whenever a check
    finishes, ``close`` last. An input's line is written with its output's digest, at
    ``output``. ``key``: sign the chain (HMAC-SHA256) with this secret.
    """

    def __init__(
        self,
        stream: BinaryIO,
        *,
        clock: Callable[[], float],
        flush_each_line: bool = True,
        key: bytes | None = None,
        budget: int | None = DEFAULT_BUDGET,
    ) -> None:
        self._stream = stream
        #: Bytes the log may take; past them it records only the result (None: no limit).
        self.budget = budget
        #: True once the log reached its budget: inputs, outputs and optima are no longer written.
        self.over_budget = False
        #: Inputs left out since the budget was reached.
        self.dropped = 0
        self._result: dict[str, Any] | None = None
        self._clock = clock
        self._flush_each_line = flush_each_line
        self._key = key
        self._zip = zlib.compressobj(6, zlib.DEFLATED, 31)
        self._start: float | None = None
        self._lines = 0
        self._previous = b""
        self._pending: bytes | None = None  # an input's line body, waiting for its output
        self._closed = False
        #: Bytes handed to the stream so far (compressed).
        self.bytes_written = 0

    @property
    def lines_written(self) -> int:
        return self._lines

    @property
    def last_hash(self) -> str:
        return self._previous.decode("ascii")

    def header(
        self,
        *,
        seed: int,
        config: dict[str, Any],
        version: str,
        match: str | None,
        source: str,
        game: str = "dungeon",
        players: Sequence[str] | None = None,
        **extra: Any,
    ) -> None:
        if self._start is not None:
            raise LogWriteError("the header is written once, first")
        if source not in SOURCES:
            raise LogWriteError(f"source must be one of {sorted(SOURCES)}, not {source!r}")
        self._start = self._clock()
        fields: dict[str, Any] = {
            "event": HEADER,
            "schema": DIGEST_SCHEMA,
            "game": game,
            "seed": int(seed),
            "config": to_plain(config),
            "version": version,
            "match": match,
            "source": source,
            "players": None if players is None else list(players),
            "t": 0.0,
        }
        if self._key is not None:
            fields["signed"] = f"hmac-sha256:{key_id(self._key)}"
        fields.update(to_plain(extra))
        self._seal(_line_encoder.encode(fields))

    def input(self, event: Input, *, cpu: float | None = None) -> None:
        """Held until :meth:`output` adds its digest (a server flushes after both anyway);
        ``cpu``: the CPU seconds the request cost its team (fair time, docs/fair-time.md)."""
        t = self._now(INPUT)
        if self.over_budget:
            self.dropped += 1
            return
        if self._pending is not None:
            self._seal(self._pending)
        if cpu is not None:
            record = {"t": t, "event": INPUT, **input_record(event), "cpu": round(cpu, 6)}
            self._pending = _line_encoder.encode(record)
            return
        if type(event) is Request and type(event.message) in _MESSAGE_CLASSES:
            agent = event.agent
            self._pending = b'{"t":%b,"event":"input","kind":"request","team":%d,"agent":%d,' \
                b'"message":%b}' % (
                    _line_encoder.encode(t), agent.team, agent.agent,
                    _line_encoder.encode(event.message),
                )  # fmt: skip
            return
        self._pending = _line_encoder.encode({"t": t, "event": INPUT, **input_record(event)})

    def output(self, output: Output, *, encoded: Sequence[bytes] | None = None) -> None:
        if self.over_budget:
            for fact in output.events:
                name, fields = _event_fields(fact)
                if name == "game_over":
                    self._result = to_plain(fields)
            return
        digest = output_digest(output, encoded).encode("ascii")
        if self._pending is None:
            t = _line_encoder.encode(self._now(BEGIN))
            self._seal(b'{"t":%b,"event":"begin","out":"%b"}' % (t, digest))
            return
        body, self._pending = self._pending, None
        self._seal(b'%b,"out":"%b"}' % (body[:-1], digest))
        if self.budget is not None and self.bytes_written >= self.budget:
            self.over_budget = True

    def optimum(self, crossing: int, value: int | None) -> None:
        if self.over_budget:
            return
        self._write(OPTIMUM, crossing=int(crossing), value=None if value is None else int(value))

    def close(self, *, reason: str, **extra: Any) -> None:
        """The last line; ``extra``: plain fields after the reason (a match's CPU per team)."""
        if self._pending is not None:
            self._seal(self._pending)
            self._pending = None
        if self.over_budget:
            budget = {"limit": self.budget, "dropped": self.dropped}
            self._write(CLOSE, reason=reason, budget=budget, result=self._result, **extra)
        else:
            self._write(CLOSE, reason=reason, **extra)
        self._closed = True
        self._out(self._zip.flush(zlib.Z_FINISH))
        self._stream.flush()

    def flush(self) -> None:
        """Every line written so far, through the compressor, to the operating system."""
        if self._pending is not None:
            return  # an input without its output yet: flushed with it
        self._out(self._zip.flush(zlib.Z_SYNC_FLUSH))
        self._stream.flush()

    def _now(self, what: str) -> float:
        if self._start is None:
            raise LogWriteError(f"write the header before {what!r}")
        if self._closed:
            raise LogWriteError(f"the log is closed; cannot write {what!r}")
        return round((self._clock() - self._start) * _T_SCALE) / _T_SCALE

    def _write(self, event: str, **fields: Any) -> None:
        self._seal(_line_encoder.encode({"t": self._now(event), "event": event, **fields}))

    def _seal(self, body: bytes) -> None:
        self._lines += 1
        if self._key is not None and (self._lines % SIGN_EVERY == 0 or b'"event":"close"' in body):
            signature = _signature(self._key, self._previous)
            body = b'%b,"sig":"%b"}' % (body[:-1], signature.encode("ascii"))
        chain = _chain(self._previous, body)
        self._previous = chain
        self._out(self._zip.compress(b'%b,"h":"%b"}\n' % (body[:-1], chain)))
        if self._flush_each_line and self._pending is None:
            self._out(self._zip.flush(zlib.Z_SYNC_FLUSH))
            self._stream.flush()

    def _out(self, data: bytes) -> None:
        if data:
            self._stream.write(data)
            self.bytes_written += len(data)


def _decompressed(raw: bytes) -> tuple[bytes, str | None]:
    """The text a gzip stream holds up to where it is cut or broken, and why it stops early:
    None when it ends properly, "cut" when the bytes stop mid-stream, else what is wrong."""
    inflate = zlib.decompressobj(31)
    parts: list[bytes] = []
    for start in range(0, len(raw), 512):
        try:
            parts.append(inflate.decompress(raw[start : start + 512]))
        except zlib.error as error:
            return b"".join(parts), f"the compressed data is corrupt near byte {start}: {error}"
        if inflate.eof:
            if inflate.unused_data:
                return b"".join(parts), "bytes after the end of the compressed stream"
            return b"".join(parts), None
    return b"".join(parts), "cut"


def parse_digest_log(raw: bytes, path: str = "<log>", *, key: bytes | None = None) -> MatchLog:
    """Check a digest log's chain (and signature, given its ``key``), re-run the engine from it
    and give the lines a schema-1 log of that match holds. The first line whose chain, signature
    or output digest does not hold is ``bad``; nothing after it is kept."""
    text, stop = _decompressed(raw)
    lines = text.split(b"\n")
    log = _new_log(lines[0], path)
    header = log.header
    cut_tail = stop == "cut" and not text.endswith(b"\n")
    if stop is not None and stop != "cut":
        log.stop_reason = stop
    expander = _Expander(log)
    previous = b""
    for number, line in enumerate(lines, start=1):
        if not line:
            if number == len(lines):
                break
            log.bad = BadLine(number, "an empty line (changed)")
            break
        if number == len(lines) and cut_tail:
            log.cut_short = True  # the stream was cut mid-line: incomplete, not tampered
            break
        if log.close is not None:
            log.bad = BadLine(number, "a line after the close line (appended)")
            break
        body, found = line[:-_TAIL_LEN] + b"}", line[_HASH_AT:-2]
        if line[-_TAIL_LEN:_HASH_AT] != b',"h":"' or _chain(previous, body) != found:
            log.bad = BadLine(
                number, "hash does not chain to the line before: changed, removed or reordered"
            )
            break
        try:
            data = _plain_decoder.decode(body)
        except msgspec.DecodeError:
            log.bad = BadLine(number, "not a JSON object (changed or corrupted)")
            break
        if not isinstance(data, dict) or not isinstance(data.get("event"), str):
            log.bad = BadLine(number, "missing 'event'")
            break
        reason = _check_signature(log, key, number, previous, data)
        previous = found
        if reason is not None:
            log.bad = BadLine(number, reason)
            break
        if number > 1:
            reason = expander.add(number, data)
            if reason is not None:
                log.bad = BadLine(number, reason)
                break
        else:
            log.events.append(LogLine(line=1, event=HEADER, data=header))
    if log.bad is None and log.stop_reason is not None:
        log.bad = BadLine(len(log.events) + 1, log.stop_reason)
    return log


def _new_log(first_line: bytes, path: str) -> MatchLog:
    """The log its header line starts (not yet checked against the chain)."""
    if not first_line.startswith(b"{"):
        raise LogFormatError(f"{path}: not a match log (no header in the compressed stream)")
    try:
        first = _plain_decoder.decode(first_line)
    except msgspec.DecodeError:
        raise LogFormatError(f"{path}: line 1 is not a match log header") from None
    if not isinstance(first, dict) or first.get("event") != HEADER:
        raise LogFormatError(f"{path}: line 1 is not a match log header")
    if first.get("schema") != DIGEST_SCHEMA:
        raise LogFormatError(
            f"{path}: log schema version {first.get('schema')!r}, but this software reads "
            f"versions 1 and {DIGEST_SCHEMA} only; use the dungeon-arena release that wrote it"
        )
    if first.get("game", "dungeon") != "dungeon":
        raise LogFormatError(f"{path}: a {first.get('game')} log; this reads dungeon logs")
    header = {k: v for k, v in first.items() if k != "h"}
    header["seq"] = 1
    log = MatchLog(path=path, header=header)
    log.signed_by = _signer(header)
    return log


class DigestTail:
    """A digest log being written, read as it grows: :meth:`feed` the bytes appended since the
    last call, get the lines (engine events and messages regenerated) they complete. Each input
    is re-run once, however often the file is looked at."""

    def __init__(self, path: str = "<log>") -> None:
        self.path = path
        self.log: MatchLog | None = None
        self._inflate = zlib.decompressobj(31)
        self._buffer = b""
        self._previous = b""
        self._lines = 0
        self._expander: _Expander | None = None
        #: Why the log stopped being readable (a bad line, corrupt bytes), if it did.
        self.broken: str | None = None

    def feed(self, raw: bytes) -> list[LogLine]:
        if self.broken is not None or not raw:
            return []
        try:
            self._buffer += self._inflate.decompress(raw)
        except zlib.error as error:
            self.broken = f"corrupt compressed data: {error}"
            return []
        end = self._buffer.rfind(b"\n")
        if end < 0:
            return []
        complete, self._buffer = self._buffer[:end], self._buffer[end + 1 :]
        before = 0 if self.log is None else len(self.log.events)
        for line in complete.split(b"\n"):
            self._lines += 1
            body, found = line[:-_TAIL_LEN] + b"}", line[_HASH_AT:-2]
            if _chain(self._previous, body) != found:
                self.broken = f"line {self._lines}: hash does not chain"
                break
            self._previous = found
            if self.log is None:
                self.log = _new_log(line, self.path)
                self.log.events.append(LogLine(line=1, event=HEADER, data=self.log.header))
                self._expander = _Expander(self.log)
                continue
            assert self._expander is not None
            try:
                data = _plain_decoder.decode(body)
            except msgspec.DecodeError:
                self.broken = f"line {self._lines}: not a JSON object"
                break
            if not isinstance(data, dict):
                self.broken = f"line {self._lines}: not a JSON object"
                break
            reason = self._expander.add(self._lines, data)
            if reason is not None:
                self.broken = f"line {self._lines}: {reason}"
                break
        return [] if self.log is None else self.log.events[before:]


def _signer(header: dict[str, Any]) -> str | None:
    signed = header.get("signed")
    return signed if isinstance(signed, str) else None


def _check_signature(
    log: MatchLog, key: bytes | None, number: int, previous: bytes, data: dict[str, Any]
) -> str | None:
    """Why line ``number`` breaks the signature, if it does (only checked with a key)."""
    if key is None or log.signed_by is None:
        return None
    if log.signed_by != f"hmac-sha256:{key_id(key)}":
        return f"signed with another key ({log.signed_by}), not the one given"
    due = number % SIGN_EVERY == 0 or data.get("event") == CLOSE
    signature = data.get("sig")
    if due and signature is None:
        return "a signature is missing: the chain was re-hashed"
    if signature is not None:
        if not hmac.compare_digest(str(signature), _signature(key, previous)):
            return "the signature does not match the key: the chain was re-hashed (forged)"
        log.signed_through = number
    return None


class _Expander:
    """Re-runs the engine line by line, adding what a schema-1 log holds to ``log``."""

    def __init__(self, log: MatchLog) -> None:
        from replay.rerun import new_match

        self.log = log
        try:
            self.match = new_match(log)
        except (KeyError, TypeError, ValueError) as error:
            raise LogFormatError(
                f"{log.path}: the header's seed or rules are not ones this version plays: "
                f"{error!s:.200}"
            ) from None
        self.began = False

    def add(self, number: int, data: dict[str, Any]) -> str | None:
        from replay.rerun import engine_input

        log = self.log
        event = data.get("event")
        data["seq"] = number
        data.setdefault("t", 0.0)
        data.pop("sig", None)
        if event == BEGIN:
            if self.began:
                return "a second begin line"
            self.began = True
            return self._outputs(number, data, self.match.begin())
        if not self.began:
            return f"a {event} line before the begin line"
        if event == INPUT:
            digest = data.pop("out", None)
            entry = LogLine(line=number, event=INPUT, data=data)
            try:
                output = self.match.apply(engine_input(entry))
            except Exception as error:  # any engine failure is the verdict
                return f"an input the engine does not accept: {error!r:.200}"
            log.events.append(entry)
            log.inputs.append(entry)
            log.regenerated_inputs += 1
            return self._outputs(number, {**data, "out": digest}, output)
        entry = LogLine(line=number, event=str(event), data=data)
        if event == OPTIMUM:
            log.events.append(entry)
            log.optima.append(entry)
            return None
        if event == CLOSE:
            log.events.append(entry)
            log.close = entry
            return None
        return f"unknown line kind {event!r}"

    def _outputs(self, number: int, data: dict[str, Any], output: Output) -> str | None:
        logged = data.get("out")
        if logged is None:
            return None  # an input cut off before its output (a server killed mid-apply)
        recomputed = output_digest(output)
        if recomputed != logged:
            self.log.digest_difference = (number, recomputed, str(logged))
            return f"the re-run's output differs from the logged digest (out {logged})"
        for record in output_records(output):
            self.log.outputs.append(
                LogLine(number, record["event"], {"seq": number, "t": data["t"], **record})
            )
            self.log.events.append(self.log.outputs[-1])
        return None
