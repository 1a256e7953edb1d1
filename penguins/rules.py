"""The rules of Penguins (spec penguins.md, "Rules") as data for the shared floes core.

Fish and Penguins are one game on two boards, so the flow (placement round robin, movement,
skipping a player who cannot act, the end when nobody can move) and the position with its
``push``/``pop`` live in :mod:`floes`. Penguins differs only here:

* squares with four directions (up, down, left, right) instead of hexagons with six;
* a penguin collects the fish of the floe where it **lands** (placing included), so a floe with
  a penguin holds 0 fish, and the floe it leaves becomes a hole;
* a penguin is placed only on a free floe with exactly one fish; a player with penguins left but
  no such floe is skipped (placement only ever removes one-fish floes, so it stays skipped);
* at most 9 players, known in files by their number 1-9: seat ``s`` of the core is player
  number ``s + 1``.

It also generates boards from a seed and converts between the board file and the core.
Standard library only: the player program imports this on every call.
"""

from __future__ import annotations

from floes import MOVEMENT, PLACEMENT, Floes, Geometry, Rules
from protocol.penguins import MAX_FISH, MAX_PLAYERS, BoardFile, PlayerLine

# random only annotates here (generators come from callers): a player call does not import it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import random

__all__ = [
    "DIRECTIONS",
    "MAX_FISH",
    "MAX_PLAYERS",
    "PENGUINS_RULES",
    "SQUARE",
    "from_board",
    "generate_fish",
    "penguins_each",
    "square_step",
    "to_board",
]

#: Direction names, in the order the core walks them.
DIRECTIONS = ("up", "down", "left", "right")
_DELTAS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def square_step(row: int, col: int, direction: int) -> tuple[int, int]:
    """One step from (row, col) in ``direction`` (an index into DIRECTIONS)."""
    dr, dc = _DELTAS[direction]
    return row + dr, col + dc


SQUARE = Geometry("square", DIRECTIONS, square_step)

#: Scores the floe landed on (which keeps no fish), places only on one-fish floes collecting that
#: fish, and skips (never removes) a player who finds no such floe.
PENGUINS_RULES = Rules(SQUARE, score_on_leave=False, placement_fish=1, collect_on_place=True)


def penguins_each(players: int, rows: int, cols: int) -> int:
    """Default penguins per player: 4, fewer on crowded boards so that every penguin has about
    eight tiles to itself (and at least one penguin each)."""
    return max(1, min(4, rows * cols // (8 * players)))


def generate_fish(rng: random.Random, rows: int, cols: int, ones: int) -> list[int]:
    """A random board, row-major: about 10% holes, floes of 1, 2 and 3 fish in proportions
    4:3:3, and at least ``ones`` one-fish floes so that every penguin can be placed."""
    size = rows * cols
    if not 0 <= ones <= size:
        raise ValueError(f"{ones} one-fish floes cannot fit on a {rows} x {cols} board")
    fish = [
        0 if rng.random() < 0.1 else rng.choice((1, 1, 1, 1, 2, 2, 2, 3, 3, 3)) for _ in range(size)
    ]
    others = [tile for tile in range(size) if fish[tile] != 1]
    rng.shuffle(others)
    missing = ones - (size - len(others))
    for tile in others[: max(0, missing)]:
        fish[tile] = 1
    return fish


def from_board(board: BoardFile, phase: str, me: int, quota: int = 0) -> Floes:
    """The core position of a board file, with player number ``me`` to act (its seat is
    ``me - 1``) and ``quota`` penguins left for it to place. Seats of numbers without a player
    line are inactive; the scores are the file's."""
    if phase not in (PLACEMENT, MOVEMENT):
        raise ValueError(f"phase must be {PLACEMENT} or {MOVEMENT}, got {phase!r}")
    seats = MAX_PLAYERS
    penguins: list[list[int]] = [[] for _ in range(seats)]
    for tile, number in enumerate(board.owner):
        if number:
            penguins[number - 1].append(tile)
    scores = [0] * seats
    for player in board.players:
        scores[player.number - 1] = player.score
    quotas = [0] * seats
    quotas[me - 1] = quota
    state = Floes(
        PENGUINS_RULES,
        board.rows,
        board.cols,
        board.fish,
        quotas,
        penguins=penguins,
        scores=scores,
        phase=phase,
        current=me - 1,
    )
    listed = {player.number for player in board.players} | {me}
    for seat in range(seats):
        state.active[seat] = seat + 1 in listed
    return state


def to_board(state: Floes, board: BoardFile) -> None:
    """Copy the core's fields back into the board file (the file then rewrites what changed)."""
    board.fish[:] = state.fish
    board.owner[:] = [seat + 1 for seat in state.owner]


def board_of(state: Floes, names: list[str] | None = None) -> BoardFile:
    """A board file of a core position: seat ``s`` is player number ``s + 1`` with id
    ``names[s]`` (default ``player<number>``)."""
    if state.seats > MAX_PLAYERS:
        raise ValueError(f"a board file holds at most {MAX_PLAYERS} players, not {state.seats}")
    players = [
        PlayerLine(names[seat] if names else f"player{seat + 1}", seat + 1, state.scores[seat])
        for seat in range(state.seats)
    ]
    return BoardFile(
        state.layout.rows,
        state.layout.cols,
        list(state.fish),
        [seat + 1 for seat in state.owner],
        players,
    )
