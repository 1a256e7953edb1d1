"""The course's test harnesses as pure functions: one parsed JSON value in, one JSON value out.

Each raises :class:`~fish.data.MalformedInput` naming the field at fault.
"""

from __future__ import annotations

from fish.data import (
    MalformedInput,
    action_to_json,
    parse_board,
    parse_natural,
    parse_position,
    parse_state,
    state_to_json,
)
from fish.rules import FISH_RULES, GAME_TYPE, MAX_FISH, penguins_each
from floes import OVER, PLACEMENT, Floes, minimax_move

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["HARNESSES", "xboard", "xref", "xstate", "xstrategy", "xtree"]


def _object(value: object, keys: tuple[str, ...], what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MalformedInput(f"expected {what} object, got {value!r}")
    for key in keys:
        if key not in value:
            raise MalformedInput(f"{what}: missing {key!r}")
    return value


def xboard(value: object) -> int:
    """``{"position": P, "board": B}`` -> how many tiles a penguin on P can reach."""
    query = _object(value, ("position", "board"), "a board query")
    rows, cols, fish = parse_board(query["board"])
    tile = parse_position(query["position"], rows, cols, "position")
    floes = Floes(FISH_RULES, rows, cols, fish, [])
    return len(floes.reachable(tile))


def xstate(value: object) -> Any:
    """A State -> the first player's first penguin moved to its first free neighbour (in the
    direction order), that player rotated to the end; ``false`` if it cannot."""
    parsed = parse_state(value)
    floes = parsed.floes
    seats = floes.seats
    if seats == 0 or not floes.penguins[0]:
        return False
    src = floes.penguins[0][0]
    for dst in floes.layout.neighbours[src]:
        if floes.is_free(dst):
            floes.push(0, 0, dst)
            return state_to_json(floes, parsed.colors, [*range(1, seats), 0])
    return False


def xtree(value: object) -> Any:
    """``{"state": S, "from": P, "to": Q}`` -> after the first player's move P -> Q, the second
    player's move onto a neighbour of Q (neighbours in direction order, then the smallest move),
    or ``false``."""
    query = _object(value, ("state", "from", "to"), "a move-response query")
    floes = parse_state(query["state"]).floes
    rows, cols = floes.layout.rows, floes.layout.cols
    src = parse_position(query["from"], rows, cols, "from")
    dst = parse_position(query["to"], rows, cols, "to")
    if floes.seats == 0 or src not in floes.penguins[0]:
        raise MalformedInput(f"from: the first player has no penguin on {query['from']!r}")
    if dst not in floes.reachable(src):
        raise MalformedInput(f"to: {query['to']!r} is not reachable from {query['from']!r}")
    floes.push(0, floes.penguins[0].index(src), dst)
    # The next player in the array, even when it cannot move (then the answer is false): the
    # course's examples show no skipping here.
    moves = floes.moves(1 % floes.seats)
    for target in floes.layout.neighbours[dst]:
        landing = [move for move in moves if move[1] == target]
        if landing:
            return action_to_json(floes, min(landing))
    return False


def xstrategy(value: object) -> Any:
    """``[D, State]`` -> the first player's minimax move over D of its turns, or ``false``."""
    if not (isinstance(value, list) and len(value) == 2):
        raise MalformedInput(f"expected [depth, state], got {value!r}")
    depth = parse_natural(value[0], "depth")
    if depth < 1:
        raise MalformedInput("depth: must be at least 1")
    floes = parse_state(value[1]).floes
    if floes.seats == 0:
        return False
    move = minimax_move(floes, 0, depth)
    return False if move is None else action_to_json(floes, move)


def xref(value: object) -> list[str]:
    """``{"row": R, "column": C, "players": [[name, depth], ...], "fish": F}`` -> the sorted
    names of the winners of a whole game between minimax players on an R x C board of F fish,
    each placing on the first free tile in row-major order."""
    query = _object(value, ("row", "column", "players", "fish"), "a game description")
    rows = parse_natural(query["row"], "row")
    cols = parse_natural(query["column"], "column")
    if rows < 1 or cols < 1:
        raise MalformedInput("row, column: a board has at least one row and one column")
    fish = parse_natural(query["fish"], "fish")
    if not 1 <= fish <= MAX_FISH:
        raise MalformedInput(f"fish: must be 1-{MAX_FISH}, got {fish}")
    players = query["players"]
    low, high = GAME_TYPE.min_players, GAME_TYPE.max_players
    if not isinstance(players, list) or not low <= len(players) <= high:
        raise MalformedInput(f"players: expected {low}-{high} [name, depth] pairs")
    names: list[str] = []
    depths: list[int] = []
    for index, player in enumerate(players):
        if not (isinstance(player, list) and len(player) == 2 and isinstance(player[0], str)):
            raise MalformedInput(f"players[{index}]: expected [name, depth], got {player!r}")
        depth = parse_natural(player[1], f"players[{index}][1]")
        if depth < 1:
            raise MalformedInput(f"players[{index}][1]: depth must be at least 1")
        names.append(player[0])
        depths.append(depth)
    count = len(players)
    floes = Floes(FISH_RULES, rows, cols, [fish] * (rows * cols), [penguins_each(count)] * count)
    while floes.phase != OVER:
        seat = floes.current
        if floes.phase == PLACEMENT:
            floes.place(floes.placements(seat)[0])
        else:
            move = minimax_move(floes, seat, depths[seat])
            assert move is not None, "the flow only hands the turn to a seat that can move"
            floes.move(*move)
    return sorted(names[seat] for seat in floes.winners())


HARNESSES = {
    "xboard": xboard,
    "xstate": xstate,
    "xtree": xtree,
    "xstrategy": xstrategy,
    "xref": xref,
}
