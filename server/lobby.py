"""The lobby: which socket holds which slot of which match, until a match has all twelve.

Plain synchronous state, owned by the server and changed only between checkpoints (no method
awaits), so a claim and the check before it cannot interleave with another socket's.

Rules (spec §4): a ``start`` with a name joins only that named match (created if absent); one
without a name joins the oldest unnamed match still filling that has the slot free (or opens a
new one). A taken slot is an error. A named match listed in the server's tokens (``arena serve
--teams``) takes a start for a listed team only with that team's token; a missing or wrong one
is an error (code ``bad_token``) and the slot stays free. A socket that closes while its match
is filling frees its slot; a filling match nobody holds a slot in is dropped. A name is free
again once its match is over.
"""

from __future__ import annotations

import hmac
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from dungeon.engine import AGENTS, AgentId
from protocol.errors import ErrorCode

__all__ = ["Filling", "Lobby", "SlotTaken"]

Seat = TypeVar("Seat")


class SlotTaken(Exception):
    """The slot a ``start`` asked for is held by another socket (or its match is running)."""

    def __init__(self, text: str, code: ErrorCode = ErrorCode.SLOT_TAKEN) -> None:
        super().__init__(text)
        self.code = code


@dataclass(eq=False)
class Filling(Generic[Seat]):
    """A match that is filling, then running: its name, number and the sockets in its slots."""

    number: int
    name: str | None
    seats: dict[AgentId, Seat] = field(default_factory=dict)
    running: bool = False

    @property
    def full(self) -> bool:
        return len(self.seats) == len(AGENTS)


class Lobby(Generic[Seat]):
    """Assigns sockets (``Seat``: whatever the server uses for one) to match slots."""

    def __init__(
        self,
        on_full: Callable[[Filling[Seat]], None],
        tokens: Mapping[str, Mapping[int, str]] | None = None,
    ) -> None:
        self._on_full = on_full
        #: match name -> team -> the token a start for that team of that match must carry
        self._tokens = tokens if tokens is not None else {}  # (a tournament fills it as it goes)
        self._numbers = itertools.count(1)
        self._unnamed: list[Filling[Seat]] = []  # filling, oldest first
        self._named: dict[str, Filling[Seat]] = {}  # filling or running

    @property
    def filling(self) -> list[Filling[Seat]]:
        """Every match still filling, oldest first (named ones after unnamed ones)."""
        return self._unnamed + [m for m in self._named.values() if not m.running]

    def claim(
        self, seat: Seat, slot: AgentId, name: str | None, token: str | None = None
    ) -> Filling[Seat]:
        """Put ``seat`` in ``slot``; raises SlotTaken (also for a missing or wrong token, with
        code bad_token: the slot stays free). Starts the match (on_full) at twelve."""
        required = self._tokens.get(name, {}).get(slot.team) if name is not None else None
        if required is not None and not hmac.compare_digest(
            (token or "").encode(), required.encode()
        ):
            # The text names neither token: server logs keep error texts.
            missing = "no token" if token is None else "a wrong token"
            raise SlotTaken(
                f"team {slot.team} of match {name!r} needs its token; this start has {missing}",
                ErrorCode.BAD_TOKEN,
            )
        if name is None:
            match = next((m for m in self._unnamed if slot not in m.seats), None)
            if match is None:
                match = Filling(next(self._numbers), None)
                self._unnamed.append(match)
        else:
            match = self._named.get(name)
            if match is None:
                match = Filling(next(self._numbers), name)
                self._named[name] = match
            elif match.running:
                raise SlotTaken(f"match {name!r} is already being played")
            elif slot in match.seats:
                raise SlotTaken(
                    f"team {slot.team} agent {slot.agent} of match {name!r} is already taken"
                )
        match.seats[slot] = seat
        if match.full:
            match.running = True
            if match.name is None:
                self._unnamed.remove(match)
            self._on_full(match)
        return match

    def release(self, seat: Seat, match: Filling[Seat]) -> None:
        """``seat`` closed: free its slot if ``match`` is still filling."""
        if match.running:
            return
        for slot, holder in list(match.seats.items()):
            if holder is seat:
                del match.seats[slot]
        if not match.seats:
            if match.name is None:
                if match in self._unnamed:
                    self._unnamed.remove(match)
            elif self._named.get(match.name) is match:
                del self._named[match.name]

    def finished(self, match: Filling[Seat]) -> None:
        """``match`` is over: its name may be used again."""
        if match.name is not None and self._named.get(match.name) is match:
            del self._named[match.name]
