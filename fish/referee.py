"""The referee of one Fish game as a pure state machine (spec fish.md, "Referee").

It speaks the games' one referee vocabulary (:mod:`floes.effects`): :meth:`Referee.start` and
:meth:`Referee.apply` (a seat's :class:`Reply` to the pending call, or its :class:`Failure`: a
timeout, a broken connection or bad bytes the shell saw) return the effects for the shell, in
order: :class:`~floes.effects.Record` of the answer and of its :class:`Verdict`, :class:`Expel`
of a seat put out, then :class:`~floes.effects.Send` of the next call (a typed call of
:mod:`fish.calls`) and its :class:`~floes.effects.Deadline`, or, once nobody can move, the
:class:`Record` of the :class:`GameResult` and :class:`~floes.effects.Over`. It never touches a
socket or a clock (the shell measures an answer's ``seconds``), so every rule below is tested
without a network.

The calls, in order: ``playing-as`` to every seat, then ``playing-with`` (the other colours) to
every seat, then ``setup`` round robin until every penguin is placed, then ``take-turn`` to
whoever can move, until nobody can. A State sent to a seat lists the remaining players with that
seat first. ``take-turn`` carries the moves made since that seat's last turn, or none after a
player was removed (the seed's rule).

Verdicts: a reply of the wrong shape (``"void"`` expected, a Position ``[r, c]``, an Action
``[[r, c], [r, c]]`` of integers) **fails**; a placement or move the rules forbid (off the board,
on a hole, on a penguin, not one's own penguin, not a straight line, jumping over a hole or a
penguin) **cheats**. Either removes the seat with its penguins (the tiles stay) and it is never
called again in this game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from fish.calls import FishCall, PlayingAs, PlayingWith, Setup, StateView, TakeTurn
from fish.rules import COLORS, FISH_RULES, GAME_TYPE, penguins_each
from floes import MOVEMENT, OVER, PLACEMENT, Floes
from floes.effects import Deadline, Over, Record, Send

__all__ = [
    "Effect",
    "Expel",
    "Failure",
    "FishRecord",
    "GameResult",
    "Input",
    "Kind",
    "Referee",
    "Reply",
    "Verdict",
]


class Kind(StrEnum):
    """What a verdict found."""

    OK = "ok"
    FAILED = "failed"
    CHEATED = "cheated"


@dataclass(slots=True)
class Reply:
    """``seat`` answered the pending call with ``value`` after ``seconds``."""

    seat: int
    value: Any
    seconds: float = 0.0


@dataclass(slots=True)
class Failure:
    """``seat`` did not answer the pending call: ``reason`` (a timeout, a broken connection,
    bad bytes), after ``seconds``."""

    seat: int
    reason: str
    seconds: float = 0.0


Input = Reply | Failure


@dataclass(slots=True)
class Verdict:
    """What the referee made of an answer; ``action`` is the placement (a tile) or the move
    (from, to) it played."""

    seat: int
    kind: Kind
    reason: str = ""
    action: int | tuple[int, int] | None = None


@dataclass(slots=True)
class GameResult:
    """Seats of a finished game: the winners (top score among the remaining), the failed, the
    cheaters, and the rest; the scores of every seat."""

    winners: tuple[int, ...]
    failed: tuple[int, ...]
    cheaters: tuple[int, ...]
    rest: tuple[int, ...]
    scores: tuple[int, ...] = field(default=())


@dataclass(slots=True)
class Expel:
    """Fish's own effect: ``seat`` failed or cheated (``kind``, ``reason``); it is never called
    again, its connection may close."""

    seat: int
    kind: Kind
    reason: str


#: The lines of a Fish game's log, in order: each answer, its verdict; the result.
FishRecord = Reply | Failure | Verdict | GameResult
Effect = Send[FishCall] | Deadline | Record[FishRecord] | Expel | Over


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_position(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(map(_is_int, value))


class Referee:
    """One game of ``players`` seats on a ``rows`` x ``cols`` board of ``fish`` per tile."""

    def __init__(self, rows: int, cols: int, fish: list[int], players: int) -> None:
        GAME_TYPE.check_players(players)
        quota = [penguins_each(players)] * players
        self.floes = Floes(FISH_RULES, rows, cols, fish, quota)
        self.colors = COLORS[:players]
        self.failed: list[int] = []
        self.cheaters: list[int] = []
        #: The introductions still to make: (seat, whether it is its playing-with).
        self._intro = [(seat, False) for seat in range(players)]
        self._intro += [(seat, True) for seat in range(players)]
        self._since: list[list[tuple[int, int]]] = [[] for _ in range(players)]
        self._pending: Send[FishCall] | None = None
        self._started = False
        #: Each seat's deadline effect, built once (it is immutable).
        self._deadlines = [Deadline(seat) for seat in range(players)]

    # ----------------------------------------------------------------- queries

    @property
    def over(self) -> bool:
        return self._started and self._pending is None

    @property
    def pending(self) -> Send[FishCall] | None:
        """The call awaiting its answer (None before :meth:`start` and once the game is over)."""
        return self._pending

    def state_for(self, seat: int) -> StateView:
        """The State as ``seat`` sees it: remaining players, ``seat`` first."""
        floes = self.floes
        seats, active = floes.seats, floes.active
        order = tuple([(seat + k) % seats for k in range(seats) if active[(seat + k) % seats]])
        return StateView(order, self.colors, floes)

    # ----------------------------------------------------------------- inputs

    def start(self) -> list[Effect]:
        """The game's first call (or its end, if nobody can act)."""
        if self._started:
            raise RuntimeError("the game has started already")
        self._started = True
        return self._next([])

    def apply(self, answer: Input) -> list[Effect]:
        """Judge ``answer`` to the pending call; the effects that follow from it."""
        call = self._pending
        if call is None:
            raise RuntimeError("no call is pending: the game is over or not started")
        if answer.seat != call.seat:
            raise ValueError(f"seat {answer.seat} answered, the call was to seat {call.seat}")
        self._pending = None
        name = call.message.name
        if isinstance(answer, Reply):
            verdict = self._judge(call.seat, call.message, answer.value)
        else:
            verdict = self._remove(call.seat, Kind.FAILED, f"{name}: {answer.reason}")
        effects: list[Effect] = [Record(answer), Record(verdict)]
        if verdict.kind is not Kind.OK:
            effects.append(Expel(verdict.seat, verdict.kind, verdict.reason))
        return self._next(effects)

    def _next(self, effects: list[Effect]) -> list[Effect]:
        send = self._make_call()
        if send is None:
            result = self.result()
            reason = "nobody can move" if any(self.floes.active) else "every player is out"
            effects += [Record(result), Over(result.winners, reason)]
            return effects
        self._pending = send
        effects.append(send)
        effects.append(self._deadlines[send.seat])
        return effects

    def _make_call(self) -> Send[FishCall] | None:
        floes = self.floes
        seats = floes.seats
        while self._intro:
            seat, playing_with = self._intro.pop(0)
            if not floes.active[seat]:
                continue
            if not playing_with:
                return Send(seat, PlayingAs(self.colors[seat]))
            others = [(seat + k) % seats for k in range(1, seats)]
            colors = tuple(self.colors[o] for o in others if floes.active[o])
            return Send(seat, PlayingWith(colors))
        seat = floes.current
        if floes.phase == PLACEMENT:
            return Send(seat, Setup(self.state_for(seat)))
        if floes.phase == MOVEMENT:
            since, self._since[seat] = self._since[seat], []
            return Send(seat, TakeTurn(self.state_for(seat), tuple(since)))
        return None

    def _judge(self, seat: int, call: FishCall, reply: object) -> Verdict:
        if isinstance(call, (PlayingAs, PlayingWith)):
            if reply != "void":
                return self._remove(seat, Kind.FAILED, f'{call.name}: expected "void"')
            return Verdict(seat, Kind.OK)
        if isinstance(call, Setup):
            return self._place(seat, reply)
        return self._move(seat, reply)

    def _remove(self, seat: int, kind: Kind, reason: str) -> Verdict:
        (self.failed if kind is Kind.FAILED else self.cheaters).append(seat)
        self.floes.eliminate(seat)
        for since in self._since:
            since.clear()  # the seed: [] after a player was eliminated
        return Verdict(seat, kind, reason)

    def _tile(self, value: list[int]) -> int | None:
        """The tile at [r, c], or None off the board."""
        rows, cols = self.floes.layout.rows, self.floes.layout.cols
        row, col = value
        return row * cols + col if 0 <= row < rows and 0 <= col < cols else None

    def _place(self, seat: int, reply: object) -> Verdict:
        if not _is_position(reply):
            return self._remove(
                seat, Kind.FAILED, f"setup: expected a position [r, c], got {reply!r:.60}"
            )
        assert isinstance(reply, list)
        floes = self.floes
        tile = self._tile(reply)
        if tile is None:
            return self._remove(seat, Kind.CHEATED, f"placed off the board at {reply}")
        if floes.fish[tile] == 0:
            return self._remove(seat, Kind.CHEATED, f"placed on a hole at {reply}")
        if floes.owner[tile] >= 0:
            return self._remove(seat, Kind.CHEATED, f"placed on a penguin at {reply}")
        floes.place(tile)
        return Verdict(seat, Kind.OK, action=tile)

    def _move(self, seat: int, reply: object) -> Verdict:
        if not (isinstance(reply, list) and len(reply) == 2 and all(map(_is_position, reply))):
            wanted = "take-turn: expected an action [[r, c], [r, c]]"
            return self._remove(seat, Kind.FAILED, f"{wanted}, got {reply!r:.60}")
        floes = self.floes
        src, dst = self._tile(reply[0]), self._tile(reply[1])
        if src is None or dst is None:
            return self._remove(seat, Kind.CHEATED, f"moved off the board: {reply}")
        if floes.owner[src] != seat:
            return self._remove(seat, Kind.CHEATED, f"no penguin of its own on {reply[0]}")
        if floes.fish[dst] == 0:
            return self._remove(seat, Kind.CHEATED, f"moved onto a hole at {reply[1]}")
        if floes.owner[dst] >= 0:
            return self._remove(seat, Kind.CHEATED, f"moved onto a penguin at {reply[1]}")
        problem = self._line_problem(src, dst)
        if problem:
            return self._remove(seat, Kind.CHEATED, f"{problem}: {reply}")
        floes.move(src, dst)
        for other, since in enumerate(self._since):
            if other != seat:
                since.append((src, dst))
        return Verdict(seat, Kind.OK, action=(src, dst))

    def _line_problem(self, src: int, dst: int) -> str:
        """Why src -> dst is not a straight unobstructed line, or ""."""
        floes = self.floes
        for line in floes.layout.rays[src]:
            if dst in line:
                for tile in line[: line.index(dst)]:
                    if floes.fish[tile] == 0:
                        return "jumped over a hole"
                    if floes.owner[tile] >= 0:
                        return "jumped over a penguin"
                return ""
        return "not a straight line"

    # ------------------------------------------------------------------ result

    def result(self) -> GameResult:
        floes = self.floes
        winners = tuple(floes.winners()) if floes.phase == OVER else ()
        out = set(winners) | set(self.failed) | set(self.cheaters)
        return GameResult(
            winners=winners,
            failed=tuple(self.failed),
            cheaters=tuple(self.cheaters),
            rest=tuple(seat for seat in range(floes.seats) if seat not in out),
            scores=tuple(floes.scores),
        )
