"""The course's training players: DO_NOTHING, PLAY_RANDOM (with or without rotations), ASTAR.

Each is a pure function of the position (and the driver's random generator for PLAY_RANDOM), and
only ever picks a move that does not lose.
"""

from __future__ import annotations

import heapq
import random

from labyrinth.rules import MOVES, Labyrinth, Move, MoveType

__all__ = ["astar_move", "do_nothing_move", "random_move", "shortest_path"]

STAY = Move(MoveType.DO_NOTHING)


def do_nothing_move(labyrinth: Labyrinth) -> Move:
    """DO_NOTHING: always stays (and so gains one energy a turn)."""
    return STAY


def random_move(labyrinth: Labyrinth, rng: random.Random, rotations: bool) -> Move:
    """PLAY_RANDOM: uniform over the moves that do not lose, rotations included if allowed."""
    legal = labyrinth.legal_moves(rotations=rotations)
    return legal[rng.randrange(len(legal))]


def _torus_manhattan(a: tuple[int, int], b: tuple[int, int], width: int, height: int) -> int:
    dx = abs(a[0] - b[0])
    dy = abs(a[1] - b[1])
    return min(dx, width - dx) + min(dy, height - dy)


def shortest_path(labyrinth: Labyrinth, player: int) -> list[int] | None:
    """Step types of a shortest walk (at least one step) from ``player`` onto the treasure.

    A* with the torus Manhattan distance as its (consistent) heuristic; ties between equal
    paths go to the step type listed first (up, down, left, right). None when walled off.
    """
    width, height = labyrinth.width, labyrinth.height
    goal = labyrinth.treasure
    start = labyrinth.players[player]
    walls = labyrinth.walls
    # Nodes carry "has stepped yet" so that a player already on the treasure walks off and back.
    start_node = (start, start != goal)
    came_from: dict[tuple[tuple[int, int], bool], tuple[tuple[tuple[int, int], bool], int]] = {}
    best = {start_node: 0}
    frontier = [(_torus_manhattan(start, goal, width, height), 0, 0, start_node)]
    order = 0
    while frontier:
        _, cost, _, node = heapq.heappop(frontier)
        cell, moved = node
        if moved and cell == goal:
            steps: list[int] = []
            while node in came_from:
                node, step = came_from[node]
                steps.append(step)
            return steps[::-1]
        if cost > best[node]:
            continue
        for kind in MOVES:
            dx, dy = _DELTAS[kind]
            target = ((cell[0] + dx) % width, (cell[1] + dy) % height)
            if walls[target[1] * width + target[0]]:
                continue
            child = (target, True)
            if cost + 1 < best.get(child, 1 << 30):
                best[child] = cost + 1
                came_from[child] = (node, kind)
                order += 1
                estimate = cost + 1 + _torus_manhattan(target, goal, width, height)
                heapq.heappush(frontier, (estimate, cost + 1, order, child))
    return None


_DELTAS = {
    MoveType.MOVE_UP: (0, -1),
    MoveType.MOVE_DOWN: (0, 1),
    MoveType.MOVE_LEFT: (-1, 0),
    MoveType.MOVE_RIGHT: (1, 0),
}


def astar_move(labyrinth: Labyrinth) -> Move:
    """ASTAR: the first step of a shortest path to the treasure; stays when there is none."""
    path = shortest_path(labyrinth, labyrinth.to_move)
    return Move(path[0]) if path else STAY
