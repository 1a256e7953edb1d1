"""The generated parts of docs/protocol.md: the message catalogue and the table of error codes.

One source of truth: the tables are built from the message types (:mod:`protocol.messages`, their
fields and the phrases their validators use) and the error catalogue (:mod:`protocol.errors`),
and every example line is encoded by the codec itself, so it is valid by construction. Pure:
:func:`update` takes the page's text and returns it with each generated section rewritten.
``python docs/gen_protocol.py`` rewrites the page in place (``--check``: exit 1 if stale).
"""

from __future__ import annotations

import typing
from typing import Annotated, Final

import msgspec

from protocol.encoding import encode
from protocol.errors import CLOSING_CODES, ERROR_CODES, tag_of
from protocol.messages import (
    CLIENT_MESSAGE_TYPES,
    MESSAGE_TYPES,
    Dungeon,
    Enemy,
    Error,
    GameOver,
    Message,
    Move,
    Moved,
    Sat,
    Solution,
    Start,
)

__all__ = ["EXAMPLES", "SECTIONS", "render", "update"]

#: One example of each message kind, as the page shows it.
EXAMPLES: Final[dict[type[Message], Message]] = {
    Start: Start(team=1, agent=0, match="final", token="k3y-of-team-1"),
    Move: Move(to=417),
    Solution: Solution(assignment=[True, False, False] + [True] * 17),
    Dungeon: Dungeon(
        team=1,
        agent=0,
        nodes=[[0.52, 0.97], [0.55, 0.93], [0.02, 0.51], [0.06, 0.49]],
        edges=[[0, 1], [2, 3]],
        start=[0, 2],
        shrine=[1, 3],
    ),
    Sat: Sat(to=417, switches=20, traps=[[1, -7, 12], [-3, 4, 20], [5, -19, -2]]),
    Moved: Moved(success=True, location=417, killed=[3, -1], reason="crossed"),
    Enemy: Enemy(location=233, agent=-1, seen=True),
    GameOver: GameOver(winner=None),
    Error: Error(code="not_adjacent", message="move: node 9 is not adjacent to your node 417"),
}

_MEANING: Final[dict[type[Message], str]] = {
    Start: "the first line of every socket: which slot of which match it plays",
    Move: "ask to cross the corridor to an adjacent node; answered by `sat` or `error`",
    Solution: "the switches for the pending `sat`; answered by `moved` or `error`",
    Dungeon: "the map, to all twelve sockets at once when the twelfth `start` has arrived",
    Sat: "the trap problem of the corridor you committed to",
    Moved: "where the agent now is: after a `solution`, or when an enemy killed it",
    Enemy: "an enemy agent or an NPC came into view (`seen: true`) or left it",
    GameOver: "the match is over; then the server closes every socket of the match",
    Error: "the answer to an invalid line or request; the request changed nothing",
}

_BEGIN = "<!-- BEGIN GENERATED: {name} (python docs/gen_protocol.py) -->"
_END = "<!-- END GENERATED: {name} -->"


def _description(annotation: object) -> str:
    """The ``Meta(description=...)`` of a field's outermost ``Annotated``, else its type."""
    if typing.get_origin(annotation) is Annotated:
        for meta in reversed(getattr(annotation, "__metadata__", ())):
            if isinstance(meta, msgspec.Meta) and meta.description:
                return meta.description
    return getattr(annotation, "__name__", str(annotation))


def _fields(cls: type[Message]) -> str:
    parts = []
    for info in msgspec.structs.fields(cls):
        optional = "" if info.required else " (optional)"
        parts.append(f"`{info.encode_name}`: {_description(info.type)}{optional}")
    return "<br>".join(parts) if parts else "(none)"


def _messages() -> str:
    rows = ["| direction | `type` | what it is | fields |", "|---|---|---|---|"]
    for cls in MESSAGE_TYPES:
        way = "client -> server" if cls in CLIENT_MESSAGE_TYPES else "server -> client"
        rows.append(f"| {way} | `{tag_of(cls)}` | {_MEANING[cls]} | {_fields(cls)} |")
    rows.append("")
    rows.append("One line of each, exactly as it travels (without the trailing `\\n`):")
    rows.append("")
    rows.append("```")
    rows.extend(encode(EXAMPLES[cls]).decode().rstrip("\n") for cls in MESSAGE_TYPES)
    rows.append("```")
    return "\n".join(rows)


def _errors() -> str:
    rows = ["| `code` | when | the socket |", "|---|---|---|"]
    for code, meaning in ERROR_CODES.items():
        closes = "is closed" if code in CLOSING_CODES else "stays open"
        rows.append(f"| `{code.value}` | {meaning} | {closes} |")
    return "\n".join(rows)


SECTIONS: Final = {"messages": _messages, "errors": _errors}


def render(name: str) -> str:
    """The body of generated section ``name``."""
    return SECTIONS[name]()


def update(text: str) -> str:
    """``text`` with the body of every generated section (between its markers) rewritten.

    Raises ValueError when a section's markers are missing."""
    for name, build in SECTIONS.items():
        begin, end = _BEGIN.format(name=name), _END.format(name=name)
        head, found, rest = text.partition(begin + "\n")
        _, found_end, tail = rest.partition(end)
        if not found or not found_end:
            raise ValueError(f"the page has no generated section {name!r} ({begin} ... {end})")
        text = f"{head}{begin}\n{build()}\n{end}{tail}"
    return text
