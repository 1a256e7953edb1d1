"""Reading a match log back: check its chain of hashes and split its lines by kind.

:func:`read_log` opens the file it is given (replay tools are shells); :func:`parse_log` works
on lines already read. Records and hashing: :mod:`replay.records`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from replay.records import (
    CLOSE,
    GENESIS,
    HEADER,
    INPUT,
    MAP_LINE,
    OPTIMUM,
    SCHEMA_VERSION,
    SEND,
    LogFormatError,
    UnsupportedSchemaError,
    _plain_decoder,
    chain_hash,
    unseal,
)

__all__ = ["BadLine", "LogLine", "MatchLog", "parse_log"]


@dataclass(frozen=True, slots=True)
class LogLine:
    """One verified line of a log: ``data`` is the whole event without its hash (a compact
    log's ``send`` line of a ``dungeon`` message with its map filled in, as a full log has it)."""

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
    #: A digest log (schema 2, :mod:`replay.digestlog`): the outputs are the engine's re-run.
    #: The header's ``signed`` (``hmac-sha256:<key id>``), None for an unsigned log
    signed_by: str | None = None
    #: the last line whose signature was checked against the key given (0: none)
    signed_through: int = 0
    #: why the compressed stream stops before its end (corrupt bytes), if it does
    stop_reason: str | None = None
    #: inputs the reader re-ran to regenerate the outputs (digest logs)
    regenerated_inputs: int = 0
    #: (line, the re-run's digest, the logged digest) where they differ
    digest_difference: tuple[int, str, str] | None = None

    @property
    def digest(self) -> bool:
        """True for a digest log (schema 2): outputs regenerated, checked by their digests."""
        return self.header.get("schema") == 2

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
    maps: dict[int, dict[str, Any]] = {}  # seq -> a dungeon message holding the map
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
        if event == SEND:
            reason = _expand_map(body, maps)
            if reason is not None:
                log.bad = BadLine(number, reason)
                break
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


def _expand_map(body: dict[str, Any], maps: dict[int, dict[str, Any]]) -> str | None:
    """Fill in the map of a compact log's ``dungeon`` line from the line it names (and note a
    line holding one); the reason the line is bad, if it is."""
    message = body.get("message")
    if not isinstance(message, dict) or message.get("type") != "dungeon":
        return None
    if MAP_LINE not in body:
        maps[body["seq"]] = message
        return None
    base = maps.get(body.pop(MAP_LINE))
    if base is None:
        return "its dungeon message names no earlier line holding the map"
    body["message"] = {**base, "team": message.get("team"), "agent": message.get("agent")}
    return None
