"""A sans-I/O JSON Lines codec for the dungeon protocol (spec dungeon.md section 4).

The codec never touches a socket: the caller feeds it the bytes it read, in any chunking
(``receive_data``; ``b""`` means the peer closed), takes messages out (``next_message``, which
returns :data:`NEED_DATA` when no complete line is buffered), and turns its own messages into
bytes to write (``send``). The server and a client use the same class, in opposite directions::

    codec = Codec(accept=ClientMessage)          # a server socket; a client: accept=ServerMessage
    codec.receive_data(await stream.receive_some())
    while (message := codec.next_message()) is not NEED_DATA:
        ...                                      # may raise RemoteProtocolError, see below
    await stream.send_all(codec.send(Moved(...)))

Framing. A line ends at ``\\n``; a ``\\r`` before it is tolerated (``\\r\\n`` endings), and so
is any JSON whitespace around the object. Blank lines are skipped. A line may hold at most
``max_line`` bytes (1 MiB), not counting its ``\\n`` or ``\\r\\n``. A longer line is reported as
soon as the unfinished line passes the limit, without buffering the rest: the codec then drops
bytes up to the next ``\\n`` and goes on from there.

Errors. ``next_message`` raises :class:`RemoteProtocolError` for anything the peer got wrong,
and nothing else, whatever the bytes. Its ``cause`` (an :class:`ErrorCause`) says what, its
``fatal`` flag says whether the spec wants the socket closed (a line that is not JSON, not UTF-8
or too long; a line cut off by the end of the stream), and its text names the field
("move: field 'to' must be an int >= 0, got str \\"a\\""). The codec stays usable after any error:
the next call goes on with the next line. :class:`LocalProtocolError` is our own misuse (sending
something that is not a valid message of our direction, feeding data after the end).

End of stream. After ``receive_data(b"")`` the complete lines still buffered come out as usual;
then, if the stream ended in the middle of a non-blank line, one fatal ``incomplete_line`` error;
then ``NEED_DATA`` for ever (check :attr:`Codec.eof` to stop reading).

Sending. ``send``/``encode`` check every outgoing message against the same rules a peer's
decoder applies, so we never put on the wire a line the other side would reject (a numpy
integer, an agent number 7, a NaN coordinate are our bugs, reported as LocalProtocolError).
"""

from __future__ import annotations

import enum
import re
import typing
from collections import deque
from typing import Annotated, Final

import msgspec

from protocol.messages import (
    CLIENT_MESSAGE_TYPES,
    MESSAGE_TYPES,
    SERVER_MESSAGE_TYPES,
    Message,
)

__all__ = [
    "FATAL_CAUSES",
    "MAX_LINE",
    "NEED_DATA",
    "Codec",
    "ErrorCause",
    "LocalProtocolError",
    "NeedData",
    "ProtocolError",
    "RemoteProtocolError",
    "encode",
]

MAX_LINE: Final = 1 << 20
"""The longest line a peer may send, in bytes, not counting the newline (spec: 1 MiB)."""


class NeedData(enum.Enum):
    """The type of :data:`NEED_DATA` (an enum, so ``is NEED_DATA`` narrows the type for mypy)."""

    NEED_DATA = "NEED_DATA"


NEED_DATA: Final = NeedData.NEED_DATA
"""Returned by ``next_message`` when no complete line is buffered: feed more bytes."""


class ErrorCause(enum.StrEnum):
    """Why a line (or a call) was refused. A ``StrEnum``: ``error.cause == "not_json"`` works."""

    NOT_JSON = "not_json"  # not valid JSON or not valid UTF-8
    LINE_TOO_LONG = "line_too_long"  # over max_line bytes before the newline
    INCOMPLETE_LINE = "incomplete_line"  # the stream ended in the middle of a line
    NOT_AN_OBJECT = "not_an_object"  # valid JSON, but an array, a string, a number...
    MISSING_TYPE = "missing_type"  # an object without a "type" field
    UNKNOWN_TYPE = "unknown_type"  # "type" is not a message kind this side accepts
    MISSING_FIELD = "missing_field"  # a required field of that kind is absent
    BAD_FIELD = "bad_field"  # a field has the wrong JSON type or an out-of-range value
    # Local misuse only:
    NOT_A_MESSAGE = "not_a_message"  # send() of something that is not a message of our side
    DATA_AFTER_EOF = "data_after_eof"  # receive_data() after receive_data(b"")
    BAD_ARGUMENT = "bad_argument"  # a Codec built with a wrong accept or max_line


FATAL_CAUSES: Final = frozenset(
    {ErrorCause.NOT_JSON, ErrorCause.LINE_TOO_LONG, ErrorCause.INCOMPLETE_LINE}
)
"""Causes after which the spec wants the socket closed (once the error has been sent)."""


class ProtocolError(Exception):
    """A refused line or call. ``message_type`` and ``field`` are set when they are known."""

    def __init__(
        self,
        text: str,
        cause: ErrorCause,
        *,
        message_type: str | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(text)
        self.text = text
        self.cause = cause
        self.message_type = message_type
        self.field = field

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text!r}, cause={self.cause.value!r})"


class RemoteProtocolError(ProtocolError):
    """The peer sent something the protocol does not allow (its fault, not ours)."""

    @property
    def fatal(self) -> bool:
        """True when the spec wants the socket closed after answering this error."""
        return self.cause in FATAL_CAUSES


class LocalProtocolError(ProtocolError):
    """We misused the protocol (a bug on our side): e.g. sending an invalid message."""


# --- diagnosing a refused line -----------------------------------------------------------------
#
# The fast path is one typed msgspec decode. Only when it fails do we look again, slowly, to say
# precisely why: is the line JSON, an object, with a known type, which field is wrong and how.

_RAW_DECODER: Final = msgspec.json.Decoder(msgspec.Raw)
_OBJECT_DECODER: Final = msgspec.json.Decoder(dict[str, msgspec.Raw])
_STR_DECODER: Final = msgspec.json.Decoder(str)
_ENCODER: Final = msgspec.json.Encoder()
_PATH = re.compile(r"^(?P<detail>.*) - at `\$(?P<path>.*)`$", re.DOTALL)
_SHOWN_VALUE_CHARS: Final = 40
_Error = typing.TypeVar("_Error", bound=ProtocolError)


class _Field(typing.NamedTuple):
    name: str
    required: bool
    description: str | None
    decoder: msgspec.json.Decoder[object]


def _description(annotation: object) -> str | None:
    """The ``Meta(description=...)`` of a field's outermost ``Annotated``, if any."""
    if typing.get_origin(annotation) is not Annotated:
        return None
    for meta in reversed(getattr(annotation, "__metadata__", ())):
        if isinstance(meta, msgspec.Meta) and meta.description:
            return meta.description
    return None


def _tag(cls: type[Message]) -> str:
    tag = cls.__struct_config__.tag
    assert isinstance(tag, str)  # every message type declares a str tag (messages.py)
    return tag


_FIELDS: Final[dict[type[Message], tuple[_Field, ...]]] = {
    cls: tuple(
        _Field(
            name=info.encode_name,
            required=info.required,
            description=_description(info.type),
            decoder=msgspec.json.Decoder(info.type),
        )
        for info in msgspec.structs.fields(cls)
    )
    for cls in MESSAGE_TYPES
}
_CLASS_BY_TAG: Final = {_tag(cls): cls for cls in MESSAGE_TYPES}
_CHECK_DECODERS: Final = {cls: msgspec.json.Decoder(cls) for cls in MESSAGE_TYPES}


def _describe_json(raw: bytes) -> str:
    """A short description of a JSON value for an error message: its type, and its text if small."""
    text = raw.strip()
    first = text[:1]
    if first == b"{":
        return "object"
    if first == b"[":
        return "list"
    if text == b"null":
        return "null"
    if first == b'"':
        kind = "str"
    elif text in (b"true", b"false"):
        kind = "bool"
    elif any(char in text for char in b".eE"):
        kind = "float"
    else:
        kind = "int"
    shown = text.decode("utf-8", errors="replace")
    if len(shown) > _SHOWN_VALUE_CHARS:
        shown = shown[: _SHOWN_VALUE_CHARS - 3] + "..."
    return f"{kind} {shown}"


def _not_json(line: bytes) -> tuple[ErrorCause, str] | None:
    """Why ``line`` is not a JSON text (bad UTF-8, bad syntax, too deep), or None if it is one."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ErrorCause.NOT_JSON, f"line is not valid UTF-8 (byte {exc.start})"
    try:
        _RAW_DECODER.decode(line)
    except msgspec.ValidationError:
        pass  # a number out of range: still JSON text
    except msgspec.DecodeError as exc:
        return ErrorCause.NOT_JSON, f"line is not valid JSON: {exc}"
    except RecursionError:
        return ErrorCause.NOT_JSON, "line is not valid JSON: nested too deeply"
    return None


def _diagnose(
    line: bytes,
    accepted: dict[str, type[Message]],
    error: Exception,
    error_type: type[_Error],
) -> _Error:
    """The precise error for a ``line`` the typed decoder refused with ``error``."""
    not_json = _not_json(line)
    if not_json is not None:
        return error_type(not_json[1], not_json[0])
    try:
        fields = _OBJECT_DECODER.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return error_type(
            f"expected a JSON object, got {_describe_json(line)}", ErrorCause.NOT_AN_OBJECT
        )
    if "type" not in fields:
        return error_type("object has no 'type' field", ErrorCause.MISSING_TYPE, field="type")
    raw_type = bytes(fields["type"])
    expected = ", ".join(accepted)
    try:
        tag = _STR_DECODER.decode(raw_type)
    except (msgspec.DecodeError, RecursionError):
        return error_type(
            f"field 'type' must be a string, one of {expected}; got {_describe_json(raw_type)}",
            ErrorCause.UNKNOWN_TYPE,
            field="type",
        )
    cls = accepted.get(tag)
    if cls is None:
        known = " (a message of the other direction)" if tag in _CLASS_BY_TAG else ""
        return error_type(
            f"unknown message type {tag!r}{known}; expected one of {expected}",
            ErrorCause.UNKNOWN_TYPE,
            message_type=tag,
        )
    for field in _FIELDS[cls]:
        if field.name not in fields:
            if field.required:
                return error_type(
                    f"{tag}: field '{field.name}' is missing",
                    ErrorCause.MISSING_FIELD,
                    message_type=tag,
                    field=field.name,
                )
            continue
        raw = bytes(fields[field.name])
        try:
            field.decoder.decode(raw)
        except (msgspec.DecodeError, RecursionError) as exc:
            return error_type(
                _field_text(tag, field, raw, exc),
                ErrorCause.BAD_FIELD,
                message_type=tag,
                field=field.name,
            )
    # Every field passes on its own but the whole did not: say what msgspec said.
    return error_type(f"{tag}: {error}", ErrorCause.BAD_FIELD, message_type=tag)


def _field_text(tag: str, field: _Field, raw: bytes, exc: Exception) -> str:
    """``move: field 'to' must be an int >= 0, got str "a"``, with the inner path if nested."""
    detail = str(exc)
    match = _PATH.match(detail)
    where = ""
    if match is not None and match["path"]:
        where = f" ({match['detail']} at {field.name}{match['path']})"
    elif match is not None:
        detail = match["detail"]
    wanted = field.description or detail
    return f"{tag}: field '{field.name}' must be {wanted}, got {_describe_json(raw)}{where}"


# --- encoding -----------------------------------------------------------------------------------


def _encode_checked(message: object, allowed: tuple[type[Message], ...]) -> bytes:
    """``message`` as one JSON line, after checking it is a valid message of an allowed kind."""
    cls = type(message)
    if cls not in allowed:
        names = ", ".join(kind.__name__ for kind in allowed)
        raise LocalProtocolError(
            f"cannot send {cls.__name__}: expected one of {names}", ErrorCause.NOT_A_MESSAGE
        )
    tag = _tag(cls)
    try:
        body = _ENCODER.encode(message)
    except (TypeError, ValueError, OverflowError) as exc:
        raise _unencodable(tag, cls, message, exc) from exc
    try:
        _CHECK_DECODERS[cls].decode(body)
    except (msgspec.DecodeError, RecursionError) as exc:
        error = _diagnose(body, {tag: cls}, exc, LocalProtocolError)
        raise LocalProtocolError(
            f"cannot send invalid {error.text}",
            error.cause,
            message_type=tag,
            field=error.field,
        ) from exc
    return body + b"\n"


def _unencodable(tag: str, cls: type[Message], message: object, exc: Exception) -> ProtocolError:
    """The error for a message holding a value JSON cannot carry (a numpy int, a set...)."""
    for field in _FIELDS[cls]:
        try:
            _ENCODER.encode(getattr(message, field.name))
        except (TypeError, ValueError, OverflowError) as field_exc:
            return LocalProtocolError(
                f"cannot send {tag}: field '{field.name}' cannot be encoded ({field_exc})",
                ErrorCause.BAD_FIELD,
                message_type=tag,
                field=field.name,
            )
    return LocalProtocolError(f"cannot send {tag}: {exc}", ErrorCause.BAD_FIELD, message_type=tag)


def encode(message: Message) -> bytes:
    """One message as one checked JSON line (with its ``\\n``), for one-off use."""
    return _encode_checked(message, MESSAGE_TYPES)


# --- the codec ----------------------------------------------------------------------------------


def _accepted_classes(accept: object) -> tuple[type[Message], ...]:
    """The message classes named by ``accept``: one message class or a union of them."""
    classes = (accept,) if isinstance(accept, type) else typing.get_args(accept)
    if not classes or any(cls not in MESSAGE_TYPES for cls in classes):
        raise LocalProtocolError(
            f"accept must be a message class or a union of them, got {accept!r}",
            ErrorCause.BAD_ARGUMENT,
        )
    return tuple(cls for cls in MESSAGE_TYPES if cls in classes)


class Codec:
    """One socket's JSON Lines framing and message (de)coding, without any I/O.

    ``accept`` is what the peer may send: ``ClientMessage`` on the server, ``ServerMessage`` on a
    client (any message class or union of them works). What we may send is the other direction's
    messages (any message at all if ``accept`` is neither union).
    """

    def __init__(self, accept: object, *, max_line: int = MAX_LINE) -> None:
        if not isinstance(max_line, int) or isinstance(max_line, bool) or max_line < 1:
            raise LocalProtocolError(
                f"max_line must be an int >= 1, got {max_line!r}", ErrorCause.BAD_ARGUMENT
            )
        classes = _accepted_classes(accept)
        self._accepted: Final = {_tag(cls): cls for cls in classes}
        self._decoder: Final = msgspec.json.Decoder(accept)
        if set(classes) == set(CLIENT_MESSAGE_TYPES):
            self._outgoing: tuple[type[Message], ...] = SERVER_MESSAGE_TYPES
        elif set(classes) == set(SERVER_MESSAGE_TYPES):
            self._outgoing = CLIENT_MESSAGE_TYPES
        else:
            self._outgoing = MESSAGE_TYPES
        self._max_line: Final = max_line
        # Complete lines (without their "\n") and queued errors, in stream order.
        self._lines: deque[bytes | RemoteProtocolError] = deque()
        self._partial = bytearray()  # the unfinished last line
        self._discarding = False  # inside an over-long line: drop bytes up to the next "\n"
        self._eof = False

    @property
    def eof(self) -> bool:
        """True once ``receive_data(b"")`` told us the peer closed its side."""
        return self._eof

    @property
    def buffered_bytes(self) -> int:
        """Bytes held for the unfinished line (never more than ``max_line`` + 1)."""
        return len(self._partial)

    def receive_data(self, data: bytes | bytearray | memoryview) -> None:
        """Feed bytes read from the socket, in any chunking; ``b""`` means the peer closed.

        Feeding more bytes after ``b""`` is LocalProtocolError; ``b""`` again is harmless.
        """
        if self._eof:
            if not data:
                return  # the end, told again
            raise LocalProtocolError(
                "receive_data() after the end of the stream", ErrorCause.DATA_AFTER_EOF
            )
        if not data:
            self._eof = True
            if self._partial.strip():
                self._lines.append(
                    RemoteProtocolError(
                        f"the stream ended in the middle of a line ({len(self._partial)} bytes"
                        " without a newline)",
                        ErrorCause.INCOMPLETE_LINE,
                    )
                )
            self._partial.clear()
            return
        parts = bytes(data).split(b"\n")
        last = parts.pop()
        if parts:
            first = parts[0]
            if self._discarding:
                self._discarding = False
                parts[0] = b""  # the rest of the over-long line: dropped, blank lines are skipped
            elif self._partial:
                self._partial += first
                parts[0] = bytes(self._partial)
                self._partial.clear()
            for line in parts:
                if self._too_long(line):
                    self._lines.append(self._too_long_error())
                else:
                    self._lines.append(line)
        if self._discarding:
            return
        # Checked before appending, so an over-long line is never held beyond the limit.
        size = len(self._partial) + len(last)
        ends_in_cr = (last or self._partial).endswith(b"\r")
        if size > self._max_line + 1 or (size == self._max_line + 1 and not ends_in_cr):
            self._lines.append(self._too_long_error())
            self._partial.clear()
            self._discarding = True
        else:
            self._partial += last

    def _too_long(self, line: bytes | bytearray) -> bool:
        # A line may carry one "\r" of a "\r\n" ending beyond the limit.
        size = len(line)
        return size > self._max_line and not (size == self._max_line + 1 and line.endswith(b"\r"))

    def _too_long_error(self) -> RemoteProtocolError:
        return RemoteProtocolError(
            f"line longer than {self._max_line} bytes", ErrorCause.LINE_TOO_LONG
        )

    def next_message(self) -> Message | NeedData:
        """The next message the peer sent, or ``NEED_DATA``; raises only RemoteProtocolError."""
        lines = self._lines
        while lines:
            line = lines.popleft()
            if isinstance(line, RemoteProtocolError):
                raise line
            try:
                if line.isascii() or _is_utf8(line):
                    message: Message = self._decoder.decode(line)
                    return message
                error: Exception = UnicodeError("not UTF-8")
            except (msgspec.DecodeError, RecursionError) as exc:
                error = exc
            if not line.strip():
                continue  # a blank line (or "\r" alone): skipped
            raise _diagnose(line, self._accepted, error, RemoteProtocolError)
        return NEED_DATA

    def send(self, message: Message) -> bytes:
        """The bytes to write for ``message`` (one line); LocalProtocolError if it is invalid."""
        return _encode_checked(message, self._outgoing)


def _is_utf8(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
