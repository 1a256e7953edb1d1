"""A hosted dungeon match's log file and its preparation, as its actor (:mod:`server.actor`)
opens, writes and begins them: the file's name, its writer (full, compact or digest, signed or
not), and the engine with its begin output logged and its twelve maps encoded.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Any, BinaryIO, Literal

import trio

from dungeon.config import RulesConfig
from dungeon.engine import Match, Output
from protocol.encoding import encode_lines
from replay.digestlog import DigestLogWriter
from replay.matchlog import MatchLogWriter, software_version
from server.fairtime import FairGate

__all__ = ["LogMaps", "log_path", "open_log", "prepare", "time_fields", "writer_for"]

#: How a match log writes the maps: each time, once, or a digest log (docs/log-format.md).
LogMaps = Literal["each", "once", "digest"]


def log_path(log_dir: Path, number: int, name: str | None, maps: LogMaps) -> Path:
    """The new log's path: its time, this process, the match's number and name."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    suffix = f"-{name}" if name else ""
    path = log_dir / f"{stamp}-{os.getpid()}-{number:05d}{suffix}.jsonl"
    return path.with_name(path.name + ".gz") if maps == "digest" else path


def open_log(path: Path | None) -> contextlib.AbstractContextManager[BinaryIO | None]:
    """The log's stream (None: no log). Binary: the writer builds each line as bytes (a text
    stream would decode it only to encode it again)."""
    if path is None:
        return contextlib.nullcontext()
    return open(path, "xb")


def time_fields(fair: FairGate | None) -> dict[str, Any]:
    """The log header's fair-time fields (none when the teams are not measured)."""
    if fair is None:
        return {}
    mode = "cpu" if fair.ordered else "wall"
    return {"time": mode, "allowance": fair.allowance, "cpu_budget": fair.budget}


def writer_for(
    stream: BinaryIO | None, maps: LogMaps, key: bytes | None, budget: int
) -> MatchLogWriter | DigestLogWriter | None:
    """The log's writer. Lines are flushed once per input, before any of its messages is queued
    for a socket (the actor's ``_apply``), not once per line: one write instead of about five
    per request."""
    if stream is None:
        return None
    if maps == "digest":
        return DigestLogWriter(
            stream, clock=time.monotonic, flush_each_line=False, key=key, budget=budget
        )
    each: Literal["each", "once"] = "once" if maps == "once" else "each"
    return MatchLogWriter(stream, clock=time.monotonic, flush_each_line=False, maps=each)


async def prepare(
    seed: int,
    config: RulesConfig,
    writer: MatchLogWriter | DigestLogWriter | None,
    name: str | None,
    time_fields: dict[str, Any],
) -> tuple[Match, Output, list[bytes]]:
    """The engine, its begin output (logged, flushed) and the twelve encoded maps.

    Done in the event loop, in steps of at most a few milliseconds (generate, begin, encode,
    log) with a checkpoint after each, so other matches are served in between. Not a worker
    thread: it takes as much CPU and, fighting the loop for the GIL, holds every socket call
    of the loop up for up to the switch interval while it runs (docs/server.md).
    """
    engine = Match(seed, config)
    await trio.lowlevel.checkpoint()
    if writer is not None:
        writer.header(
            seed=seed,
            config=config.to_dict(),
            version=software_version(),
            match=name,
            source="server",
            **time_fields,
        )
    output = engine.begin()
    await trio.lowlevel.checkpoint()
    lines = encode_lines([outbound.message for outbound in output.messages])
    if writer is not None:
        # Encoding the maps and logging them in one step held the loop (docs/server.md).
        await trio.lowlevel.checkpoint()
        # The log's `send` lines embed the very bytes sent: each map is encoded once.
        writer.output(output, encoded=lines)
        writer.flush()
    return engine, output, lines
