"""The referee of one Fish game as a pure state machine (spec fish.md, "Referee").

The referee says which remote call comes next (:meth:`Referee.next_call`) and judges what came
back (:meth:`Referee.receive` with the reply, :meth:`Referee.fail` when the shell saw a timeout,
a broken connection or bad bytes). It never touches a socket or a clock: the game's task in the
server asks, calls, and hands the answer back, so every rule below is tested without a network.

The calls, in order: ``playing-as`` to every seat, then ``playing-with`` (the other colours) to
every seat, then ``setup`` round robin until every penguin is placed, then ``take-turn`` to
whoever can move, until nobody can. A State sent to a seat lists the remaining players with that
seat first. ``take-turn`` carries the moves made since that seat's last turn, or ``[]`` after a
player was removed (the seed's rule).

Verdicts: a reply of the wrong shape (``"void"`` expected, a Position ``[r, c]``, an Action
``[[r, c], [r, c]]`` of integers) **fails**; a placement or move the rules forbid (off the board,
on a hole, on a penguin, not one's own penguin, not a straight line, jumping over a hole or a
penguin) **cheats**. Either removes the seat with its penguins (the tiles stay) and it is never
called again in this game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from fish.data import action_to_json, board_to_json, position_to_json
from fish.rules import COLORS, FISH_RULES, GAME_TYPE, penguins_each
from floes import MOVEMENT, OVER, PLACEMENT, Floes

__all__ = ["Call", "GameResult", "Referee", "Verdict"]

Kind = Literal["ok", "failed", "cheated"]


@dataclass(frozen=True)
class Call:
    """One remote call for ``seat``: ``["name", args]`` on the wire."""

    seat: int
    name: str
    args: list[Any]

    def to_json(self) -> list[Any]:
        return [self.name, self.args]


@dataclass(frozen=True)
class Verdict:
    """What the referee made of a call's outcome; ``action`` is the placement (a tile) or the
    move (from, to) it played, for the log."""

    seat: int
    kind: Kind
    reason: str = ""
    action: int | tuple[int, int] | None = None


@dataclass(frozen=True)
class GameResult:
    """Seats of a finished game: the winners (top score among the remaining), the failed, the
    cheaters, and the rest; the scores of every seat."""

    winners: tuple[int, ...]
    failed: tuple[int, ...]
    cheaters: tuple[int, ...]
    rest: tuple[int, ...]
    scores: tuple[int, ...] = field(default=())


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
        self._intro: list[tuple[int, str]] = [(seat, "playing-as") for seat in range(players)]
        self._intro += [(seat, "playing-with") for seat in range(players)]
        self._since: list[list[list[list[int]]]] = [[] for _ in range(players)]
        self._pending: Call | None = None

    # ----------------------------------------------------------------- queries

    @property
    def over(self) -> bool:
        return not self._intro and self.floes.phase == OVER

    def state_for(self, seat: int) -> dict[str, Any]:
        """The State as ``seat`` sees it: remaining players, ``seat`` first."""
        floes = self.floes
        seats = floes.seats
        order = [(seat + k) % seats for k in range(seats) if floes.active[(seat + k) % seats]]
        return {
            "players": [
                {
                    "color": self.colors[other],
                    "score": floes.scores[other],
                    "places": [position_to_json(floes, tile) for tile in floes.penguins[other]],
                }
                for other in order
            ],
            "board": board_to_json(floes),
        }

    def next_call(self) -> Call | None:
        """The call to make now (the same one until it is answered), or None: the game is over."""
        if self._pending is None:
            self._pending = self._make_call()
        return self._pending

    def _make_call(self) -> Call | None:
        floes = self.floes
        seats = floes.seats
        while self._intro:
            seat, name = self._intro.pop(0)
            if not floes.active[seat]:
                continue
            if name == "playing-as":
                return Call(seat, name, [self.colors[seat]])
            others = [(seat + k) % seats for k in range(1, seats)]
            return Call(seat, name, [[self.colors[o] for o in others if floes.active[o]]])
        seat = floes.current
        if floes.phase == PLACEMENT:
            return Call(seat, "setup", [self.state_for(seat)])
        if floes.phase == MOVEMENT:
            since, self._since[seat] = self._since[seat], []
            return Call(seat, "take-turn", [self.state_for(seat), since])
        return None

    # ------------------------------------------------------------------ answers

    def receive(self, reply: object) -> Verdict:
        """Judge the reply to the pending call."""
        call = self._take_pending()
        if call.name in ("playing-as", "playing-with"):
            if reply != "void":
                return self._remove(call.seat, "failed", f'{call.name}: expected "void"')
            return Verdict(call.seat, "ok")
        if call.name == "setup":
            return self._place(call.seat, reply)
        return self._move(call.seat, reply)

    def fail(self, reason: str) -> Verdict:
        """The pending call's player timed out, disconnected or sent bad bytes."""
        call = self._take_pending()
        return self._remove(call.seat, "failed", f"{call.name}: {reason}")

    def _take_pending(self) -> Call:
        call = self.next_call()
        if call is None:
            raise RuntimeError("the game is over: no call is pending")
        self._pending = None
        return call

    def _remove(self, seat: int, kind: Kind, reason: str) -> Verdict:
        (self.failed if kind == "failed" else self.cheaters).append(seat)
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
                seat, "failed", f"setup: expected a position [r, c], got {reply!r:.60}"
            )
        assert isinstance(reply, list)
        floes = self.floes
        tile = self._tile(reply)
        if tile is None:
            return self._remove(seat, "cheated", f"placed off the board at {reply}")
        if floes.fish[tile] == 0:
            return self._remove(seat, "cheated", f"placed on a hole at {reply}")
        if floes.owner[tile] >= 0:
            return self._remove(seat, "cheated", f"placed on a penguin at {reply}")
        floes.place(tile)
        return Verdict(seat, "ok", action=tile)

    def _move(self, seat: int, reply: object) -> Verdict:
        if not (isinstance(reply, list) and len(reply) == 2 and all(map(_is_position, reply))):
            return self._remove(
                seat, "failed", f"take-turn: expected an action [[r, c], [r, c]], got {reply!r:.60}"
            )
        floes = self.floes
        src, dst = self._tile(reply[0]), self._tile(reply[1])
        if src is None or dst is None:
            return self._remove(seat, "cheated", f"moved off the board: {reply}")
        if floes.owner[src] != seat:
            return self._remove(seat, "cheated", f"no penguin of its own on {reply[0]}")
        if floes.fish[dst] == 0:
            return self._remove(seat, "cheated", f"moved onto a hole at {reply[1]}")
        if floes.owner[dst] >= 0:
            return self._remove(seat, "cheated", f"moved onto a penguin at {reply[1]}")
        problem = self._line_problem(src, dst)
        if problem:
            return self._remove(seat, "cheated", f"{problem}: {reply}")
        floes.move(src, dst)
        for other, since in enumerate(self._since):
            if other != seat:
                since.append(action_to_json(floes, (src, dst)))
        return Verdict(seat, "ok", action=(src, dst))

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
