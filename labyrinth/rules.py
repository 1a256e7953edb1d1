"""The rules of Labyrinth (spec labyrinth.md): a pure position object, no I/O, no randomness.

The maze is a torus of ``width`` (L) x ``height`` (H) cells stored row by row as the network
protocol sends it (``walls[y * L + x]`` is 1 for a wall, 0 for a free cell). Moves use the C API's
``t_move`` encoding (type 0-8 and value) and :meth:`Labyrinth.play` answers the protocol's return
code, so the server's ``PLAY_MOVE <type> <value>`` maps onto it one to one.

Decisions where the spec is silent (documented in the readme too):

* A move (up, down, left, right) gains one energy like DO_NOTHING does: the source document says
  "À chaque fois que vous faites un déplacement de ce type, vous gagnez une unité d'énergie", and
  its figure 2 shows a move to the right taking the mover from 5 to 6 energy.
* A "turn" is one player's move (a ply): the spec defines "a turn" as one move, rotation or stay,
  so the 1000-turn limit gives each player 500 moves.
* Every ``t_move`` the protocol can carry may be played: one that breaks a rule (into a wall, a
  row or column index out of range, a rotation without energy, an unknown type) ends the game
  with MOVE_LOSE for its author. Only playing after the end is our caller's bug (ValueError).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

from floes.referee import GameType

__all__ = [
    "GAME_TYPE",
    "MOVES",
    "PROFILES",
    "ROTATIONS",
    "Labyrinth",
    "LabyrinthConfig",
    "Move",
    "MoveType",
    "ReturnCode",
    "format_move",
    "parse_move",
    "whole_number",
]

#: The Labyrinth's facts, declared once: two players who move in turn, no chance after the
#: maze's generation, the whole maze and both players seen by each.
GAME_TYPE = GameType("labyrinth", "Labyrinth", min_players=2, max_players=2)


class MoveType(IntEnum):
    """The ``type`` field of a move, numbered as the C API's ``t_typeMove``."""

    ROTATE_LINE_LEFT = 0
    ROTATE_LINE_RIGHT = 1
    ROTATE_COLUMN_UP = 2
    ROTATE_COLUMN_DOWN = 3
    MOVE_UP = 4
    MOVE_DOWN = 5
    MOVE_LEFT = 6
    MOVE_RIGHT = 7
    DO_NOTHING = 8


class ReturnCode(IntEnum):
    """What a move means for the player who just played it (the C API's ``t_return_code``)."""

    MOVE_OK = 0
    MOVE_WIN = 1
    MOVE_LOSE = -1


class Move(NamedTuple):
    """One ``t_move``: a type and the row or column index of a rotation (0 when unused: the
    public server refuses a negative value as a malformed move)."""

    type: int
    value: int = 0


#: The four rotation types and the four step types, in encoding order.
ROTATIONS = (
    MoveType.ROTATE_LINE_LEFT,
    MoveType.ROTATE_LINE_RIGHT,
    MoveType.ROTATE_COLUMN_UP,
    MoveType.ROTATE_COLUMN_DOWN,
)
MOVES = (MoveType.MOVE_UP, MoveType.MOVE_DOWN, MoveType.MOVE_LEFT, MoveType.MOVE_RIGHT)

#: (dx, dy) of each step type; y grows downwards, (0, 0) is the top-left cell.
STEP = {
    MoveType.MOVE_UP: (0, -1),
    MoveType.MOVE_DOWN: (0, 1),
    MoveType.MOVE_LEFT: (-1, 0),
    MoveType.MOVE_RIGHT: (1, 0),
}


@dataclass(frozen=True, slots=True)
class LabyrinthConfig:
    """Every *(config)* number of the spec, plus the generator's wall density."""

    width_range: tuple[int, int] = (13, 17)
    height_range: tuple[int, int] = (9, 15)
    #: Step between drawn widths (the public server draws 4k+1: 13, 17, 21).
    width_step: int = 2
    #: Energy of the first player (who starts at x = 0) and of the second one.
    start_energy: tuple[int, int] = (0, 1)
    rotation_cost: int = 5
    #: Turns (single moves, either player's) after which a game without winner is a draw.
    max_turns: int = 1000
    #: Seconds per move on a server; the simulator has no clock.
    move_timeout: float = 10.0
    #: Share of cells the generator tries to wall (it stops earlier to keep the maze connected).
    wall_ratio: float = 0.4

    def __post_init__(self) -> None:
        for name in ("width_range", "height_range"):
            low, high = getattr(self, name)
            if low % 2 == 0 or high % 2 == 0 or not 5 <= low <= high:
                raise ValueError(
                    f"{name} must be two odd sizes with 5 <= low <= high, got {(low, high)}"
                )
        if self.width_step not in (2, 4):
            raise ValueError(f"width_step must be 2 or 4, got {self.width_step}")
        if self.rotation_cost < 0 or self.max_turns < 1 or min(self.start_energy) < 0:
            raise ValueError("rotation_cost, start_energy must be >= 0 and max_turns >= 1")
        if not 0.0 <= self.wall_ratio < 1.0:
            raise ValueError(f"wall_ratio must be in [0, 1), got {self.wall_ratio}")


#: Rules profiles by name: "spec" (the project's rules) and "cgs2017" (as the public
#: CodingGameServer plays them: second player's energy 2, widths 13/17/21, heights 7-19, no turn
#: limit).
PROFILES = {
    "spec": LabyrinthConfig(),
    "cgs2017": LabyrinthConfig(
        width_range=(13, 21),
        height_range=(7, 19),
        width_step=4,
        start_energy=(0, 2),
        max_turns=1 << 62,
    ),
}


class Labyrinth:
    """A position: the maze, both players, the treasure, energies, whose turn, and the outcome.

    Player 0 moves first, starts at (0, H/2) with ``start_energy[0]``; player 1 starts at
    (L-1, H/2). Mutated only through :meth:`play`.
    """

    __slots__ = (
        "config",
        "end_reason",
        "energies",
        "height",
        "over",
        "players",
        "rotations",
        "to_move",
        "treasure",
        "turn",
        "walls",
        "width",
        "winner",
    )

    def __init__(
        self, width: int, height: int, walls: bytes, config: LabyrinthConfig | None = None
    ) -> None:
        if len(walls) != width * height:
            raise ValueError(f"walls has {len(walls)} cells, expected {width} x {height}")
        if width % 2 == 0 or height % 2 == 0 or width < 3 or height < 3:
            raise ValueError(f"width and height must be odd and >= 3, got {width} x {height}")
        self.config = config if config is not None else LabyrinthConfig()
        self.width = width
        self.height = height
        self.walls = bytearray(1 if cell else 0 for cell in walls)
        middle = height // 2
        self.players = [(0, middle), (width - 1, middle)]
        self.treasure = (width // 2, middle)
        for x, y in [*self.players, self.treasure]:
            if self.walls[y * width + x]:
                raise ValueError(f"cell ({x}, {y}) holds a player or the treasure: it must be free")
        self.energies = list(self.config.start_energy)
        self.rotations = [0, 0]
        self.to_move = 0
        self.turn = 0
        self.over = False
        self.winner: int | None = None
        self.end_reason = ""

    @classmethod
    def from_maze_text(
        cls, width: int, height: int, text: str, config: LabyrinthConfig | None = None
    ) -> Labyrinth:
        """The initial position from the protocol's maze: L*H characters '0' free, '1' wall."""
        if len(text) != width * height:
            raise ValueError(
                f"maze text has {len(text)} characters, expected {width} x {height} = "
                f"{width * height}"
            )
        unexpected = sorted(set(text) - {"0", "1"})
        if unexpected:
            raise ValueError(f"maze text may hold only '0' and '1', found {unexpected}")
        return cls(width, height, bytes(char == "1" for char in text), config)

    def clone(self) -> Labyrinth:
        copy = Labyrinth.__new__(Labyrinth)
        copy.config = self.config
        copy.width = self.width
        copy.height = self.height
        copy.walls = bytearray(self.walls)
        copy.players = list(self.players)
        copy.treasure = self.treasure
        copy.energies = list(self.energies)
        copy.rotations = list(self.rotations)
        copy.to_move = self.to_move
        copy.turn = self.turn
        copy.over = self.over
        copy.winner = self.winner
        copy.end_reason = self.end_reason
        return copy

    def is_wall(self, x: int, y: int) -> bool:
        return self.walls[(y % self.height) * self.width + x % self.width] == 1

    def step_target(self, player: int, move_type: int) -> tuple[int, int]:
        """The cell a step of ``move_type`` would take ``player`` to (wrapping)."""
        x, y = self.players[player]
        dx, dy = STEP[MoveType(move_type)]
        return ((x + dx) % self.width, (y + dy) % self.height)

    def losing_reason(self, move: Move) -> str | None:
        """Why ``move`` would lose for the player to move, or None when it is legal."""
        kind, value = move
        if kind in MOVES:
            x, y = self.step_target(self.to_move, kind)
            return f"moves into the wall at ({x}, {y})" if self.is_wall(x, y) else None
        if kind == MoveType.DO_NOTHING:
            return None
        if kind in (MoveType.ROTATE_LINE_LEFT, MoveType.ROTATE_LINE_RIGHT):
            if not 0 <= value < self.height:
                return f"rotates row {value}, outside 0..{self.height - 1}"
        elif kind in (MoveType.ROTATE_COLUMN_UP, MoveType.ROTATE_COLUMN_DOWN):
            if not 0 <= value < self.width:
                return f"rotates column {value}, outside 0..{self.width - 1}"
        else:
            return f"unknown move type {kind}"
        energy = self.energies[self.to_move]
        if energy < self.config.rotation_cost:
            return f"rotates with {energy} energy, needs {self.config.rotation_cost}"
        return None

    def legal_moves(self, rotations: bool = True) -> list[Move]:
        """Every move that does not lose, rotations first (by type then index), then steps."""
        if self.over:
            return []
        legal: list[Move] = []
        if rotations and self.energies[self.to_move] >= self.config.rotation_cost:
            for kind in ROTATIONS:
                count = self.height if kind < MoveType.ROTATE_COLUMN_UP else self.width
                legal += [Move(kind, index) for index in range(count)]
        for kind in MOVES:
            x, y = self.step_target(self.to_move, kind)
            if not self.walls[y * self.width + x]:
                legal.append(Move(kind))
        legal.append(Move(MoveType.DO_NOTHING))
        return legal

    def play(self, move: Move) -> ReturnCode:
        """Play ``move`` for the player to move and return its code for that player."""
        if self.over:
            raise ValueError(f"the game is over ({self.end_reason}); no move can be played")
        try:
            kind, value = (int(field) for field in move)
        except (TypeError, ValueError):
            raise ValueError(f"{move!r} is not a move: expected (type, value) integers") from None
        player = self.to_move
        self.turn += 1
        reason = self.losing_reason(Move(kind, value))
        if reason is not None:
            self._end(winner=1 - player, reason=f"player {player} {reason}")
            return ReturnCode.MOVE_LOSE
        if kind in MOVES:
            self.players[player] = self.step_target(player, kind)
            self.energies[player] += 1
            if self.players[player] == self.treasure:
                self._end(winner=player, reason=f"player {player} reached the treasure")
                return ReturnCode.MOVE_WIN
        elif kind == MoveType.DO_NOTHING:
            self.energies[player] += 1
        else:
            self._rotate(MoveType(kind), value)
            self.energies[player] -= self.config.rotation_cost
            self.rotations[player] += 1
        self.to_move = 1 - player
        if self.turn >= self.config.max_turns:
            self._end(winner=None, reason=f"no winner after {self.turn} turns")
        return ReturnCode.MOVE_OK

    def _end(self, winner: int | None, reason: str) -> None:
        self.over = True
        self.winner = winner
        self.end_reason = reason

    def _rotate(self, kind: MoveType, index: int) -> None:
        """Shift one row or column by one cell, circularly, carrying players and the treasure."""
        width, height = self.width, self.height
        if kind in (MoveType.ROTATE_LINE_LEFT, MoveType.ROTATE_LINE_RIGHT):
            shift = -1 if kind == MoveType.ROTATE_LINE_LEFT else 1
            start = index * width
            row = self.walls[start : start + width]
            # new[x] = old[x - shift]
            self.walls[start : start + width] = row[-shift:] + row[:-shift]

            def carry(cell: tuple[int, int]) -> tuple[int, int]:
                x, y = cell
                return ((x + shift) % width, y) if y == index else cell

        else:
            shift = -1 if kind == MoveType.ROTATE_COLUMN_UP else 1
            column = self.walls[index::width]
            self.walls[index::width] = column[-shift:] + column[:-shift]

            def carry(cell: tuple[int, int]) -> tuple[int, int]:
                x, y = cell
                return (x, (y + shift) % height) if x == index else cell

        self.players = [carry(cell) for cell in self.players]
        self.treasure = carry(self.treasure)

    def maze_text(self) -> str:
        """The maze as the protocol's GET_GAME_DATA sends it: L*H characters '0'/'1', by rows."""
        return self.walls.translate(_DIGITS).decode("ascii")


def whole_number(word: str) -> int | None:
    """An integer as C's ``%d`` writes it (ASCII digits, optionally after "-", at most the 10
    of an int), else None. int() alone would also take "1_0", "+7" and non-ASCII digits such
    as "٣", and raise on more than 4300 digits."""
    digits = word[1:] if word.startswith("-") else word
    return int(word) if len(digits) <= 10 and digits.isascii() and digits.isdigit() else None


def parse_move(text: str) -> Move:
    """A move from the protocol's ``"<type> <value>"`` text (as after PLAY_MOVE / GET_MOVE)."""
    fields = text.split()
    if len(fields) != 2:
        raise ValueError(f"a move is '<type> <value>', got {text!r}")
    kind, value = whole_number(fields[0]), whole_number(fields[1])
    if kind is None or value is None:
        raise ValueError(f"a move's type and value are integers, got {text!r}")
    return Move(kind, value)


def format_move(move: Move) -> str:
    """The protocol's ``"<type> <value>"`` text of a move."""
    return f"{int(move[0])} {int(move[1])}"


_DIGITS = bytes.maketrans(b"\x00\x01", b"01")
