"""The dungeon wire protocol: message types (:mod:`protocol.messages`) and the sans-I/O codec."""

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
    "MESSAGE_TYPES",
    "SERVER_MESSAGE_TYPES",
    "ClientMessage",
    "Dungeon",
    "Enemy",
    "Error",
    "GameOver",
    "Message",
    "Move",
    "Moved",
    "Sat",
    "ServerMessage",
    "Solution",
    "Start",
]
