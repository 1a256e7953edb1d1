"""The one game interface every game of the simulator implements.

Modelled on OpenSpiel's Python games (``new_initial_state``, ``current_player``,
``legal_actions``, ``apply_action``, ``is_terminal``, ``returns``, ``clone``):

* A :class:`Game` is a factory with fixed facts (:class:`GameInfo`) and a table of named
  strategies.
* A :class:`State` is a position. Rules hold no randomness and no clock: where the game has
  chance, the state says so (``current_player() == CHANCE``) and lists ``chance_outcomes()``;
  whoever drives the game samples them from a seeded generator.
* A :class:`Bot` picks an action for the player to move. It gets the random generator it may use
  as an argument, so a bot is a pure function of (state, generator) and holds no global state.

Each game declares its capabilities in its :class:`GameInfo`, as OpenSpiel's ``GameType`` does,
so drivers read them instead of probing for methods:

* ``dynamics``: how a State hands out decisions. :attr:`Dynamics.SEQUENTIAL`: one player (or
  chance) acts at a time; :attr:`Dynamics.SIMULTANEOUS`: all act together
  (``current_player() == SIMULTANEOUS``). Every game here is sequential through its State.
  The dungeon too: on the wire it is simultaneous and real time, but the simulator serialises
  each logical step into one decision per acting agent, in an order drawn from a seeded stream
  (spec section 6), so its State names the team of the agent to act, never ``SIMULTANEOUS``.
* ``chance``: :attr:`ChanceMode.DETERMINISTIC` (no chance after the seed's setup: Fish,
  Penguins, Labyrinth), :attr:`ChanceMode.EXPLICIT` (CHANCE nodes with ``chance_outcomes()``),
  or :attr:`ChanceMode.SAMPLED`: chance drawn inside the state from generators seeded with it
  and cloned with it, so no CHANCE node appears (the dungeon's trap problems, dice and step
  order).
* ``writes_match_log``: the game object also implements :class:`LoggedGame` (``play_logged``,
  a match log file of the match; the dungeon's ``arena sim --logs``).

Sequential games are driven by :func:`play_turn_based`; the dungeon's game object implements
:meth:`Game.play` with its own logical-step driver over the same rules engine the server runs.

This module is pure and light: the Fish and Penguins command-line tools import it on paths that
must start in a few milliseconds, so it imports nothing beyond the standard library.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol, Self, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "CHANCE",
    "SIMULTANEOUS",
    "TERMINAL",
    "Bot",
    "ChanceMode",
    "Dynamics",
    "Game",
    "GameInfo",
    "LoggedGame",
    "MatchResult",
    "State",
    "logged",
    "play_turn_based",
]

# Special values of State.current_player(), as in OpenSpiel.
CHANCE = -1
SIMULTANEOUS = -2
TERMINAL = -4

A = TypeVar("A")


class Dynamics(Enum):
    """How a State hands out decisions (OpenSpiel's ``GameType.Dynamics``)."""

    #: One player, or chance, acts at a time.
    SEQUENTIAL = "sequential"
    #: Every player acts at once: ``current_player() == SIMULTANEOUS``.
    SIMULTANEOUS = "simultaneous"


class ChanceMode(Enum):
    """Where a game's chance lives once the seed has set it up (OpenSpiel's ``ChanceMode``)."""

    #: None: the same actions always give the same game.
    DETERMINISTIC = "deterministic"
    #: CHANCE nodes listing ``chance_outcomes()``; the driver samples them.
    EXPLICIT = "explicit"
    #: Drawn inside the state from generators it was seeded with and clones: no CHANCE nodes.
    SAMPLED = "sampled"


@dataclass(frozen=True, slots=True)
class GameInfo:
    """Fixed facts about a game, the same for every match of it."""

    name: str
    #: Number of seats (players, or teams for the dungeon).
    num_players: int
    #: Bounds of every entry of ``State.returns()``.
    min_return: float
    max_return: float
    #: True where ``returns()`` of all seats add up to the same constant in every game.
    zero_sum: bool = False
    #: Largest number of ``apply_action`` calls a game can take (a safety net for drivers).
    max_game_length: int = 100_000
    #: How its State hands out decisions.
    dynamics: Dynamics = Dynamics.SEQUENTIAL
    #: Where its chance lives after setup.
    chance: ChanceMode = ChanceMode.DETERMINISTIC
    #: True when the game object is also a :class:`LoggedGame` (writes a match log).
    writes_match_log: bool = False


@runtime_checkable
class State(Protocol):
    """A position of a game, in the OpenSpiel sense."""

    def current_player(self) -> int:
        """The seat to act, or CHANCE, SIMULTANEOUS or TERMINAL."""

    def legal_actions(self) -> Sequence[Any]:
        """The actions of the player to move, in a fixed order; empty at a terminal state."""

    def chance_outcomes(self) -> Sequence[tuple[Any, float]]:
        """At a chance node, each outcome with its probability; empty elsewhere."""

    def apply_action(self, action: Any) -> None:
        """Play ``action`` for the player to move (or the chance outcome); raises ValueError
        for an illegal action and then changes nothing."""

    def is_terminal(self) -> bool: ...

    def returns(self) -> Sequence[float]:
        """One number per seat; meaningful at a terminal state (0 for everyone before)."""

    def clone(self) -> Self:
        """An independent copy: playing on it never changes this state."""

    def serialize(self) -> str:
        """A canonical text of the whole position: equal states give equal text."""


class Bot(Protocol):
    """A strategy for one seat: chooses among ``state.legal_actions()``."""

    def step(self, state: Any, rng: random.Random) -> Any: ...


@dataclass(slots=True)
class MatchResult:
    """What a runner keeps of one finished match."""

    #: One number per seat, within GameInfo's bounds.
    returns: list[float]
    #: Number of actions (or logical steps, for the dungeon) the match took.
    length: int
    #: Per-seat figures that explain the result (crossings, kills, fish, ...), plain numbers only.
    stats: list[dict[str, float]] = field(default_factory=list)
    #: Seat index of the winner, None for a draw or a shared win.
    winner: int | None = None
    #: Per seat, measured when the game is asked to: (seconds its strategy spent thinking,
    #: requests it made). Differs from run to run, so never a figure of ``stats``.
    think: list[tuple[float, int]] = field(default_factory=list)


class Game(Protocol):
    """A game the simulator can run: fixed facts, named strategies, and a way to play a match."""

    info: GameInfo

    def strategies(self) -> Mapping[str, Callable[[], Bot]]:
        """Strategy names to factories making a fresh bot for one seat."""

    def new_initial_state(self, seed: int) -> State:
        """The state a match starts from. The seed feeds only setup that the game's own spec
        ties to a seed (a maze, a board); chance during play is explicit."""

    def play(self, seed: int, seats: Sequence[str]) -> MatchResult:
        """Play one whole match from ``seed`` with strategy ``seats[i]`` in seat i."""


class LoggedGame(Game, Protocol):
    """A game whose matches can be written as a match log (``GameInfo.writes_match_log``)."""

    def play_logged(self, seed: int, seats: Sequence[str], path: Path) -> MatchResult:
        """:meth:`Game.play`, also writing the match log to ``path``."""


def logged(game: Game) -> LoggedGame:
    """``game`` as a :class:`LoggedGame`, as its info declares; ValueError when it writes no
    match log."""
    if not game.info.writes_match_log:
        raise ValueError(f"{game.info.name} does not write match logs")
    return game  # type: ignore[return-value]  # declared by its GameInfo


def winner_of(returns: Sequence[float]) -> int | None:
    """The single seat with the strictly highest return, or None (a draw or a shared win)."""
    best = max(returns)
    top = [seat for seat, value in enumerate(returns) if value == best]
    return top[0] if len(top) == 1 else None


def _own_strategy(name: str, game: str) -> Callable[[], Bot]:
    """A strategy of one's own (``module:Class`` or ``file.py:Class``), by sim.plugins."""
    from sim.plugins import load_strategy

    factory: Callable[[], Bot] = load_strategy(name, game)
    return factory


def play_turn_based(
    game: Game,
    seed: int,
    seats: Sequence[str],
    stats: Callable[[State], list[dict[str, float]]] | None = None,
) -> MatchResult:
    """Drive a turn-based game from ``seed`` to its end.

    One ``random.Random(seed)`` feeds every chance node and every bot, in the order they are
    consulted, so a (seed, seats) pair always gives the same game.
    """
    if game.info.dynamics is not Dynamics.SEQUENTIAL:
        raise ValueError(f"{game.info.name} is not sequential: play_turn_based cannot drive it")
    if len(seats) != game.info.num_players:
        raise ValueError(f"{game.info.name} needs {game.info.num_players} seats, got {len(seats)}")
    factories = game.strategies()
    unknown = [name for name in seats if name not in factories and ":" not in name]
    if unknown:
        raise ValueError(f"unknown {game.info.name} strategies: {', '.join(unknown)}")
    bots = [
        factories[name]() if name in factories else _own_strategy(name, game.info.name)()
        for name in seats
    ]
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    length = 0
    while not state.is_terminal():
        if length >= game.info.max_game_length:
            raise RuntimeError(f"{game.info.name} game passed {length} actions without ending")
        player = state.current_player()
        if player == CHANCE:
            outcomes = state.chance_outcomes()
            actions = [action for action, _ in outcomes]
            weights = [probability for _, probability in outcomes]
            state.apply_action(rng.choices(actions, weights)[0])
        else:
            state.apply_action(bots[player].step(state, rng))
        length += 1
    returns = list(state.returns())
    return MatchResult(
        returns=returns,
        length=length,
        stats=stats(state) if stats is not None else [{} for _ in seats],
        winner=winner_of(returns),
    )
