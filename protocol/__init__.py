"""Every game's wire, pure (sans-I/O: bytes in, messages out, messages to bytes; no sockets).

The dungeon's JSON Lines: :mod:`protocol.messages` (the message types), :mod:`protocol.codec`
(the codec), :mod:`protocol.encoding` (each message's checked line), :mod:`protocol.errors`
(error causes and codes), :mod:`protocol.session` (a socket's session rules),
:mod:`protocol.conformance` and :mod:`protocol.docs` (what ``arena check-client`` checks, the
generated tables of docs/protocol.md). The other games: :mod:`protocol.fish` (JSON values back
to back), :mod:`protocol.labyrinth` (the course's 2017 commands and 4-digit-length frames),
:mod:`protocol.penguins` (the board file).

Imports the standard library and msgspec only, and no game. This file imports nothing, so a
program that needs one game's wire (the Penguins player starts in milliseconds) loads only that.
"""
