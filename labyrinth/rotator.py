"""The rotator: a two-ply minimax over moves and rotations, scored by breadth-first distances.

Labyrinth is a race: with distances ``d_me`` and ``d_opp`` to the treasure and no rotation left
in the game, the player to move wins exactly when its distance is not larger. A rotation costs a
tempo and five energy, so it pays when it widens the gap by two steps or more: pulling the
treasure (or the rotator) one row closer, pushing the opponent off its corridor, or walling its
path. When the opponent stands next to the treasure a rotation is the only defence left.

The search: every action of ours (steps, stay, and each of the 2(L+H) rotations when we have the
energy), then every reply of the opponent (its best step, which in a fixed maze is one step down
its shortest path, and when it has the energy its rotations of the rows and columns through
either player or the treasure), then a static score with us to move:

    score = d_opp - d_me + 1/2 + ENERGY_WEIGHT * (min(e_me, cap) - min(e_opp, cap))

(the 1/2 says the side to move wins ties), with a win in one (``d == 1`` for the side to move)
scored as decisive. Our actions are tried best-first by their one-ply score and the replies are
cut as soon as one is worse than the best action so far (alpha-beta). Distances come from flood
fills on bit sets (bitboard.Torus), a few microseconds a layer.
"""

from __future__ import annotations

from labyrinth.bitboard import UNREACHABLE, Torus, free_mask
from labyrinth.rules import MOVES, ROTATIONS, Labyrinth, Move, MoveType

__all__ = ["Rotator"]

WIN = 1000.0
#: One energy point is worth a fifth of a step: a rotation's energy is worth about one step.
ENERGY_WEIGHT = 0.2

Cell = tuple[int, int]
#: free cells, our cell, the opponent's cell, the treasure, our energy, its energy
Node = tuple[int, Cell, Cell, Cell, int, int]

_DELTAS = {
    MoveType.MOVE_UP: (0, -1),
    MoveType.MOVE_DOWN: (0, 1),
    MoveType.MOVE_LEFT: (-1, 0),
    MoveType.MOVE_RIGHT: (1, 0),
}


class Rotator:
    """Chooses a move for the player to move of a :class:`Labyrinth` (never a losing one)."""

    def __init__(
        self, energy_weight: float = ENERGY_WEIGHT, opponent_rotations: bool = False
    ) -> None:
        self.energy_weight = energy_weight
        #: Whether the search lets the opponent rotate (a paranoid model) or only walk.
        self.opponent_rotations = opponent_rotations

    def choose(self, labyrinth: Labyrinth) -> Move:
        width, height = labyrinth.width, labyrinth.height
        torus = Torus.of(width, height)
        self._torus = torus
        self._cost = labyrinth.config.rotation_cost
        self._cap = 2 * self._cost
        me = labyrinth.to_move
        free = free_mask(labyrinth.walls)
        mine, theirs = labyrinth.players[me], labyrinth.players[1 - me]
        treasure = labyrinth.treasure
        energy, their_energy = labyrinth.energies[me], labyrinth.energies[1 - me]

        layers = torus.layers(free, self._bit(treasure))
        their_distance = self._distance_in(layers, free, theirs, treasure)
        # (move, position after it, our distance, theirs), steps and stay first so that ties
        # keep energy rather than spend it.
        candidates: list[tuple[Move, Node, int, int]] = []
        for kind in MOVES:
            dx, dy = _DELTAS[kind]
            cell = ((mine[0] + dx) % width, (mine[1] + dy) % height)
            if labyrinth.walls[cell[1] * width + cell[0]]:
                continue
            if cell == treasure:
                return Move(kind)
            node = (free, cell, theirs, treasure, energy + 1, their_energy)
            distance = self._distance_in(layers, free, cell, treasure)
            candidates.append((Move(kind), node, distance, their_distance))
        stay = (free, mine, theirs, treasure, energy + 1, their_energy)
        distance = self._distance_in(layers, free, mine, treasure)
        candidates.append((Move(MoveType.DO_NOTHING), stay, distance, their_distance))
        if energy >= self._cost:
            base = (free, mine, theirs, treasure, energy - self._cost, their_energy)
            for kind in ROTATIONS:
                for index in range(height if kind < MoveType.ROTATE_COLUMN_UP else width):
                    node = self._rotate(base, kind, index)
                    candidates.append((Move(kind, index), node, *self._distances(node)))
        # Best-first by the one-ply score (a stable sort keeps the order above among ties).
        candidates.sort(key=lambda entry: -self._score_them_to_move(*entry[1:]))
        best_value = -2 * WIN
        best_move = candidates[0][0]
        for move, node, d_me, d_opp in candidates:
            value = self._worst_reply(node, d_me, d_opp, best_value)
            if value > best_value:
                best_value, best_move = value, move
        return best_move

    # -- search ---------------------------------------------------------------------------

    def _worst_reply(self, node: Node, d_me: int, d_opp: int, alpha: float) -> float:
        """The opponent's best answer to ``node`` (it is to move), cut off at ``alpha``."""
        free, mine, theirs, treasure, energy, their_energy = node
        if d_opp == 1:
            return -WIN
        walked = d_opp - 1
        value = self._score_us_to_move(d_me, walked, energy, their_energy + 1)
        if value <= alpha or not self.opponent_rotations or their_energy < self._cost:
            return value
        spent = their_energy - self._cost
        base = (free, mine, theirs, treasure, energy, spent)
        rows = {mine[1], theirs[1], treasure[1]}
        columns = {mine[0], theirs[0], treasure[0]}
        lines = [(kind, row) for row in sorted(rows) for kind in ROTATIONS[:2]]
        lines += [(kind, column) for column in sorted(columns) for kind in ROTATIONS[2:]]
        for kind, index in lines:
            child = self._rotate(base, kind, index)
            child_me, child_opp = self._distances(child)
            value = min(value, self._score_us_to_move(child_me, child_opp, energy, spent))
            if value <= alpha:
                return value
        return value

    def _score_us_to_move(self, d_me: int, d_opp: int, energy: int, their_energy: int) -> float:
        if d_me == 1:
            return WIN / 2
        return d_opp - d_me + 0.5 + self._energy_term(energy, their_energy)

    def _score_them_to_move(self, node: Node, d_me: int, d_opp: int) -> float:
        if d_opp == 1:
            return -WIN
        return d_opp - d_me - 0.5 + self._energy_term(node[4], node[5])

    def _energy_term(self, energy: int, their_energy: int) -> float:
        return self.energy_weight * (min(energy, self._cap) - min(their_energy, self._cap))

    # -- geometry -------------------------------------------------------------------------

    def _bit(self, cell: Cell) -> int:
        return 1 << (cell[1] * self._torus.width + cell[0])

    def _distances(self, node: Node) -> tuple[int, int]:
        free, mine, theirs, treasure, _, _ = node
        d_me, d_opp = self._torus.distances_to(
            free, self._bit(treasure), self._bit(mine), self._bit(theirs)
        )
        return self._walled_off(d_me, mine, treasure), self._walled_off(d_opp, theirs, treasure)

    def _walled_off(self, distance: int, cell: Cell, treasure: Cell) -> int:
        """A finite stand-in for "no path": far, but nearer when fewer cells lie in between.

        Rotations can reopen a path, so a walker cut off near the treasure is better placed
        than one cut off far away; the penalty keeps any real path preferable.
        """
        if distance < UNREACHABLE:
            return distance
        torus = self._torus
        dx = abs(cell[0] - treasure[0])
        dy = abs(cell[1] - treasure[1])
        manhattan = min(dx, torus.width - dx) + min(dy, torus.height - dy)
        return torus.width + torus.height + manhattan

    def _distance_in(self, layers: list[int], free: int, cell: Cell, treasure: Cell) -> int:
        if cell == treasure:
            if self._torus.neighbours(self._bit(cell)) & free:
                return 2
            return self._walled_off(UNREACHABLE, cell, treasure)
        bit = self._bit(cell)
        for distance, layer in enumerate(layers):
            if layer & bit:
                return distance
        return self._walled_off(UNREACHABLE, cell, treasure)

    def _rotate(self, node: Node, kind: int, index: int) -> Node:
        free, mine, theirs, treasure, energy, their_energy = node
        torus = self._torus
        if kind in (MoveType.ROTATE_LINE_LEFT, MoveType.ROTATE_LINE_RIGHT):
            shift = -1 if kind == MoveType.ROTATE_LINE_LEFT else 1
            free = torus.rotate_row(free, index, shift)

            def carry(cell: Cell) -> Cell:
                return ((cell[0] + shift) % torus.width, cell[1]) if cell[1] == index else cell

        else:
            shift = -1 if kind == MoveType.ROTATE_COLUMN_UP else 1
            free = torus.rotate_column(free, index, shift)

            def carry(cell: Cell) -> Cell:
                return (cell[0], (cell[1] + shift) % torus.height) if cell[0] == index else cell

        return (free, carry(mine), carry(theirs), carry(treasure), energy, their_energy)
