"""What can go wrong on the dungeon wire, and how to say it (spec dungeon.md section 4).

:class:`RemoteProtocolError` is the peer's fault, :class:`LocalProtocolError` ours (both of
:mod:`protocol.framing`, every game's); on this wire both carry an :class:`ErrorCause`, and a
peer's error is ``fatal`` when its cause is one of :data:`FATAL_CAUSES` (the spec closes the
socket) and answered with the code :func:`code_of` gives. The codec (:mod:`protocol.codec`)
decodes each line with one fast typed msgspec call; only when that fails does :func:`diagnose`
look at the line again, slowly, to name the cause precisely: is it JSON, an object, of a known
type, which field is wrong and how. The text it builds is a sentence fit for an
``Error(message=...)`` sent back to the peer."""

from __future__ import annotations

import enum
import re
import typing
from typing import Annotated, Final

import msgspec

from protocol.framing import LocalProtocolError, ProtocolError, RemoteProtocolError
from protocol.messages import MESSAGE_TYPES, Message

__all__ = [
    "CLOSING_CODES",
    "CODE_OF_CAUSE",
    "ERROR_CODES",
    "FATAL_CAUSES",
    "ErrorCause",
    "ErrorCode",
    "LocalProtocolError",
    "ProtocolError",
    "RemoteProtocolError",
    "code_of",
    "diagnose",
    "tag_of",
    "unencodable",
]


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


class ErrorCode(enum.StrEnum):
    """The ``code`` of an ``error`` message: a stable snake_case word a program can test (spec
    section 4); the ``message`` beside it is for people."""

    # A line the codec refused (see CODE_OF_CAUSE).
    BAD_JSON = "bad_json"  # not JSON, or not UTF-8: the socket is closed
    LINE_TOO_LONG = "line_too_long"  # over the line limit: the socket is closed
    INCOMPLETE_LINE = "incomplete_line"  # the stream ended in the middle of a line
    NOT_AN_OBJECT = "not_an_object"
    MISSING_TYPE = "missing_type"
    UNKNOWN_TYPE = "unknown_type"
    MISSING_FIELD = "missing_field"
    BAD_FIELD = "bad_field"
    # The socket's session.
    START_REQUIRED = "start_required"  # the first line is not a start: the socket is closed
    START_TIMEOUT = "start_timeout"  # no valid start in time: the socket is closed
    SLOT_TAKEN = "slot_taken"  # the slot (or the named match) is taken; send another start
    ALREADY_STARTED = "already_started"  # a start on a socket that already holds a slot
    NOT_STARTED = "not_started"  # a request before this socket's start took a slot
    NOT_BEGUN = "not_begun"  # a request held before `dungeon`, answered right after it
    TOO_MANY_EARLY = "too_many_early"  # too many lines before `dungeon`: the socket is closed
    IDLE_TIMEOUT = "idle_timeout"  # silent past the idle limit: the socket is closed
    SERVER_FULL = "server_full"  # the connection cap or input budget is reached: closed
    ERROR_LIMIT = "error_limit"  # the error that reaches the limit (its text keeps the cause)
    BAD_TOKEN = "bad_token"  # the named match needs this team's token: missing or wrong
    # The rules (the engine's answers to a request).
    MATCH_OVER = "match_over"
    ALREADY_COMMITTED = "already_committed"  # a move while committed to another
    NO_SUCH_NODE = "no_such_node"
    NOT_ADJACENT = "not_adjacent"
    ENEMY_START = "enemy_start"
    ENEMY_SHRINE = "enemy_shrine"
    NOT_COMMITTED = "not_committed"  # a solution without a move first
    WRONG_LENGTH = "wrong_length"  # a solution with not one value per switch


FATAL_CAUSES: Final = frozenset(
    {ErrorCause.NOT_JSON, ErrorCause.LINE_TOO_LONG, ErrorCause.INCOMPLETE_LINE}
)
"""Causes after which the spec wants the socket closed (once the error has been sent)."""

CODE_OF_CAUSE: Final = {
    ErrorCause.NOT_JSON: ErrorCode.BAD_JSON,
    ErrorCause.LINE_TOO_LONG: ErrorCode.LINE_TOO_LONG,
    ErrorCause.INCOMPLETE_LINE: ErrorCode.INCOMPLETE_LINE,
    ErrorCause.NOT_AN_OBJECT: ErrorCode.NOT_AN_OBJECT,
    ErrorCause.MISSING_TYPE: ErrorCode.MISSING_TYPE,
    ErrorCause.UNKNOWN_TYPE: ErrorCode.UNKNOWN_TYPE,
    ErrorCause.MISSING_FIELD: ErrorCode.MISSING_FIELD,
    ErrorCause.BAD_FIELD: ErrorCode.BAD_FIELD,
}
"""The ``code`` sent to a peer for each cause of a refused line."""

ERROR_CODES: Final[dict[ErrorCode, str]] = {
    ErrorCode.BAD_JSON: "the line is not valid UTF-8 JSON",
    ErrorCode.LINE_TOO_LONG: "the line is over 1 MiB (not counting the newline)",
    ErrorCode.INCOMPLETE_LINE: "the stream ended in the middle of a line",
    ErrorCode.NOT_AN_OBJECT: "the line is JSON but not an object (a list, a string, a number...)",
    ErrorCode.MISSING_TYPE: "the object has no `type` field",
    ErrorCode.UNKNOWN_TYPE: "`type` is not `start`, `move` or `solution`",
    ErrorCode.MISSING_FIELD: "a required field of that message is absent",
    ErrorCode.BAD_FIELD: "a field has the wrong JSON type or an out-of-range value",
    ErrorCode.START_REQUIRED: "the socket's first line is not a `start`",
    ErrorCode.START_TIMEOUT: "no valid `start` within 10 s of connecting",
    ErrorCode.SLOT_TAKEN: "another socket holds that team and agent of that match, or the named "
    "match is already being played",
    ErrorCode.BAD_TOKEN: "the named match requires this team's `token`: it is missing or wrong "
    "(the slot stays free)",
    ErrorCode.ALREADY_STARTED: "a second `start` on a socket that already holds a slot",
    ErrorCode.NOT_STARTED: "a `move` or `solution` before this socket's `start` took a slot",
    ErrorCode.NOT_BEGUN: "a request sent before `dungeon` (answered right after `dungeon`)",
    ErrorCode.TOO_MANY_EARLY: "more than 16 lines (blank ones too) between `start` and `dungeon`",
    ErrorCode.IDLE_TIMEOUT: "nothing received from the socket for the idle limit (600 s)",
    ErrorCode.SERVER_FULL: "the server's connection cap or input budget is reached",
    ErrorCode.ERROR_LIMIT: "the 100th error on this socket (its message keeps the cause)",
    ErrorCode.MATCH_OVER: "a request after the match ended",
    ErrorCode.ALREADY_COMMITTED: "a `move` while the agent is committed to another move",
    ErrorCode.NO_SUCH_NODE: "`to` is not a node of the dungeon",
    ErrorCode.NOT_ADJACENT: "`to` is not adjacent to the agent's node",
    ErrorCode.ENEMY_START: "`to` is the other team's start",
    ErrorCode.ENEMY_SHRINE: "`to` is the other team's shrine",
    ErrorCode.NOT_COMMITTED: "a `solution` while the agent is not committed to a move (also "
    "when an enemy killed it after its `sat`)",
    ErrorCode.WRONG_LENGTH: "the `assignment` does not have exactly one bool per switch",
}
"""What each code means, in the words of docs/protocol.md (generated from this table)."""

CLOSING_CODES: Final = frozenset(
    {
        ErrorCode.BAD_JSON,
        ErrorCode.LINE_TOO_LONG,
        ErrorCode.INCOMPLETE_LINE,
        ErrorCode.START_REQUIRED,
        ErrorCode.START_TIMEOUT,
        ErrorCode.TOO_MANY_EARLY,
        ErrorCode.IDLE_TIMEOUT,
        ErrorCode.SERVER_FULL,
        ErrorCode.ERROR_LIMIT,
    }
)
"""Codes after which the server closes the socket (once the error has been sent)."""


def code_of(error: ProtocolError) -> str:
    """The ``code`` of the ``error`` message that answers a peer's ``error``."""
    return CODE_OF_CAUSE.get(ErrorCause(error.cause), ErrorCode.BAD_FIELD).value


# --- diagnosing a refused line or an unsendable message ------------------------------------------

_RAW_DECODER: Final = msgspec.json.Decoder(msgspec.Raw)
_OBJECT_DECODER: Final = msgspec.json.Decoder(dict[str, msgspec.Raw])
_STR_DECODER: Final = msgspec.json.Decoder(str)
_ENCODER: Final = msgspec.json.Encoder()
_PATH = re.compile(r"^(?P<detail>.*) - at `\$(?P<path>.*)`$", re.DOTALL)
_SHOWN_VALUE_CHARS: Final = 40
_Error = typing.TypeVar("_Error", bound=ProtocolError)


class _Field(typing.NamedTuple):
    """One field of a message kind, with a decoder that checks that field alone."""

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


def tag_of(cls: type[Message]) -> str:
    """The ``"type"`` value of a message class (``Move``: ``"move"``)."""
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
_CLASS_BY_TAG: Final = {tag_of(cls): cls for cls in MESSAGE_TYPES}


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


def diagnose(
    line: bytes,
    accepted: dict[str, type[Message]],
    error: Exception,
    error_type: type[_Error],
) -> _Error:
    """The precise error for a ``line`` the typed decoder refused with ``error``; ``fatal``
    when the spec closes the socket for its cause."""
    found = _diagnosis(line, accepted, error, error_type)
    found.fatal = found.cause in FATAL_CAUSES
    return found


def _diagnosis(
    line: bytes,
    accepted: dict[str, type[Message]],
    error: Exception,
    error_type: type[_Error],
) -> _Error:
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


def unencodable(tag: str, cls: type[Message], message: object, exc: Exception) -> ProtocolError:
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
