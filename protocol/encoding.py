"""The dungeon protocol's bytes on the way out: each message as one checked JSON line.

:func:`encode` (and :meth:`protocol.codec.Codec.send`, through :func:`encode_checked`) checks
every outgoing message against the same rules a peer's decoder applies, so we never put on the
wire a line the other side would reject: a numpy integer, an agent number 7, a NaN coordinate
are our bugs, reported as LocalProtocolError. :func:`encode_lines` gives a match's output the
same bytes with the work shared where messages share bytes (the twelve `dungeon` maps, a
sighting sent to a whole team), and :func:`sat_traps_span` says where a `sat` line's clauses
lie, for the match log that cuts them out. All the byte layout of a message lives here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import msgspec

from protocol.errors import ErrorCause, LocalProtocolError, diagnose, tag_of, unencodable
from protocol.messages import MESSAGE_TYPES, Dungeon, Enemy, Message, Sat

__all__ = ["encode", "encode_checked", "encode_lines", "sat_traps_span"]

_ENCODER: Final = msgspec.json.Encoder()


def _check_twin(cls: type[Message]) -> type:
    """A struct with ``cls``'s fields, constraints and tag but no ``__post_init__``: decoding
    into it checks a line exactly as decoding into ``cls`` does, without building the message.

    The messages' ``__post_init__`` copies arrays into tuples: most of a checked send's cost,
    which the twin does not pay.
    """
    config = cls.__struct_config__
    fields = [
        (field.name, field.type)
        if field.default is msgspec.NODEFAULT
        else (field.name, field.type, field.default)
        for field in msgspec.structs.fields(cls)
    ]
    return msgspec.defstruct(
        f"{cls.__name__}Check",
        fields,
        tag_field=config.tag_field,
        tag=config.tag,
        omit_defaults=config.omit_defaults,
        frozen=True,
        gc=False,
    )


# Each outgoing line is decoded again with the peer's rules before it is sent.
_CHECK_DECODERS: Final[dict[type[Message], msgspec.json.Decoder[Any]]] = {
    cls: msgspec.json.Decoder(_check_twin(cls)) for cls in MESSAGE_TYPES
}


#: How a `sat` line's clauses begin: `{"type":"sat","to":N,"switches":N,"traps":[[l,l,l],...]}`
#: (the encoder's field order, no spaces), so "traps" is its last member.
_TRAPS_KEY: Final = b',"traps":'
_INT_CHARS: Final = b"0123456789-"


def sat_traps_span(line: bytes) -> tuple[int, int] | None:
    """Where the JSON of a `sat` line's clauses starts and ends in ``line`` (the encoder's line,
    its newline allowed); None when ``line`` is not laid out so. The check of an outgoing `sat`
    and the match log (which cuts a trap problem's clauses from its `sat`) both read it here."""
    key = line.find(_TRAPS_KEY)
    end = len(line) - (2 if line.endswith(b"}\n") else 1)
    if key < 0 or line[end : end + 1] != b"}":
        return None
    return key + len(_TRAPS_KEY), end


def _sat_is_valid(body: bytes) -> bool:
    """True if the peer's rules accept ``body``, the encoder's line for a `sat`; False means
    "not shown this way" (the full check decides). Decoding the clauses again would be most of
    a `sat`'s sending cost.

    The head is checked by the real decoder with the clauses left out. The clauses' text, with
    the characters of integers deleted, must be exactly ``[[,,],...,[,,]]``: the encoder writes
    an int (of any size, which the decoder reads back) as ``-?[0-9]+``, and anything else (a
    float, a bool, null, a string, a list of another length) leaves other characters or shape.
    """
    span = sat_traps_span(body)
    if span is None:
        return False
    start, end = span
    shape = body[start:end].translate(None, _INT_CHARS)
    clauses = shape.count(b"[") - 1
    if shape != (b"[" + b"[,,]," * (clauses - 1) + b"[,,]]" if clauses > 0 else b"[]"):
        return False
    try:
        _CHECK_DECODERS[Sat].decode(body[:start] + b"[]}")
    except msgspec.DecodeError:
        return False
    return True


def encode_checked(message: object, allowed: tuple[type[Message], ...]) -> bytes:
    """``message`` as one JSON line, after checking it is a valid message of an allowed kind."""
    cls = type(message)
    if cls not in allowed:
        names = ", ".join(kind.__name__ for kind in allowed)
        raise LocalProtocolError(
            f"cannot send {cls.__name__}: expected one of {names}", ErrorCause.NOT_A_MESSAGE
        )
    try:
        body = _ENCODER.encode(message)
    except (TypeError, ValueError, OverflowError) as exc:
        raise unencodable(tag_of(cls), cls, message, exc) from exc
    if cls is Sat and _sat_is_valid(body):
        return body + b"\n"
    try:
        _CHECK_DECODERS[cls].decode(body)
    except (msgspec.DecodeError, RecursionError) as exc:
        tag = tag_of(cls)  # only for the error: not looked up on every send
        error = diagnose(body, {tag: cls}, exc, LocalProtocolError)
        raise LocalProtocolError(
            f"cannot send invalid {error.text}",
            error.cause,
            message_type=tag,
            field=error.field,
        ) from exc
    return body + b"\n"


def encode(message: Message) -> bytes:
    """One message as one checked JSON line (with its ``\\n``), for one-off use."""
    return encode_checked(message, MESSAGE_TYPES)


def encode_lines(messages: Sequence[Message]) -> list[bytes]:
    """Each of ``messages`` as its checked line, in order: the bytes :func:`encode` gives each,
    with the work shared where messages share bytes.

    - The `dungeon` lines of a match's begin differ only in ``team`` and ``agent``, the first
      fields of the line: the first is encoded and checked, the others reuse its tail (one
      1000-node map is ~90 KB; encoding and checking it twelve times was most of a begin).
    - A sighting sent to a whole team (the enemy heir moved) is encoded once, not per agent.
    """
    lines: list[bytes] = []
    sightings: dict[Enemy, bytes] = {}  # frozen structs: hashed by value
    first: Dungeon | None = None
    tail = b""
    for message in messages:
        if type(message) is Enemy:
            line = sightings.get(message)
            if line is None:
                line = sightings[message] = encode(message)
        elif type(message) is Dungeon:
            line = _encode_dungeon(message, first, tail)
            if first is None:
                first, tail = message, line[len(_dungeon_head(message)) :]
        else:
            line = encode(message)
        lines.append(line)
    return lines


def _dungeon_head(message: Dungeon) -> bytes:
    return b'{"type":"dungeon","team":%d,"agent":%d,' % (message.team, message.agent)


def _encode_dungeon(message: Dungeon, first: Dungeon | None, tail: bytes) -> bytes:
    """``message``'s line: ``first``'s checked ``tail`` behind its own head when it shows the
    same map, else encoded (and checked) in full."""
    if first is not None and (message.nodes, message.edges, message.start, message.shrine) == (
        first.nodes, first.edges, first.start, first.shrine
    ):  # fmt: skip
        return _dungeon_head(message) + tail
    line = encode(message)
    if not line.startswith(_dungeon_head(message)):
        raise LocalProtocolError(
            f"unexpected dungeon encoding: {line[:60]!r}", ErrorCause.NOT_A_MESSAGE
        )
    return line
