"""Match log records: the schema, the chain of hashes, and the lines an engine input or output is
logged as (shared by :mod:`replay.writer` and :mod:`replay.reader`; see ``docs/log-format.md``).

Each line is one compact JSON object carrying ``seq`` (its 1-based line number), ``t``
(monotonic seconds since the header, from the clock the shell gives the writer) and ``hash``:
the sha256 of the previous line's hash followed by this line's canonical JSON (sorted keys,
compact separators, without ``hash``). A changed, removed or reordered line breaks the chain at
that line; a log without its ``close`` line is incomplete.

The log sits above the rules: it reads the engine's inputs, outputs and typed events
(:mod:`dungeon.events`) by their types.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import re
from collections.abc import Sequence
from typing import Any, Final

import msgspec

from dungeon.engine import Disconnect, Input, Output, Request, TimeUp
from dungeon.events import EngineEvent, event_fields
from protocol.encoding import sat_traps_span
from protocol.messages import MESSAGE_TYPES

__all__ = [
    "CLOSE",
    "GENESIS",
    "HEADER",
    "INPUT",
    "MAPS",
    "MAP_LINE",
    "OPTIMUM",
    "RESERVED_EVENTS",
    "RESERVED_KEYS",
    "SCHEMA_VERSION",
    "SEND",
    "SOURCES",
    "LogFormatError",
    "LogWriteError",
    "UnsupportedSchemaError",
    "chain_hash",
    "input_record",
    "output_records",
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
#: The header field of a compact log (``"maps": "once"``): see MatchLogWriter.
MAPS: Final = "maps"
#: A compact ``send`` line's field: the seq of the line whose ``dungeon`` message holds the map.
MAP_LINE: Final = "map"
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


_MESSAGE_CLASSES: Final = frozenset(MESSAGE_TYPES)


def _message_data(message: Any, plain: bool) -> Any:
    """A message as the log writes it: plain data, or (``plain`` false) the wire message as is,
    since msgspec encodes a struct exactly as the plain data it converts to (same bytes)."""
    if type(message) not in _MESSAGE_CLASSES:
        raise LogWriteError(f"not a wire message: {message!r}")
    return to_plain(message) if plain else message


def _event_fields(fact: EngineEvent) -> tuple[str, dict[str, Any]]:
    """A typed engine event's name and fields (see :func:`dungeon.events.event_fields`)."""
    try:
        return event_fields(fact)
    except KeyError:
        raise LogWriteError(f"not an engine event: {fact!r}") from None


def _event_record(fact: EngineEvent, plain: bool) -> dict[str, Any]:
    """An engine event as its log line's fields: ``event`` first, then the others by name."""
    name, fields = _event_fields(fact)
    data = to_plain(fields) if plain else _builtins(fields)
    return {"event": name, **data}


def input_record(event: Input, *, plain: bool = True) -> dict[str, Any]:
    """The fields of the ``input`` line for an engine input (``Request``, ``Disconnect``,
    ``TimeUp``), without ``event``. ``plain``: exactly the values a reader parses back (lists,
    not tuples), for comparisons; the writer skips that (its JSON renders tuples as lists)."""
    if isinstance(event, Request):
        agent = event.agent
        message = _message_data(event.message, plain)
        return {"kind": "request", "team": agent.team, "agent": agent.agent, "message": message}
    if isinstance(event, Disconnect):
        agent = event.agent
        return {"kind": "disconnect", "team": agent.team, "agent": agent.agent}
    if isinstance(event, TimeUp):
        return {"kind": "time_up"}
    raise LogWriteError(f"not an engine input: {event!r}")


def output_records(output: Output, *, plain: bool = True) -> list[dict[str, Any]]:
    """The lines (``event`` and fields) that an engine ``Output`` is logged as: its engine
    events, then one ``send`` per message. ``replay verify`` compares these; ``plain`` as in
    :func:`input_record`. :meth:`MatchLogWriter.output` writes the same lines."""
    records = [_event_record(fact, plain) for fact in output.events]
    for sent in output.messages:
        message = _message_data(sent.message, plain)
        records.append({"event": SEND, "to": [sent.to.team, sent.to.agent], "message": message})
    return records


def _encoded_traps(
    fields: dict[str, Any], messages: list[Any], encoded: Sequence[bytes] | None
) -> bytes | None:
    """The JSON of ``fields["traps"]`` cut from an encoded message that carries that very object
    (a trap problem's `sat`), when "traps" is the last of ``fields`` in sorted order; else None."""
    traps = fields.get("traps")
    if traps is None or encoded is None or max(fields) != "traps":
        return None
    for index, outbound in enumerate(messages):
        if getattr(outbound.message, "traps", None) is traps:
            line = encoded[index]
            span = sat_traps_span(line)
            return None if span is None else line[span[0] : span[1]]
    return None
