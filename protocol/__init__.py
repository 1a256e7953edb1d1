"""The dungeon wire protocol: message types (:mod:`protocol.messages`), the sans-I/O codec
(:mod:`protocol.codec`) and its checked encoding (:mod:`protocol.encoding`), the error causes
and codes (:mod:`protocol.errors`) and the socket's session rules (:mod:`protocol.session`).
Pure: imports msgspec and the standard library only."""

from protocol.codec import (
    FATAL_CAUSES,
    MAX_LINE,
    NEED_DATA,
    Codec,
    ErrorCause,
    LocalProtocolError,
    NeedData,
    ProtocolError,
    RemoteProtocolError,
)
from protocol.encoding import encode
from protocol.messages import (
    CLIENT_MESSAGE_TYPES,
    MESSAGE_TYPES,
    SERVER_MESSAGE_TYPES,
    ClientMessage,
    Dungeon,
    Enemy,
    Error,
    GameOver,
    Message,
    Move,
    Moved,
    Sat,
    ServerMessage,
    Solution,
    Start,
)

__all__ = [
    "CLIENT_MESSAGE_TYPES",
    "FATAL_CAUSES",
    "MAX_LINE",
    "MESSAGE_TYPES",
    "NEED_DATA",
    "SERVER_MESSAGE_TYPES",
    "ClientMessage",
    "Codec",
    "Dungeon",
    "Enemy",
    "Error",
    "ErrorCause",
    "GameOver",
    "LocalProtocolError",
    "Message",
    "Move",
    "Moved",
    "NeedData",
    "ProtocolError",
    "RemoteProtocolError",
    "Sat",
    "ServerMessage",
    "Solution",
    "Start",
    "encode",
]
