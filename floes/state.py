"""The position of a floes game and its flow: placement, movement, skipping, elimination, end.

One mutable :class:`Floes` holds everything as flat lists indexed by tile and seat, so searches
can play a move and take it back (:meth:`Floes.push` / :meth:`Floes.pop`) without copying.
Checked moves (:meth:`Floes.place`, :meth:`Floes.move`) validate, play, and pass the turn.
"""

from __future__ import annotations

from floes.layout import Geometry, Layout, layout

# No typing or dataclasses at run time (see layout.py): the Penguins player imports this module.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["MOVEMENT", "OVER", "PLACEMENT", "Floes", "IllegalAction", "Rules", "Undo"]

PLACEMENT = "placement"
MOVEMENT = "movement"
OVER = "over"

#: What Floes.push returns and Floes.pop takes back:
#: (seat, penguin index, from tile, to tile, fish on from, fish on to, points scored).
Undo = tuple[int, int, int, int, int, int, int]


class IllegalAction(ValueError):
    """A placement or move the rules forbid; the state is left unchanged."""


class Rules:
    """Where the two games' rules differ, as data (treat as immutable: a plain class, not a
    dataclass, for import speed; each game's rules are one module constant).

    Fish: ``Rules(HEX, score_on_leave=True, eliminate_unplaceable=True)``.
    Penguins: ``Rules(SQUARE, score_on_leave=False, placement_fish=1, collect_on_place=True)``.
    """

    __slots__ = (
        "collect_on_place",
        "eliminate_unplaceable",
        "geometry",
        "placement_fish",
        "score_on_leave",
    )

    def __init__(
        self,
        geometry: Geometry,
        score_on_leave: bool,
        placement_fish: int | None = None,
        collect_on_place: bool = False,
        eliminate_unplaceable: bool = False,
    ) -> None:
        self.geometry = geometry
        #: True: a move scores the fish of the tile it leaves (Fish). False: of the tile it lands
        #: on, which then keeps no fish (Penguins).
        self.score_on_leave = score_on_leave
        #: Only free floes with exactly this many fish take a penguin; None: any free floe.
        self.placement_fish = placement_fish
        #: Placing a penguin collects the floe's fish (Penguins).
        self.collect_on_place = collect_on_place
        #: A seat that must place but finds no floe is removed with its penguins (Fish's
        #: referee); otherwise it is skipped like a seat that cannot move.
        self.eliminate_unplaceable = eliminate_unplaceable

    def __repr__(self) -> str:
        return (
            f"Rules({self.geometry!r}, score_on_leave={self.score_on_leave}, "
            f"placement_fish={self.placement_fish}, collect_on_place={self.collect_on_place}, "
            f"eliminate_unplaceable={self.eliminate_unplaceable})"
        )


class Floes:
    """A floes game's whole position.

    A tile is free (a penguin may stop on it or pass over it) when it has fish and no penguin.
    Free tiles only ever disappear during movement (the tile left becomes a hole, the tile landed
    on is taken), so a seat that cannot move will never move again: searches rely on it.
    """

    __slots__ = (
        "active",
        "current",
        "fish",
        "layout",
        "owner",
        "penguins",
        "phase",
        "quota",
        "rules",
        "scores",
    )

    def __init__(
        self,
        rules: Rules,
        rows: int,
        cols: int,
        fish: Sequence[int],
        quota: Sequence[int],
        *,
        penguins: Sequence[Sequence[int]] | None = None,
        scores: Sequence[int] | None = None,
        phase: str | None = None,
        current: int = 0,
    ) -> None:
        """A position: ``fish`` per tile (0 = hole), ``quota`` penguins each seat has yet to
        place, and optionally penguins already on the board and scores.

        ``phase`` defaults to placement while any quota is left, else movement. ``current`` is
        where the turn order starts looking for a seat able to act.
        """
        seats = len(quota)
        self.rules = rules
        self.layout: Layout = layout(rows, cols, rules.geometry)
        if len(fish) != self.layout.size:
            raise ValueError(f"{len(fish)} tiles for a {rows} x {cols} board")
        self.fish: list[int] = list(fish)
        self.owner: list[int] = [-1] * self.layout.size
        self.penguins: list[list[int]] = [[] for _ in range(seats)]
        self.scores: list[int] = list(scores) if scores is not None else [0] * seats
        self.quota: list[int] = list(quota)
        self.active: list[bool] = [True] * seats
        if len(self.scores) != seats:
            raise ValueError(f"{len(self.scores)} scores for {seats} seats")
        for seat, tiles in enumerate(penguins or ()):
            for tile in tiles:
                if not 0 <= tile < self.layout.size:
                    raise ValueError(f"penguin of seat {seat} on tile {tile}, off the board")
                if self.owner[tile] >= 0:
                    raise ValueError(f"two penguins on tile {self.layout.position(tile)}")
                self.owner[tile] = seat
                self.penguins[seat].append(tile)
        if phase is None:
            phase = PLACEMENT if any(self.quota) else MOVEMENT
        self.phase = phase
        self.current = -1
        self._settle(current % seats if seats else 0)

    # ------------------------------------------------------------------ queries

    @property
    def seats(self) -> int:
        return len(self.quota)

    def is_free(self, tile: int) -> bool:
        return self.fish[tile] > 0 and self.owner[tile] < 0

    def reachable(self, tile: int) -> list[int]:
        """Every tile a penguin on ``tile`` can stop on: along each direction in order, nearest
        first, up to the first hole, penguin or edge."""
        fish, owner, out = self.fish, self.owner, []
        for line in self.layout.rays[tile]:
            for other in line:
                if fish[other] <= 0 or owner[other] >= 0:
                    break
                out.append(other)
        return out

    def moves(self, seat: int) -> list[tuple[int, int]]:
        """The seat's moves as (from, to) tiles, sorted: the courses' tie order."""
        return sorted((src, dst) for src in self.penguins[seat] for dst in self.reachable(src))

    def can_move(self, seat: int) -> bool:
        fish, owner, neighbours = self.fish, self.owner, self.layout.neighbours
        for src in self.penguins[seat]:
            for other in neighbours[src]:
                if fish[other] > 0 and owner[other] < 0:
                    return True
        return False

    def placements(self, seat: int) -> list[int]:
        """The tiles the seat may place its next penguin on, ascending (row-major)."""
        if not self.active[seat] or self.quota[seat] <= 0:
            return []
        wanted = self.rules.placement_fish
        fish, owner = self.fish, self.owner
        return [
            tile
            for tile in range(self.layout.size)
            if fish[tile] > 0 and owner[tile] < 0 and (wanted is None or fish[tile] == wanted)
        ]

    def _placeable(self, tile: int) -> bool:
        wanted = self.rules.placement_fish
        fish = self.fish[tile]
        return fish > 0 and self.owner[tile] < 0 and (wanted is None or fish == wanted)

    def _can_place(self, seat: int) -> bool:
        if not self.active[seat] or self.quota[seat] <= 0:
            return False
        return any(map(self._placeable, range(self.layout.size)))

    def gain(self, src: int, dst: int) -> int:
        """The points a move from ``src`` to ``dst`` scores."""
        return self.fish[src] if self.rules.score_on_leave else self.fish[dst]

    def winners(self) -> list[int]:
        """The remaining seats with the top score (all of them share the win)."""
        remaining = [seat for seat in range(self.seats) if self.active[seat]]
        if not remaining:
            return []
        best = max(self.scores[seat] for seat in remaining)
        return [seat for seat in remaining if self.scores[seat] == best]

    def clone(self) -> Floes:
        copy = Floes.__new__(Floes)
        copy.rules = self.rules
        copy.layout = self.layout
        copy.fish = self.fish.copy()
        copy.owner = self.owner.copy()
        copy.penguins = [tiles.copy() for tiles in self.penguins]
        copy.scores = self.scores.copy()
        copy.quota = self.quota.copy()
        copy.active = self.active.copy()
        copy.phase = self.phase
        copy.current = self.current
        return copy

    def key(self) -> tuple[object, ...]:
        """Everything that defines the position, as a hashable value (equal positions, equal
        keys)."""
        return (
            self.layout.rows,
            self.layout.cols,
            tuple(self.fish),
            tuple(tuple(tiles) for tiles in self.penguins),
            tuple(self.scores),
            tuple(self.quota),
            tuple(self.active),
            self.phase,
            self.current,
        )

    # ------------------------------------------------------- play and take back

    def push(self, seat: int, index: int, dst: int) -> Undo:
        """Move the seat's ``index``-th penguin to ``dst`` without any check or turn change;
        :meth:`pop` takes it back exactly. For searches."""
        fish, owner = self.fish, self.owner
        src = self.penguins[seat][index]
        src_fish, dst_fish = fish[src], fish[dst]
        if self.rules.score_on_leave:
            points = src_fish
        else:
            points = dst_fish
            fish[dst] = 0
        fish[src] = 0
        owner[src] = -1
        owner[dst] = seat
        self.penguins[seat][index] = dst
        self.scores[seat] += points
        return (seat, index, src, dst, src_fish, dst_fish, points)

    def pop(self, undo: Undo) -> None:
        seat, index, src, dst, src_fish, dst_fish, points = undo
        self.scores[seat] -= points
        self.penguins[seat][index] = src
        self.owner[dst] = -1
        self.owner[src] = seat
        self.fish[dst] = dst_fish
        self.fish[src] = src_fish

    def place(self, tile: int) -> None:
        """The current seat places a penguin on ``tile``; the turn passes."""
        seat = self.current
        if self.phase != PLACEMENT:
            raise IllegalAction(f"no placement in the {self.phase} phase")
        if not 0 <= tile < self.layout.size:
            raise IllegalAction(f"tile {tile} is off the board")
        if not self._placeable(tile):
            raise IllegalAction(f"seat {seat} cannot place on {self.layout.position(tile)}")
        self.owner[tile] = seat
        self.penguins[seat].append(tile)
        self.quota[seat] -= 1
        if self.rules.collect_on_place:
            self.scores[seat] += self.fish[tile]
            self.fish[tile] = 0
        self._settle(seat + 1)

    def move(self, src: int, dst: int) -> int:
        """The current seat moves its penguin on ``src`` to ``dst``; returns the points scored;
        the turn passes to the next seat that can move."""
        seat = self.current
        if self.phase != MOVEMENT:
            raise IllegalAction(f"no move in the {self.phase} phase")
        size = self.layout.size
        if not (0 <= src < size and 0 <= dst < size) or self.owner[src] != seat:
            raise IllegalAction(f"seat {seat} has no penguin on tile {src}")
        if dst not in self.reachable(src):
            raise IllegalAction(
                f"{self.layout.position(dst)} is not reachable from {self.layout.position(src)}"
            )
        points = self.push(seat, self.penguins[seat].index(src), dst)[6]
        self._settle(seat + 1)
        return points

    def eliminate(self, seat: int) -> None:
        """Remove a seat (it failed or cheated) and its penguins; the tiles stay."""
        self._remove(seat)
        if self.current == seat:
            self._settle(seat + 1)

    # -------------------------------------------------------------------- flow

    def _settle(self, start: int) -> None:
        """Give the turn to the first seat from ``start`` (cyclically) able to act, moving to
        movement when placement is done and to the end when nobody can move."""
        seats = self.seats
        if self.phase == PLACEMENT:
            eliminate = self.rules.eliminate_unplaceable
            for step in range(seats):
                seat = (start + step) % seats
                if not self.active[seat] or self.quota[seat] <= 0:
                    continue
                if self._can_place(seat):
                    self.current = seat
                    return
                if eliminate:
                    self._remove(seat)
                else:
                    self.quota[seat] = 0  # nothing it may stand on will come back: skip it
            self.phase = MOVEMENT
            start = 0
        if self.phase == MOVEMENT:
            for step in range(seats):
                seat = (start + step) % seats
                if self.active[seat] and self.can_move(seat):
                    self.current = seat
                    return
            self.phase = OVER
        self.current = -1

    def _remove(self, seat: int) -> None:
        for tile in self.penguins[seat]:
            self.owner[tile] = -1
        self.penguins[seat] = []
        self.quota[seat] = 0
        self.active[seat] = False
