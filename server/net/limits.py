"""The network layer's policy: every per-connection and server-wide limit in one frozen object.

:class:`Limits` is read by the parts of :mod:`server.net` (reader, outbox, gate) and by a game's
server for the limits only it can enforce (requests held before its match starts, the idle
limit). :class:`InputBudget` is the one mutable piece: the bytes every connection of a server
holds of unfinished input, against ``Limits.input_budget_bytes``. :class:`Gate` admits a new
connection, or says why not (the connection cap, the input budget).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

__all__ = ["DEFAULT_LIMITS", "Gate", "InputBudget", "Limits", "OverBudget"]

#: The limits that may be None (no limit).
_OPTIONAL: Final = ("idle_seconds", "input_bytes_per_second", "long_line_bytes_per_second")


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """How much one connection, and all of them together, may cost a server.

    The defaults are the documented ones (docs/server.md); a server takes a copy with
    :meth:`replace` for what its game or its operator says otherwise.
    """

    #: The longest frame (line) a peer may send, in bytes, not counting its terminator.
    max_line_bytes: int = 1 << 20
    #: Bytes of one unfinished frame a connection may hold (beyond: the peer is at fault).
    partial_line_bytes: int = (1 << 20) + 2
    #: Frames (blank lines included) a connection may send before its match starts; beyond,
    #: the server answers with an error and closes it.
    held_requests: int = 16
    #: Seconds a connection that joined may stay silent (None: no limit; a game server sets it).
    idle_seconds: float | None = None
    #: Connections open at once; a new one beyond it is refused (error, then closed).
    max_connections: int = 4096
    #: Bytes of unfinished input held by all connections together; a connection that would
    #: pass it is refused, and so is a new connection while it is reached.
    input_budget_bytes: int = 64 << 20
    #: Messages queued for a connection that does not read; beyond, it is dropped.
    outbox_messages: int = 512
    #: Once a connection must close (its last message or a closing error was delivered), how
    #: long its unwritten lines get to reach a peer that does not read; then it is dropped.
    drain_seconds: float = 10.0
    #: Bytes read from a socket at once.
    receive_bytes: int = 1 << 14
    #: Bytes a second one connection is read at, on average (a token bucket holding up to
    #: ``partial_line_bytes``, so a line of the largest size goes through at once); beyond, it
    #: is read more slowly (TCP pushes back on the sender). What it costs to read and frame
    #: input, blank lines included, is bounded per connection (None: no limit).
    input_bytes_per_second: int | None = 1 << 20
    #: Bytes a second all connections together are read at while each holds an unfinished
    #: line longer than ``receive_bytes`` (None: no limit). Requests are short: only a peer
    #: sending a long line waits for it, and hundreds of sockets holding long lines cost the
    #: server a bounded share of its CPU.
    long_line_bytes_per_second: int | None = 8 << 20
    #: Frames handled from one connection before its task yields to the others.
    frames_per_step: int = 64
    #: After its last line, how long and how much of a peer's leftover input is discarded so
    #: that a reset does not destroy the last lines sent.
    linger_seconds: float = 2.0
    linger_bytes: int = 4 << 20

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is None and field.name in _OPTIONAL:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValueError(f"Limits.{field.name} must be a number >= 0, got {value!r}")
        if self.max_line_bytes < 1 or self.receive_bytes < 1 or self.frames_per_step < 1:
            raise ValueError("Limits: max_line_bytes, receive_bytes, frames_per_step must be >= 1")

    def replace(self, **changes: object) -> Limits:
        """A copy with ``changes`` (validated like the original)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def with_overrides(self, pairs: Iterable[str]) -> Limits:
        """A copy with ``NAME=VALUE`` overrides (a command line's ``--limit``); ValueError
        naming the pair when the name is not a limit or the value not a number for it
        (``idle_seconds=none``: no idle limit)."""
        fields = {field.name: field for field in dataclasses.fields(self)}
        changes: dict[str, object] = {}
        for pair in pairs:
            name, equals, text = pair.partition("=")
            if not equals or name not in fields:
                known = ", ".join(fields)
                raise ValueError(f"{pair!r}: expected NAME=VALUE with NAME one of {known}")
            try:
                if name in _OPTIONAL and text.lower() == "none":
                    changes[name] = None
                elif isinstance(getattr(self, name), int):
                    changes[name] = int(text)
                else:
                    changes[name] = float(text)
            except ValueError:
                raise ValueError(f"{pair!r}: {text!r} is not a number") from None
        return self.replace(**changes)


DEFAULT_LIMITS: Final = Limits()


class OverBudget(Exception):
    """A connection passed a budget: ``budget`` names which ("partial_line", "input_budget")."""

    def __init__(self, budget: str, text: str) -> None:
        super().__init__(text)
        self.budget = budget
        self.text = text


class InputBudget:
    """The unfinished input all connections of one server hold, against one limit; and the
    rate, shared by all, at which connections holding a long unfinished line are read
    (``long_line_bytes_per_second``; None: no limit).

    The rate is kept as a schedule: each read of up to ``chunk`` bytes takes the next free
    turn, ``chunk / rate`` seconds after the one before, so waiting connections wake one at a
    time rather than all at once (a crowd of reads in one scheduling round is what delays
    everyone else's requests). Times are passed in (seconds of any one clock).
    """

    def __init__(self, limit: int, rate: int | None = None, chunk: int = 1 << 14) -> None:
        self.limit = limit
        self.used = 0
        self.rate = rate
        self.chunk = chunk
        self._next_turn = -math.inf

    @property
    def reached(self) -> bool:
        return self.used >= self.limit

    def take(self, size: int) -> bool:
        """Count ``size`` more bytes held; False (nothing counted) if that would pass the limit."""
        if self.used + size > self.limit:
            return False
        self.used += size
        return True

    def give_back(self, size: int) -> None:
        self.used -= size

    def long_line_turn(self, now: float) -> float:
        """Take the next turn to read a chunk of a long unfinished line: the seconds to wait
        for it (0: now)."""
        if self.rate is None:
            return 0.0
        turn = max(now, self._next_turn)
        self._next_turn = turn + self.chunk / self.rate
        return turn - now


class Gate:
    """Admits connections up to ``limits.max_connections`` while the input budget has room."""

    def __init__(self, limits: Limits, budget: InputBudget | None = None) -> None:
        self.limits = limits
        if budget is None:
            rate = limits.long_line_bytes_per_second
            budget = InputBudget(limits.input_budget_bytes, rate, limits.receive_bytes)
        self.budget = budget
        self.open = 0
        #: Refused connections still being told why (each may take a second).
        self.refusing = 0

    def enter(self) -> str | None:
        """Count a new connection in; or, refusing it, say why (it is not counted then)."""
        if self.open >= self.limits.max_connections:
            return f"the server holds its limit of {self.limits.max_connections} connections"
        if self.budget.reached:
            return "the server's input budget is used up"
        self.open += 1
        return None

    def leave(self) -> None:
        """An admitted connection has closed."""
        self.open -= 1
