"""The tournament manager as a pure state machine (spec fish.md, "Tournament manager").

Players are any hashable ids, in sign-up order. The shell drives it in four steps:

1. ``start_calls()``: the players to send ``start(true)``; ``started(acknowledged)``: those that
   answered ``"void"`` in time (the others fail).
2. ``next_round()``: the games of the next round (lists of ids, in sign-up order) or None when
   the tournament is over; ``round_done(results)``: each game's :class:`Outcome` (its winners,
   failed, cheaters). Every winner of a game advances.
3. ``end_calls()``: ``(id, won)`` pairs: ``end(true)`` to the final winners, ``end(false)`` to
   everyone else who neither failed nor cheated; ``ended(acknowledged)``: a winner that did not
   acknowledge fails (a loser's silence changes nothing).
4. ``winners``, ``failed``, ``cheaters``: the final standing.

Grouping: games of 4 in sign-up order; if one player would be left over, the last full group
gives one player to it (9 -> 4, 3, 2). The tournament ends when fewer than 2 players remain,
after a round that was a single game (the final), or after a round whose winners are exactly its
participants (nobody can be eliminated any more).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Generic, TypeVar

__all__ = ["Manager", "Outcome", "group"]

Id = TypeVar("Id", bound=Hashable)

GAME_SIZE = 4


class Step(Enum):
    """Where the tournament is: the four steps of the module docstring, then over."""

    START = "start"
    ROUNDS = "rounds"
    PLAYING = "playing"
    END = "end"
    DONE = "done"


@dataclass(frozen=True)
class Outcome(Generic[Id]):
    """A finished game as the manager sees it."""

    winners: tuple[Id, ...]
    failed: tuple[Id, ...] = ()
    cheaters: tuple[Id, ...] = ()


def group(players: Sequence[Id], size: int = GAME_SIZE) -> list[list[Id]]:
    """Games of ``size`` in order; a single left-over player takes one from the last full game."""
    if len(players) < 2:
        raise ValueError(f"a game needs 2 players, got {len(players)}")
    games = [list(players[i : i + size]) for i in range(0, len(players), size)]
    if len(games[-1]) == 1:
        games[-1].insert(0, games[-2].pop())
    return games


class Manager(Generic[Id]):
    """One tournament; see the module docstring for the protocol."""

    def __init__(self, players: Iterable[Id]) -> None:
        self.players: list[Id] = list(players)
        if len(set(self.players)) != len(self.players):
            raise ValueError("each player needs its own id")
        self.failed: list[Id] = []
        self.cheaters: list[Id] = []
        self.remaining: list[Id] = []
        self.rounds: list[list[list[Id]]] = []
        self._step = Step.START
        self._final = False

    @property
    def over(self) -> bool:
        return self._step is Step.DONE

    @property
    def winners(self) -> list[Id]:
        """The final winners (once the tournament is over)."""
        return list(self.remaining) if self._step is Step.DONE else []

    def start_calls(self) -> list[Id]:
        self._expect(Step.START)
        return list(self.players)

    def started(self, acknowledged: Iterable[Id]) -> None:
        self._expect(Step.START)
        answered = set(acknowledged)
        self.failed += [player for player in self.players if player not in answered]
        self.remaining = [player for player in self.players if player in answered]
        self._step = Step.ROUNDS

    def next_round(self) -> list[list[Id]] | None:
        """The next round's games, or None: the tournament is over (then call end_calls)."""
        self._expect(Step.ROUNDS)
        if self._final or len(self.remaining) < 2:
            self._step = Step.END
            return None
        games = group(self.remaining)
        self.rounds.append(games)
        self._step = Step.PLAYING
        return games

    def round_done(self, results: Sequence[Outcome[Id]]) -> None:
        self._expect(Step.PLAYING)
        games = self.rounds[-1]
        if len(results) != len(games):
            raise ValueError(f"{len(games)} games were played, got {len(results)} results")
        advancing: set[Id] = set()
        for game, outcome in zip(games, results, strict=True):
            for player in (*outcome.winners, *outcome.failed, *outcome.cheaters):
                if player not in game:
                    raise ValueError(f"{player!r} did not play in that game")
            advancing.update(outcome.winners)
            self.failed += outcome.failed
            self.cheaters += outcome.cheaters
        participants = self.remaining
        self.remaining = [player for player in participants if player in advancing]
        self._final = len(games) == 1 or self.remaining == participants
        self._step = Step.ROUNDS

    def end_calls(self) -> list[tuple[Id, bool]]:
        self._expect(Step.END)
        out = set(self.failed) | set(self.cheaters)
        winners = set(self.remaining)
        return [(player, player in winners) for player in self.players if player not in out]

    def ended(self, acknowledged: Iterable[Id]) -> None:
        """Winners that did not acknowledge ``end(true)`` fail and are no longer winners."""
        self._expect(Step.END)
        answered = set(acknowledged)
        silent = [player for player in self.remaining if player not in answered]
        self.failed += silent
        self.remaining = [player for player in self.remaining if player in answered]
        self._step = Step.DONE

    def _expect(self, step: Step) -> None:
        if self._step is not step:
            raise RuntimeError(f"the manager is at step {self._step.value!r}, not {step.value!r}")
