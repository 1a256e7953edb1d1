"""The one log format of every game (schema 2): typed records in one gzip stream, hash-chained,
signed, with a header naming the game; docs/log-format.md.

:class:`ChainWriter` is the framing every writer shares (the dungeon's
:class:`~replay.digestlog.DigestLogWriter` and :class:`GameLogWriter` of the other games): each
line ends with ``"h"``, the chain (16 hex digits of ``sha256(h(n-1) + body(n))``); a signed log
adds ``"sig"`` (HMAC-SHA256 of the chain so far) every 64th line and on its close line; lines go
through one zlib stream, sync-flushed so a file cut by a kill holds every flushed line.

:func:`read_chain` checks that framing and gives the records; a game's log reader
(:mod:`replay.games`) re-runs its rules over them.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import importlib.metadata
import json
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Final

import msgspec

from replay.keyfile import key_id

__all__ = [
    "CHAIN_HEX",
    "DEFAULT_BUDGET",
    "DIGEST_HEX",
    "GZIP_MAGIC",
    "SCHEMA",
    "SIGN_EVERY",
    "SIG_HEX",
    "Chain",
    "ChainWriter",
    "GameLogWriter",
    "chain_of",
    "decompressed",
    "read_chain",
    "records_digest",
    "signature",
    "software_version",
    "split_line",
]

SCHEMA: Final = 2
GZIP_MAGIC: Final = b"\x1f\x8b"
#: Hex digits kept of the chain's sha256 and of a digest of what the rules recompute.
CHAIN_HEX: Final = 16
DIGEST_HEX: Final = 16
#: A signed log carries ``sig`` every this many lines and on its close line.
SIGN_EVERY: Final = 64
SIG_HEX: Final = 32
#: A log's size budget in bytes, as the dungeon's (docs/log-format.md, "Budgets").
DEFAULT_BUDGET: Final = 32 * 1024 * 1024
_TAIL_LEN: Final = len(',"h":"') + CHAIN_HEX + len('"}')
_HASH_AT: Final = -CHAIN_HEX - 2
_T_SCALE: Final = 1_000_000
_decoder = msgspec.json.Decoder()


@functools.cache
def software_version() -> str:
    """The installed dungeon-arena version: the header's ``version`` (the rules version), looked
    up once a process."""
    try:
        return importlib.metadata.version("dungeon-arena")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def split_line(line: bytes) -> tuple[bytes, bytes] | None:
    """A written line's body (without its chain member) and its chain, or None when the line
    does not end with one."""
    if line[-_TAIL_LEN:_HASH_AT] != b',"h":"':
        return None
    return line[:-_TAIL_LEN] + b"}", line[_HASH_AT:-2]


def chain_of(previous: bytes, body: bytes) -> bytes:
    return hashlib.sha256(previous + body).hexdigest()[:CHAIN_HEX].encode("ascii")


def signature(key: bytes, chain: bytes) -> str:
    return hmac.new(key, chain, hashlib.sha256).hexdigest()[:SIG_HEX]


def _encode(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("ascii")


def records_digest(records: Sequence[Any]) -> str:
    """The digest of what the rules derive from one input: each record as JSON with sorted keys,
    one a line (the game's writer and its reader build the same records)."""
    digest = hashlib.sha256()
    for record in records:
        digest.update(json.dumps(record, sort_keys=True, separators=(",", ":")).encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()[:DIGEST_HEX]


class ChainWriter:
    """Seals each line's body (a JSON object's bytes) into the chain, signs it when due, and
    compresses it onto ``stream``. ``flush_each_line``: sync-flush after every line."""

    def __init__(
        self, stream: BinaryIO, *, key: bytes | None = None, flush_each_line: bool = True
    ) -> None:
        self._stream = stream
        self._key = key
        self._flush_each_line = flush_each_line
        self._zip = zlib.compressobj(6, zlib.DEFLATED, 31)
        self._previous = b""
        self.lines = 0
        #: Bytes handed to the stream so far (compressed).
        self.bytes_written = 0

    @property
    def last_hash(self) -> str:
        return self._previous.decode("ascii")

    def line(self, body: bytes, *, last: bool = False, hold: bool = False) -> None:
        """Seal ``body``; ``last`` (the close line) is always signed, ``hold`` skips the flush."""
        self.lines += 1
        if self._key is not None and (self.lines % SIGN_EVERY == 0 or last):
            sig = signature(self._key, self._previous).encode("ascii")
            body = b'%b,"sig":"%b"}' % (body[:-1], sig)
        chain = chain_of(self._previous, body)
        self._previous = chain
        self._out(self._zip.compress(b'%b,"h":"%b"}\n' % (body[:-1], chain)))
        if self._flush_each_line and not hold:
            self.flush()

    def flush(self) -> None:
        self._out(self._zip.flush(zlib.Z_SYNC_FLUSH))
        self._stream.flush()

    def finish(self) -> None:
        self._out(self._zip.flush(zlib.Z_FINISH))
        self._stream.flush()

    def _out(self, data: bytes) -> None:
        if data:
            self._stream.write(data)
            self.bytes_written += len(data)


class GameLogWriter:
    """One game's log (Fish, Labyrinth, Penguins): ``header`` first, then ``record`` for each
    input in the order the referee applied it (with ``derived``: what the rules made of it, logged
    as its digest ``out``) and each fact the rules cannot derive, ``close`` last. Each line gets
    ``t``, seconds since the header on ``clock``. Past ``budget`` bytes only ``close`` is written
    (with the count of records left out)."""

    def __init__(
        self,
        stream: BinaryIO,
        *,
        clock: Callable[[], float],
        key: bytes | None = None,
        budget: int | None = DEFAULT_BUDGET,
        flush_each_line: bool = True,
    ) -> None:
        self._chain = ChainWriter(stream, key=key, flush_each_line=flush_each_line)
        self._key = key
        self._clock = clock
        self._start: float | None = None
        self._closed = False
        self.budget = budget
        self.dropped = 0

    @property
    def bytes_written(self) -> int:
        return self._chain.bytes_written

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def started(self) -> bool:
        return self._start is not None

    def header(
        self,
        *,
        game: str,
        seed: int | None,
        config: dict[str, Any],
        players: Sequence[str],
        version: str,
        source: str,
        match: str | None = None,
        **extra: Any,
    ) -> None:
        if self._start is not None:
            raise ValueError("the header is written once, first")
        self._start = self._clock()
        fields: dict[str, Any] = {"event": "header", "schema": SCHEMA, "game": game}
        fields |= {"seed": seed, "config": config, "version": version, "match": match}
        fields |= {"source": source, "players": list(players), "t": 0.0}
        if self._key is not None:
            fields["signed"] = f"hmac-sha256:{key_id(self._key)}"
        fields.update(extra)
        self._chain.line(_encode(fields))

    def record(
        self, event: str, fields: dict[str, Any], derived: Sequence[Any] | None = None
    ) -> None:
        body = {"t": self._now(event), "event": event, **fields}
        if derived is not None:
            body["out"] = records_digest(derived)
        if self.budget is not None and self._chain.bytes_written >= self.budget:
            self.dropped += 1
            return
        self._chain.line(_encode(body))

    def close(self, *, reason: str, **fields: Any) -> None:
        body: dict[str, Any] = {"t": self._now("close"), "event": "close", "reason": reason}
        body.update(fields)
        if self.dropped:
            body["budget"] = {"limit": self.budget, "dropped": self.dropped}
        self._chain.line(_encode(body), last=True)
        self._closed = True
        self._chain.finish()

    def _now(self, what: str) -> float:
        if self._start is None:
            raise ValueError(f"write the header before {what!r}")
        if self._closed:
            raise ValueError(f"the log is closed; cannot write {what!r}")
        return round((self._clock() - self._start) * _T_SCALE) / _T_SCALE


def decompressed(raw: bytes) -> tuple[bytes, str | None]:
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


@dataclass
class Chain:
    """A chained log as read: the good lines (1-based number, record without ``h`` and ``sig``)
    up to the first bad one."""

    path: str
    header: dict[str, Any]
    lines: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    #: (line, why) of the first line that breaks the chain or the signature
    bad: tuple[int, str] | None = None
    #: the stream stops mid-line (a kill): incomplete, not tampered
    cut_short: bool = False
    signed_by: str | None = None
    signed_through: int = 0
    #: why the compressed stream stops early: None (its end), "cut", or what is wrong with it
    stop: str | None = None

    @property
    def closed(self) -> bool:
        return bool(self.lines) and self.lines[-1][1].get("event") == "close"


def _decoded(body: bytes) -> Any:
    """The JSON value of a line's body, or None. msgspec first (fast); the standard library for
    what msgspec refuses: a lone surrogate's escape (a Penguins id read from bytes not UTF-8)."""
    try:
        return _decoder.decode(body)
    except msgspec.DecodeError:
        pass
    try:
        return json.loads(body)
    except ValueError:
        return None


def read_chain(raw: bytes, path: str, *, key: bytes | None = None) -> Chain:
    """Check the chain (and, with ``key``, the signature) of a schema-2 log's bytes, any game's.
    Raises ValueError when the file is no such log at all (the message names ``path``)."""
    text, stop = decompressed(raw)
    lines = text.split(b"\n")
    head = split_line(lines[0])  # (a header without its chain member is read, then fails it)
    first = _decoded(lines[0] if head is None else head[0])
    if not isinstance(first, dict) or first.get("event") != "header":
        raise ValueError(f"{path}: not a match log (no header in the compressed stream)")
    signed = first.get("signed")
    chain = Chain(path, first, signed_by=signed if isinstance(signed, str) else None, stop=stop)
    cut_tail = stop == "cut" and not text.endswith(b"\n")
    previous = b""
    for number, line in enumerate(lines, start=1):
        if not line:
            if number != len(lines):
                chain.bad = (number, "an empty line (changed)")
            break
        if number == len(lines) and cut_tail:
            chain.cut_short = True
            break
        if chain.closed:
            chain.bad = (number, "a line after the close line (appended)")
            break
        split = split_line(line)
        if split is None or chain_of(previous, split[0]) != split[1]:
            why = "hash does not chain to the line before: changed, removed or reordered"
            chain.bad = (number, why)
            break
        body, found = split
        data = _decoded(body)
        if data is None:
            chain.bad = (number, "not a JSON object (changed or corrupted)")
            break
        if not isinstance(data, dict) or not isinstance(data.get("event"), str):
            chain.bad = (number, "missing 'event'")
            break
        if number > 1 and data["event"] == "header":
            chain.bad = (number, "a second header")
            break
        reason = _signature_problem(chain, key, number, previous, data)
        previous = found
        if reason is not None:
            chain.bad = (number, reason)
            break
        data.pop("sig", None)
        chain.lines.append((number, data))
    if chain.bad is None and stop is not None and stop != "cut":
        chain.bad = (len(chain.lines) + 1, stop)
    return chain


def _signature_problem(
    chain: Chain, key: bytes | None, number: int, previous: bytes, data: dict[str, Any]
) -> str | None:
    if key is None or chain.signed_by is None:
        return None
    if chain.signed_by != f"hmac-sha256:{key_id(key)}":
        return f"signed with another key ({chain.signed_by}), not the one given"
    due = number % SIGN_EVERY == 0 or data.get("event") == "close"
    given = data.get("sig")
    if due and given is None:
        return "a signature is missing: the chain was re-hashed"
    if given is not None:
        if not hmac.compare_digest(str(given), signature(key, previous)):
            return "the signature does not match the key: the chain was re-hashed (forged)"
        chain.signed_through = number
    return None
