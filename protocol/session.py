"""The dungeon socket's session rules as one pure state machine (spec section 4), for both ends.

Like h11's ``_state.py``: the phases of one socket and a transition table of the events that
move it, with no I/O. The server's connection (:mod:`server.connection`) and the team client
(:mod:`client.team`) each keep one :class:`Session` per socket and tell it what crossed the wire;
what the table does not allow is a :class:`SessionError` (a broken peer, or our own bug).

The phases::

    AWAIT_START --start accepted--> JOINED --dungeon--> FREE --move--> MOVE_SENT --sat--> SAT
        ^  |                          |                  ^  ^            |                 |
        |  +--start refused (error)---+                  |  +--error-----+                 |
        |                                                +--solution answered / error------+
    any phase --game_over--> OVER;  any phase --closed--> CLOSED

(``SAT``: the agent has its trap problem; its solution is sent or on its way.) The server
tracks only the coarse phases (its engine judges the requests), the team client all of them,
for each of its agents. A ``moved`` with reason ``attacked`` (an enemy's arrival killed the
agent) changes no phase: the agent's own request, if any, is still answered; except that a
client holding a ``sat`` it has not answered yet drops it (``voided``: no solution is sent, as
none could be accepted). Requests before ``dungeon`` are held: the server counts them and every
line of the socket (:attr:`Session.early_lines`, blank ones too) against its budget. Errors are
counted when made: the one that reaches the limit makes the session
:attr:`~Session.refused`, and nothing the socket sends after it may reach the match.
"""

from __future__ import annotations

import enum
from typing import Final

__all__ = ["TRANSITIONS", "Event", "Phase", "Session", "SessionError"]


class Phase(enum.Enum):
    AWAIT_START = "await start"  # nothing valid yet: the first line must be a start
    JOINED = "joined"  # the start took a slot; the match is filling (requests are held)
    FREE = "free"  # `dungeon` came: the agent may move
    MOVE_SENT = "move sent"  # waiting for the `sat` (or an error)
    SAT = "sat"  # the trap problem came: waiting for the `moved` answering the solution
    OVER = "over"  # `game_over` came: the socket closes
    CLOSED = "closed"


class Event(enum.Enum):
    #: The server: a start took a slot. A client: it sent its start (the server answers an
    #: accepted start with silence, then `dungeon`; a refused one with an error).
    START_ACCEPTED = "start accepted"
    START_REFUSED = "start refused"  # an error answering a start: still AWAIT_START
    DUNGEON = "dungeon"
    MOVE = "move"
    SAT = "sat"
    SOLUTION = "solution"
    ANSWERED = "answered"  # a `moved` with reason crossed or trap
    ERROR = "error"  # an error answering a request (not a start)
    #: A client: a `moved` attacked came while it held a `sat` it had not answered yet; the
    #: kill ended the commitment, so it sends no solution (one would be refused).
    VOIDED = "voided"
    GAME_OVER = "game_over"
    CLOSED = "closed"


_P, _E = Phase, Event
TRANSITIONS: Final[dict[tuple[Phase, Event], Phase]] = {
    (_P.AWAIT_START, _E.START_ACCEPTED): _P.JOINED,
    (_P.AWAIT_START, _E.START_REFUSED): _P.AWAIT_START,
    (_P.AWAIT_START, _E.ERROR): _P.AWAIT_START,
    (_P.JOINED, _E.DUNGEON): _P.FREE,
    (_P.JOINED, _E.START_REFUSED): _P.JOINED,  # a second start on a socket that holds a slot
    (_P.JOINED, _E.MOVE): _P.JOINED,  # held, answered with an error after `dungeon`
    (_P.JOINED, _E.SOLUTION): _P.JOINED,
    (_P.JOINED, _E.ERROR): _P.JOINED,
    (_P.FREE, _E.MOVE): _P.MOVE_SENT,
    (_P.FREE, _E.SOLUTION): _P.FREE,  # not committed: the answer is an error
    (_P.FREE, _E.ERROR): _P.FREE,
    (_P.MOVE_SENT, _E.SAT): _P.SAT,
    (_P.MOVE_SENT, _E.ERROR): _P.FREE,
    (_P.MOVE_SENT, _E.MOVE): _P.MOVE_SENT,  # already committed: the answer is an error
    (_P.MOVE_SENT, _E.SOLUTION): _P.MOVE_SENT,
    (_P.SAT, _E.SOLUTION): _P.SAT,
    (_P.SAT, _E.MOVE): _P.SAT,
    (_P.SAT, _E.ANSWERED): _P.FREE,
    (_P.SAT, _E.ERROR): _P.FREE,
    (_P.SAT, _E.VOIDED): _P.FREE,
}
"""Every allowed (phase, event) and the phase after it; GAME_OVER and CLOSED are allowed in
every phase (to OVER and CLOSED), and nothing after CLOSED."""

#: Phases in which the socket's requests are held for the match (not yet begun).
_BEFORE_DUNGEON: Final = frozenset({Phase.AWAIT_START, Phase.JOINED})


class SessionError(Exception):
    """An event the session rules do not allow in the current phase."""


class Session:
    """One socket's phase and counters, with the limits that apply to them."""

    def __init__(self, *, error_limit: int, held_limit: int | None = None) -> None:
        self.phase = Phase.AWAIT_START
        self.error_limit = error_limit
        self.held_limit = held_limit
        #: Errors made for this socket (counted when made).
        self.errors = 0
        #: The error limit is reached: nothing more from this socket counts (read once per
        #: request by the server: a plain attribute, set by :meth:`error_made`).
        self.refused = error_limit <= 0
        #: Requests received after the start and before `dungeon` (answered after it).
        self.held = 0
        #: Lines, blank ones too, received after the start and before `dungeon`.
        self.early_lines = 0

    def __repr__(self) -> str:
        return f"Session({self.phase.name}, errors={self.errors}, held={self.held})"

    @property
    def began(self) -> bool:
        """True once `dungeon` came (or the match is over)."""
        return self.phase not in _BEFORE_DUNGEON

    def handle(self, event: Event) -> Phase:
        """Apply ``event``; the new phase. SessionError if the rules do not allow it."""
        phase = self.phase
        if event is Event.CLOSED:
            self.phase = Phase.CLOSED
        elif phase is Phase.CLOSED:
            raise SessionError(f"{event.value} after the socket closed")
        elif event is Event.GAME_OVER:
            self.phase = Phase.OVER
        elif phase is Phase.OVER:
            raise SessionError(f"{event.value} after game_over")
        else:
            after = TRANSITIONS.get((phase, event))
            if after is None:
                raise SessionError(f"{event.value} in phase {phase.value!r}")
            self.phase = after
        return self.phase

    def error_made(self) -> bool:
        """Count an error made for this socket; False (not counted) when past the limit. After
        it, :attr:`refused` says whether this error was the last (the socket then closes)."""
        if self.refused:
            return False
        self.errors += 1
        self.refused = self.errors >= self.error_limit
        return True

    def early_line(self, lines: int = 1) -> bool:
        """Count lines received before `dungeon` (once joined); False once past the budget."""
        if self.phase is Phase.JOINED:
            self.early_lines += lines
        return self.held_limit is None or self.early_lines <= self.held_limit

    def request_held(self) -> None:
        """A request before `dungeon`: held, to be answered with an error after it."""
        self.held += 1
