"""The course's JSON data definitions (Board, Position, Action, Player, State) to and from the core.

Parsing checks every field and raises :class:`MalformedInput` naming it, so a harness can say
what was wrong and exit 2. A State parses to a :class:`~floes.Floes` in movement whose
seat i is the i-th player of the array (the first player is to move), plus the seats' colours.
"""

from __future__ import annotations

from fish.rules import COLORS, FISH_RULES, MAX_FISH
from floes import MOVEMENT, Floes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = [
    "MalformedInput",
    "Parsed",
    "action_to_json",
    "board_to_json",
    "parse_board",
    "parse_natural",
    "parse_position",
    "parse_state",
    "position_to_json",
    "state_to_json",
]


class MalformedInput(ValueError):
    """The input does not follow the course's data definitions; the message names the field."""


def _is_natural(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def parse_natural(value: object, field: str) -> int:
    if not _is_natural(value):
        raise MalformedInput(f"{field}: expected a natural number, got {value!r}")
    result: int = value  # type: ignore[assignment]
    return result


def parse_board(value: object, field: str = "board") -> tuple[int, int, list[int]]:
    """A Board -> (rows, cols, fish per tile); short rows are padded with holes."""
    if not isinstance(value, list):
        raise MalformedInput(f"{field}: expected an array of rows, got {value!r}")
    rows: list[list[Any]] = []
    for r, row in enumerate(value):
        if not isinstance(row, list):
            raise MalformedInput(f"{field}[{r}]: expected an array of tiles, got {row!r}")
        for c, tile in enumerate(row):
            if not _is_natural(tile) or tile > MAX_FISH:
                raise MalformedInput(f"{field}[{r}][{c}]: a tile is 0-{MAX_FISH}, got {tile!r}")
        rows.append(row)
    cols = max((len(row) for row in rows), default=0)
    fish = [0] * (len(rows) * cols)
    for r, row in enumerate(rows):
        fish[r * cols : r * cols + len(row)] = row
    return len(rows), cols, fish


def parse_position(value: object, rows: int, cols: int, field: str) -> int:
    """A Position [row, column] on a rows x cols board -> its tile."""
    if not (isinstance(value, list) and len(value) == 2 and all(map(_is_natural, value))):
        raise MalformedInput(f"{field}: expected a position [row, column], got {value!r}")
    row, col = value
    if row >= rows or col >= cols:
        raise MalformedInput(f"{field}: {value!r} is off the {rows} x {cols} board")
    tile: int = row * cols + col
    return tile


class Parsed:
    """A parsed State: the position and the colour of each seat."""

    __slots__ = ("colors", "floes")

    def __init__(self, floes: Floes, colors: list[str]) -> None:
        self.floes = floes
        self.colors = colors


def parse_state(value: object, field: str = "state") -> Parsed:
    """A State -> a position in movement with the first player to move."""
    if not isinstance(value, dict):
        raise MalformedInput(f"{field}: expected an object with players and board, got {value!r}")
    for key in ("players", "board"):
        if key not in value:
            raise MalformedInput(f"{field}: missing {key!r}")
    rows, cols, fish = parse_board(value["board"], f"{field}.board")
    players = value["players"]
    if not isinstance(players, list) or len(players) > len(COLORS):
        raise MalformedInput(f"{field}.players: expected an array of at most 4 players")
    colors: list[str] = []
    scores: list[int] = []
    penguins: list[list[int]] = []
    taken: set[int] = set()
    for seat, player in enumerate(players):
        where = f"{field}.players[{seat}]"
        if not isinstance(player, dict):
            raise MalformedInput(f"{where}: expected a player object, got {player!r}")
        for key in ("color", "score", "places"):
            if key not in player:
                raise MalformedInput(f"{where}: missing {key!r}")
        color = player["color"]
        if color not in COLORS:
            raise MalformedInput(f"{where}.color: expected one of {', '.join(COLORS)}")
        if color in colors:
            raise MalformedInput(f"{where}.color: {color} plays twice")
        scores.append(parse_natural(player["score"], f"{where}.score"))
        places = player["places"]
        if not isinstance(places, list):
            raise MalformedInput(f"{where}.places: expected an array of positions")
        tiles = []
        for index, place in enumerate(places):
            tile = parse_position(place, rows, cols, f"{where}.places[{index}]")
            if fish[tile] == 0:
                raise MalformedInput(f"{where}.places[{index}]: {place!r} is a hole")
            if tile in taken:
                raise MalformedInput(f"{where}.places[{index}]: {place!r} has two penguins")
            taken.add(tile)
            tiles.append(tile)
        colors.append(color)
        penguins.append(tiles)
    floes = Floes(
        FISH_RULES,
        rows,
        cols,
        fish,
        [0] * len(players),
        penguins=penguins,
        scores=scores,
        phase=MOVEMENT,
    )
    return Parsed(floes, colors)


def position_to_json(floes: Floes, tile: int) -> list[int]:
    return list(divmod(tile, floes.layout.cols))


def action_to_json(floes: Floes, move: tuple[int, int]) -> list[list[int]]:
    return [position_to_json(floes, move[0]), position_to_json(floes, move[1])]


def board_to_json(floes: Floes) -> list[list[int]]:
    cols = floes.layout.cols
    return [floes.fish[r * cols : (r + 1) * cols] for r in range(floes.layout.rows)]


def state_to_json(floes: Floes, colors: Sequence[str], order: Sequence[int]) -> dict[str, Any]:
    """A State whose players array lists the seats in ``order``."""
    return {
        "board": board_to_json(floes),
        "players": [
            {
                "score": floes.scores[seat],
                "color": colors[seat],
                "places": [position_to_json(floes, tile) for tile in floes.penguins[seat]],
            }
            for seat in order
        ],
    }
