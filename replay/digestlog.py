"""Digest logs (schema 2): what cannot be recomputed, digests of what can, compressed as written.

A schema-1 log writes every engine event and every message a match produced (4.6 KB a crossing
compact, 9.8 KB full). The engine is deterministic: its seed, configuration and inputs give the
rest. A digest log writes the header, each input (with its arrival time) and the facts the engine
cannot derive (optimum checks, why the log ends), and for each input a digest of the output the
engine produced; ``arena replay`` re-runs the engine to regenerate every message and checks each
digest. Lines go through one gzip stream (stdlib ``zlib``) with a sync flush whenever the owner
flushes, so a file cut by a kill holds every flushed line. Format: ``docs/log-format.md``.

:mod:`replay.digestread` reads one back, as the very :class:`~replay.reader.MatchLog` a schema-1
log of the same match reads as (outputs regenerated), so ``show``, ``render``, ``fork`` and the
viewer need no second path.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO, Final

from dungeon.engine import Input, Output, Request
from replay.chainlog import (
    DEFAULT_BUDGET,
    DIGEST_HEX,
    GZIP_MAGIC,
    ChainWriter,
)
from replay.keyfile import key_id
from replay.records import (
    _MESSAGE_CLASSES,
    _T_SCALE,
    CLOSE,
    HEADER,
    INPUT,
    OPTIMUM,
    SOURCES,
    LogWriteError,
    _event_encoder,
    _event_fields,
    _line_encoder,
    input_record,
    to_plain,
)

__all__ = [
    "BEGIN",
    "DEFAULT_BUDGET",
    "DIGEST_SCHEMA",
    "GZIP_MAGIC",
    "DigestLogWriter",
    "key_id",
    "output_digest",
]

DIGEST_SCHEMA: Final = 2
#: The line holding the digest of ``Match.begin()``'s output (the maps, the first sightings).
BEGIN: Final = "begin"
#: Framing, chain, signature and budget: those of every game's log (replay/chainlog.py). A
#: digest log takes about 110 bytes a crossing, so only a runaway match (bots flooding moves for
#: ten minutes) reaches the budget.


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
        self._chain = ChainWriter(stream, key=key, flush_each_line=flush_each_line)
        #: Bytes the log may take; past them it records only the result (None: no limit).
        self.budget = budget
        #: True once the log reached its budget: inputs, outputs and optima are no longer written.
        self.over_budget = False
        #: Inputs left out since the budget was reached.
        self.dropped = 0
        self._result: dict[str, Any] | None = None
        self._clock = clock
        self._key = key
        self._start: float | None = None
        self._pending: bytes | None = None  # an input's line body, waiting for its output
        self._closed = False

    @property
    def bytes_written(self) -> int:
        """Bytes handed to the stream so far (compressed)."""
        return self._chain.bytes_written

    @property
    def lines_written(self) -> int:
        return self._chain.lines

    @property
    def last_hash(self) -> str:
        return self._chain.last_hash

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
        self._chain.finish()

    def flush(self) -> None:
        """Every line written so far, through the compressor, to the operating system."""
        if self._pending is not None:
            return  # an input without its output yet: flushed with it
        self._chain.flush()

    def _now(self, what: str) -> float:
        if self._start is None:
            raise LogWriteError(f"write the header before {what!r}")
        if self._closed:
            raise LogWriteError(f"the log is closed; cannot write {what!r}")
        return round((self._clock() - self._start) * _T_SCALE) / _T_SCALE

    def _write(self, event: str, **fields: Any) -> None:
        body = _line_encoder.encode({"t": self._now(event), "event": event, **fields})
        self._seal(body, last=event == CLOSE)

    def _seal(self, body: bytes, *, last: bool = False) -> None:
        # An input's line is flushed with its output's (the server flushes per input anyway).
        self._chain.line(body, last=last, hold=self._pending is not None)
