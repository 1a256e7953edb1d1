"""The core shared by Fish and Penguins: penguins on a board of ice floes.

Both games are one game on two boards. What is really shared lives here:

* :mod:`~floes.layout`: a :class:`Layout` is a ``rows x cols`` board of a
  :class:`Geometry`, with every tile's straight lines (``rays[tile][direction]``, nearest tile
  first, up to the edge) and one-step ``neighbours`` precomputed. Tiles are ints
  ``row * cols + col``, so comparing tiles compares (row, col).
* :mod:`~floes.state`: :class:`Floes`, the whole position as flat lists (``fish``
  per tile, 0 = hole; ``owner`` per tile, -1 = no penguin; ``penguins`` per seat in placement
  order; ``scores``; ``quota`` of penguins left to place; ``active`` seats), and the flow:
  placement round robin, then movement from the first seat, a seat that cannot act is skipped,
  the game is ``OVER`` when nobody can move; ``winners()`` are the active seats with the top
  score. Checked actions ``place(tile)``/``move(src, dst)`` act for ``current`` and pass the turn;
  ``push``/``pop`` play and take back a move for searches.
* :mod:`~floes.search`: :func:`minimax_move`, the courses' minimax over D of one's
  own turns (opponents minimising), exact, with alpha-beta and proven bounds;
  :func:`next_mover` (who moves after a seat, with skipping).
* :mod:`~floes.paranoid`: :class:`Paranoid`, the strong player of both games
  (paranoid alpha-beta with iterative deepening within a node budget), configured by a game's
  leaf estimate: Fish's ``paranoid`` with :func:`evaluate` (score plus prospects), Penguins'
  ``alphabeta`` with its reach estimate; ``paranoid_placement`` places by the same evaluation.

How a game plugs in:

1. A **geometry**: ``Geometry(name, directions, step)`` where ``step(row, col, d)`` returns the
   (row, col) one step in direction ``d`` (an index into ``directions``; the direction order is
   the order searches and course harnesses try them). Off-board results are fine: the layout
   clips. Fish: hexagons in offset rows (``fish.rules.HEX``); Penguins: squares.
2. **Rules** where the games differ: ``Rules(geometry, *, score_on_leave,
   placement_fish=None, collect_on_place=False, eliminate_unplaceable=False)``. Fish scores the
   tile it leaves and places on any free floe; Penguins scores the floe it lands on (which keeps
   no fish), places only on 1-fish floes and collects that fish.
3. A **position**: ``Floes(rules, rows, cols, fish, quota, penguins=..., scores=...,
   phase=..., current=...)``.

Only the standard library is imported: the course harnesses and the Penguins player start in
milliseconds.
"""

from __future__ import annotations

from floes.layout import Geometry, Layout, layout
from floes.search import minimax_move, minimax_value, next_mover
from floes.state import MOVEMENT, OVER, PLACEMENT, Floes, IllegalAction, Rules, Undo

__all__ = [
    "MOVEMENT",
    "OVER",
    "PLACEMENT",
    "Floes",
    "Geometry",
    "IllegalAction",
    "Layout",
    "Rules",
    "Undo",
    "layout",
    "minimax_move",
    "minimax_value",
    "next_mover",
]
