"""The settings of ``arena check-client``'s probe (:mod:`server.probe`) and its pure checks of
what a program sends: a valid first ``start`` on each socket, a legal move.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass

from dungeon.config import DEFAULT_RULES, RulesConfig
from dungeon.generation import Dungeon
from protocol.codec import RemoteProtocolError
from protocol.errors import ErrorCode
from protocol.messages import Message, Start

__all__ = ["ProbeConfig", "illegal_move", "start_fault"]


@dataclass(frozen=True)
class ProbeConfig:
    team: int = 0
    match: str = "check"
    token: str | None = None
    seed: int = 1
    rules: RulesConfig = DEFAULT_RULES
    start_timeout: float = 10.0
    #: pieces of this many bytes the `dungeon` line is written in
    chunk: int = 1500
    #: `enemy` lines of the flood each socket gets (about 55 bytes each)
    flood_lines: int = 20000
    flood_timeout: float = 15.0
    #: seconds the killed and the refused agent have to move again before game_over
    grace: float = 3.0
    #: the longest the match runs (then game_over, a draw)
    play_seconds: float = 30.0
    #: a sat unanswered this long at game_over is a fault
    sat_timeout: float = 5.0
    #: a kernel send buffer this small makes a program that stops reading show quickly
    send_buffer: int = 32768


def start_fault(
    first: Message | RemoteProtocolError | None, config: ProbeConfig, started: Container[int]
) -> str | None:
    """Why ``first`` (None: nothing within ``config.start_timeout``) is not a valid start of a
    socket of the probed team, the agents in ``started`` having started already; None if it is."""
    if first is None:
        return f"no start within {config.start_timeout:g} s (or the socket closed)"
    if isinstance(first, RemoteProtocolError):
        return f"the first line is not a valid start: {first.text}"
    if not isinstance(first, Start):
        return f"the first line is a {type(first).__name__.lower()}, not a start"
    if first.team != config.team:
        return f"start for team {first.team}, but the program was told team {config.team}"
    if first.match != config.match:
        return f"start for match {first.match!r}, but the program was told {config.match!r}"
    if first.token != config.token:
        told = "no token" if config.token is None else "a token"
        return f"start with token {first.token!r}, but the program was given {told}"
    if first.agent in started:
        return f"a second start for agent {first.agent}"
    return None


def illegal_move(
    dungeon: Dungeon, enemy: int, location: int, committed: int | None, to: int
) -> tuple[ErrorCode, str] | None:
    """Why an agent on ``location`` (committed to cross to ``committed``, or None) may not move
    to ``to``, with the error code the server answers; None when the move is legal."""
    if committed is not None:
        return ErrorCode.ALREADY_COMMITTED, f"move to {to} while committed to {committed}"
    if not 0 <= to < dungeon.node_count:
        return ErrorCode.NO_SUCH_NODE, f"there is no node {to}"
    if to not in dungeon.adjacency[location]:
        return ErrorCode.NOT_ADJACENT, f"node {to} is not adjacent to its node {location}"
    if to == dungeon.start[enemy]:
        return ErrorCode.ENEMY_START, f"node {to} is the other team's start"
    if to == dungeon.shrine[enemy]:
        return ErrorCode.ENEMY_SHRINE, f"node {to} is the other team's shrine"
    return None
