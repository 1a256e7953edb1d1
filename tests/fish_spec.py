"""The Fish spec's hexagon steps, written out from the spec and not from ``fish``: the
naive references that the harness and strategy tests compare the real code against share it."""

from __future__ import annotations

Pos = tuple[int, int]


def spec_step(row: int, col: int, direction: int) -> Pos:
    """The spec's table: N, NE, SE, S, SW, NW, with o = 1 on odd rows and e = 1 on even rows."""
    o, e = row % 2, 1 - row % 2
    return [
        (row - 2, col),
        (row - 1, col + o),
        (row + 1, col + o),
        (row + 2, col),
        (row + 1, col - e),
        (row - 1, col - e),
    ][direction]
