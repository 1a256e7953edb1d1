"""Board shapes: a geometry (the direction table) and every tile's straight lines, precomputed.

A tile is an ``int`` index ``row * cols + col``, so comparing indices compares (row, col)
lexicographically: the order both courses break ties in.
"""

from __future__ import annotations

# Not `from typing import TYPE_CHECKING`, and no dataclasses: both are slow imports, and the
# Penguins player and the course harnesses load this module (start-up: docs/penguins.md). mypy
# honours it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Geometry", "Layout", "layout"]

if TYPE_CHECKING:
    #: One step from (row, col) in direction ``d`` (an index into Geometry.directions); the result
    #: may be off the board: the layout checks bounds, so a step function is pure arithmetic.
    Step = Callable[[int, int, int], tuple[int, int]]


class Geometry:
    """The shape of the tiles: direction names, in the order searches try them, and one step.

    Fish's hexagons in offset rows and Penguins' squares are two instances; nothing else in the
    core knows which one it runs on. Treat as immutable (a plain class, not a dataclass, for
    import speed); compared and hashed by identity, as each geometry is one module constant.
    """

    __slots__ = ("directions", "name", "step")

    def __init__(self, name: str, directions: tuple[str, ...], step: Step) -> None:
        self.name = name
        self.directions = directions
        self.step = step

    def __repr__(self) -> str:
        return f"Geometry({self.name!r}, {self.directions!r})"


class _Rays(dict[int, tuple[tuple[int, ...], ...]]):
    """``rays[tile]``, each tile's lines built on first use: a search touches them all within
    microseconds, but a one-off harness query on a large board touches a handful."""

    __slots__ = ("_layout",)

    def __init__(self, layout: Layout) -> None:
        super().__init__()
        self._layout = layout

    def __missing__(self, tile: int) -> tuple[tuple[int, ...], ...]:
        layout = self._layout
        if not 0 <= tile < layout.size:
            raise IndexError(f"tile {tile} is off the {layout.rows} x {layout.cols} board")
        rows, cols, step = layout.rows, layout.cols, layout.geometry.step
        row, col = divmod(tile, cols)
        lines = []
        for direction in range(len(layout.geometry.directions)):
            line = []
            r, c = step(row, col, direction)
            while 0 <= r < rows and 0 <= c < cols:
                line.append(r * cols + c)
                r, c = step(r, c, direction)
            lines.append(tuple(line))
        found = self[tile] = tuple(lines)
        return found


class _Neighbours(dict[int, tuple[int, ...]]):
    """``neighbours[tile]``: the first tile of each non-empty ray, built on first use."""

    __slots__ = ("_rays",)

    def __init__(self, rays: _Rays) -> None:
        super().__init__()
        self._rays = rays

    def __missing__(self, tile: int) -> tuple[int, ...]:
        found = self[tile] = tuple(line[0] for line in self._rays[tile] if line)
        return found


class Layout:
    """A ``rows`` x ``cols`` board of one geometry, with every straight line precomputed.

    ``rays[t][d]`` lists the tiles met going from tile ``t`` in direction ``d``, nearest first,
    up to the board's edge; ``neighbours[t]`` the on-board tiles one step from ``t``, in
    direction order. Moving is then walking a ray until the first blocked tile, with no
    arithmetic and no bounds checks in the hot loop. Both are mappings from tile to lines, each
    filled the first time a tile is asked for (then a plain dict lookup).
    """

    __slots__ = ("cols", "geometry", "neighbours", "rays", "rows", "size")

    def __init__(self, rows: int, cols: int, geometry: Geometry) -> None:
        if rows < 0 or cols < 0:
            raise ValueError(f"a board has a non-negative size, got {rows} x {cols}")
        self.rows = rows
        self.cols = cols
        self.size = rows * cols
        self.geometry = geometry
        self.rays: dict[int, tuple[tuple[int, ...], ...]] = _Rays(self)
        self.neighbours: dict[int, tuple[int, ...]] = _Neighbours(self.rays)

    def index(self, row: int, col: int) -> int:
        """The tile at (row, col); raises ValueError off the board."""
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ValueError(f"({row}, {col}) is off the {self.rows} x {self.cols} board")
        return row * self.cols + col

    def position(self, tile: int) -> tuple[int, int]:
        """The (row, col) of a tile."""
        return divmod(tile, self.cols)

    def neighbour(self, tile: int, direction: int) -> int | None:
        """The tile one step away in ``direction``, or None off the board."""
        line = self.rays[tile][direction]
        return line[0] if line else None


_LAYOUTS: dict[tuple[int, int, Geometry], Layout] = {}


def layout(rows: int, cols: int, geometry: Geometry) -> Layout:
    """The shared, immutable layout of a board shape (built once per shape and geometry; not
    functools.lru_cache, which costs an import on the harnesses' path)."""
    key = (rows, cols, geometry)
    found = _LAYOUTS.get(key)
    if found is None:
        if len(_LAYOUTS) >= 256:
            _LAYOUTS.clear()
        found = _LAYOUTS[key] = Layout(rows, cols, geometry)
    return found
