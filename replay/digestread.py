"""Reading a digest log back (format: ``docs/log-format.md``): check its chain (and signature),
re-run the engine from its seed and inputs, check each output's digest and give the very
:class:`~replay.reader.MatchLog` a schema-1 log of the same match reads as (outputs
regenerated), so ``show``, ``render``, ``fork`` and the viewer need no second path.
:class:`DigestTail` does it for a log still being written. :mod:`replay.digestlog` writes them.
"""

from __future__ import annotations

import zlib
from typing import Any

import msgspec

from dungeon.engine import Output
from replay.chainlog import chain_of, read_chain, split_line
from replay.digestlog import BEGIN, DIGEST_SCHEMA, output_digest
from replay.reader import BadLine, LogLine, MatchLog
from replay.records import (
    CLOSE,
    HEADER,
    INPUT,
    OPTIMUM,
    LogFormatError,
    _plain_decoder,
    output_records,
)

__all__ = ["DigestTail", "parse_digest_log"]


def parse_digest_log(raw: bytes, path: str = "<log>", *, key: bytes | None = None) -> MatchLog:
    """Check a digest log's chain (and signature, given its ``key``), re-run the engine from it
    and give the lines a schema-1 log of that match holds. The first line whose chain, signature
    or output digest does not hold is ``bad``; nothing after it is kept."""
    try:
        chain = read_chain(raw, path, key=key)
    except ValueError as error:
        raise LogFormatError(str(error)) from None
    log = _new_log(chain.header, path)
    log.cut_short = chain.cut_short
    log.signed_through = chain.signed_through
    if chain.stop not in (None, "cut"):
        log.stop_reason = chain.stop
    if chain.lines:
        log.events.append(LogLine(line=1, event=HEADER, data=log.header))
    expander = _Expander(log)
    for number, data in chain.lines[1:]:
        reason = expander.add(number, data)
        if reason is not None:
            log.bad = BadLine(number, reason)
            return log
    if chain.bad is not None:
        log.bad = BadLine(*chain.bad)
    return log


def _new_log(first: dict[str, Any], path: str) -> MatchLog:
    """The log its header starts (not yet checked against the chain)."""
    if first.get("schema") != DIGEST_SCHEMA:
        raise LogFormatError(
            f"{path}: log schema version {first.get('schema')!r}, but this software reads "
            f"versions 1 and {DIGEST_SCHEMA} only; use the dungeon-arena release that wrote it"
        )
    if first.get("game", "dungeon") != "dungeon":
        raise LogFormatError(f"{path}: a {first.get('game')} log; this reads dungeon logs")
    header = {k: v for k, v in first.items() if k not in ("h", "sig")}
    header["seq"] = 1
    log = MatchLog(path=path, header=header)
    log.signed_by = _signer(header)
    return log


class DigestTail:
    """A digest log being written, read as it grows: :meth:`feed` the bytes appended since the
    last call, get the lines (engine events and messages regenerated) they complete. Each input
    is re-run once, however often the file is looked at."""

    def __init__(self, path: str = "<log>", *, keep: bool = True) -> None:
        self.path = path
        #: False: the lines are given back by :meth:`feed` and not kept in ``log`` (its header
        #: line, optima and close stay), so following a long match holds no more than a read.
        self.keep = keep
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
            split = split_line(line)
            if split is None or chain_of(self._previous, split[0]) != split[1]:
                self.broken = f"line {self._lines}: hash does not chain"
                break
            body, self._previous = split
            try:
                data = _plain_decoder.decode(body)
            except msgspec.DecodeError:
                self.broken = f"line {self._lines}: not a JSON object"
                break
            if not isinstance(data, dict):
                self.broken = f"line {self._lines}: not a JSON object"
                break
            if self.log is None:
                if data.get("event") != HEADER:
                    raise LogFormatError(f"{self.path}: line 1 is not a match log header")
                self.log = _new_log(data, self.path)
                self.log.events.append(LogLine(line=1, event=HEADER, data=self.log.header))
                self._expander = _Expander(self.log)
                continue
            assert self._expander is not None
            reason = self._expander.add(self._lines, data)
            if reason is not None:
                self.broken = f"line {self._lines}: {reason}"
                break
        if self.log is None:
            return []
        lines = self.log.events[before:]
        if not self.keep:
            del self.log.events[1:]
            self.log.inputs.clear()
            self.log.outputs.clear()
        return lines


def _signer(header: dict[str, Any]) -> str | None:
    signed = header.get("signed")
    return signed if isinstance(signed, str) else None


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
