"""Sets of cells of a torus as Python integers: fast flood fills for generation and search.

Bit ``y * L + x`` stands for cell (x, y). A breadth-first layer is a handful of shifts and masks
on one small integer, which makes distance queries several times cheaper than a queue-based BFS
in pure Python: the rotator runs thousands of them per game.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

__all__ = ["UNREACHABLE", "Torus", "free_mask"]

#: Distance reported for a cell the flood fill never reaches.
UNREACHABLE = 10_000

_FREE_DIGITS = bytes.maketrans(b"\x00\x01", b"10")


def free_mask(walls: bytes | bytearray) -> int:
    """The free cells of a row-major wall array (1 = wall) as a bit set."""
    return int(bytes(walls).translate(_FREE_DIGITS)[::-1], 2)


@dataclass(frozen=True, slots=True)
class Torus:
    """Precomputed masks for one maze size; get one with :meth:`of` (cached per size)."""

    width: int
    height: int
    size: int
    full: int
    first_column: int
    last_column: int
    first_row: int
    last_row: int

    @staticmethod
    @cache
    def of(width: int, height: int) -> Torus:
        size = width * height
        first_column = sum(1 << (y * width) for y in range(height))
        return Torus(
            width=width,
            height=height,
            size=size,
            full=(1 << size) - 1,
            first_column=first_column,
            last_column=first_column << (width - 1),
            first_row=(1 << width) - 1,
            last_row=((1 << width) - 1) << (size - width),
        )

    def bit(self, x: int, y: int) -> int:
        return 1 << (y * self.width + x)

    def neighbours(self, cells: int) -> int:
        """Every cell one step (up, down, left, right, wrapping) from one of ``cells``."""
        width, first, last = self.width, self.first_column, self.last_column
        left = ((cells & ~first) >> 1) | ((cells & first) << (width - 1))
        right = ((cells & ~last) << 1) | ((cells & last) >> (width - 1))
        up = (cells >> width) | ((cells & self.first_row) << (self.size - width))
        down = ((cells & ~self.last_row) << width) | (
            (cells & self.last_row) >> (self.size - width)
        )
        return left | right | up | down

    def component(self, free: int, start: int) -> int:
        """The free cells connected to the ``start`` bit (which must be free)."""
        reached = frontier = start
        while frontier:
            frontier = self.neighbours(frontier) & free & ~reached
            reached |= frontier
        return reached

    def layers(self, free: int, source: int) -> list[int]:
        """Breadth-first layers of free cells from ``source``: layer d is at distance d."""
        result = [source]
        reached = frontier = source
        while True:
            frontier = self.neighbours(frontier) & free & ~reached
            if not frontier:
                return result
            result.append(frontier)
            reached |= frontier

    def distances_to(self, free: int, target: int, first: int, second: int) -> tuple[int, int]:
        """Steps from the ``first`` and ``second`` bits to the ``target`` bit, stopping early.

        A walker already on the target needs two steps (a stay never wins: it must step off and
        back on), or is stuck when the target has no free neighbour.
        """
        found_first = UNREACHABLE if first != target else self._back_on(free, target)
        found_second = UNREACHABLE if second != target else self._back_on(free, target)
        reached = frontier = target
        distance = 0
        while frontier and (found_first == UNREACHABLE or found_second == UNREACHABLE):
            distance += 1
            frontier = self.neighbours(frontier) & free & ~reached
            reached |= frontier
            if frontier & first and found_first == UNREACHABLE:
                found_first = distance
            if frontier & second and found_second == UNREACHABLE:
                found_second = distance
        return found_first, found_second

    def _back_on(self, free: int, target: int) -> int:
        return 2 if self.neighbours(target) & free else UNREACHABLE

    def rotate_row(self, cells: int, row: int, shift: int) -> int:
        """``cells`` with row ``row`` rotated by ``shift`` (-1 left, +1 right)."""
        offset = row * self.width
        mask = self.first_row << offset
        line = (cells & mask) >> offset
        if shift < 0:
            line = (line >> 1) | ((line & 1) << (self.width - 1))
        else:
            line = ((line << 1) & self.first_row) | (line >> (self.width - 1))
        return (cells & ~mask) | (line << offset)

    def rotate_column(self, cells: int, column: int, shift: int) -> int:
        """``cells`` with column ``column`` rotated by ``shift`` (-1 up, +1 down)."""
        mask = self.first_column << column
        line = cells & mask
        wrap = self.size - self.width
        if shift < 0:
            top = line & (1 << column)
            line = (line >> self.width) | (top << wrap)
        else:
            bottom = line & (self.last_row & mask)
            line = ((line & ~self.last_row) << self.width) | (bottom >> wrap)
        return (cells & ~mask) | line
