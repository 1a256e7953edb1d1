"""``arena penguins play``: Penguins at one terminal, two people or a person against bots.

    arena penguins play                          two people, 8 x 8 board, 4 penguins each
    arena penguins play --opponent alphabeta     you are player 1, the bot player 2
    arena penguins play --opponent greedy --bot-first --rows 6 --cols 8 --seed 3

The board is printed with row and column numbers (1-based). A placement is typed as ``row col``
(e.g. ``3 4``), a move as ``from-row from-col to-row to-col`` (e.g. ``3 4 3 7``; commas, arrows
and brackets are ignored). ``moves`` lists the legal choices, ``help`` explains, ``quit`` ends.
Anything else is refused with the reason, and the same player is asked again.

Input is read with ``input()``, so a test (or a teacher's script) can feed a whole game on stdin.
"""

from __future__ import annotations

import argparse
import random
import re
import sys

from floes import MOVEMENT, PLACEMENT, Floes
from penguins.facts import GAME_TYPE
from penguins.rules import (
    PENGUINS_RULES,
    generate_fish,
    penguins_each,
)
from penguins.strategies import STRATEGIES, Strategy, make_strategy

__all__ = ["main", "render", "why_not_move", "why_not_place"]

HELP = """\
How to play: players take turns. First each places its penguins, one per turn, on a floe with
exactly 1 fish (and collects it). Then each turn moves one penguin in a straight line (up, down,
left, right) over free floes to another free floe, collecting its fish; the floe it leaves
sinks. Penguins never jump over holes or other penguins. A player who cannot move is skipped;
the game ends when nobody can move, and the most fish wins.
Type a placement as 'row col' (e.g. 3 4), a move as 'row col row col' (e.g. 3 4 3 7).
Commands: moves (list your legal choices), help, quit."""


def render(state: Floes) -> str:
    """The board with row and column numbers: fish counts, '.' for holes, 'P<n>' for the
    penguins of player n; then the scores."""
    rows, cols = state.layout.rows, state.layout.cols
    width = max(3, len(str(cols)) + 1)
    label = len(str(rows))
    lines = [" " * (label + 1) + "".join(f"{c + 1:>{width}}" for c in range(cols))]
    for r in range(rows):
        cells = []
        for c in range(cols):
            tile = r * cols + c
            if state.owner[tile] >= 0:
                cells.append(f"P{state.owner[tile] + 1}")
            elif state.fish[tile] > 0:
                cells.append(str(state.fish[tile]))
            else:
                cells.append(".")
        lines.append(f"{r + 1:>{label}} " + "".join(f"{cell:>{width}}" for cell in cells))
    lines.append("  ".join(f"player {s + 1}: {state.scores[s]} fish" for s in range(state.seats)))
    return "\n".join(lines)


def _at(state: Floes, tile: int) -> str:
    row, col = state.layout.position(tile)
    return f"({row + 1},{col + 1})"


def _tile(state: Floes, row: int, col: int) -> tuple[int | None, str]:
    """The tile at 1-based (row, col), or None and why not."""
    rows, cols = state.layout.rows, state.layout.cols
    if not 1 <= row <= rows:
        return None, f"row {row} is off the board (rows 1-{rows})"
    if not 1 <= col <= cols:
        return None, f"column {col} is off the board (columns 1-{cols})"
    return (row - 1) * cols + col - 1, ""


def why_not_place(state: Floes, seat: int, tile: int) -> str | None:
    """Why ``seat`` may not place on ``tile``, or None if it may."""
    if state.owner[tile] >= 0:
        return f"{_at(state, tile)} already has a penguin of player {state.owner[tile] + 1}"
    if state.fish[tile] <= 0:
        return f"{_at(state, tile)} is a hole"
    if state.fish[tile] != 1:
        return (
            f"{_at(state, tile)} has {state.fish[tile]} fish: penguins are placed on floes with "
            "exactly 1 fish"
        )
    return None


def why_not_move(state: Floes, seat: int, src: int, dst: int) -> str | None:
    """Why ``seat`` may not move from ``src`` to ``dst``, or None if it may."""
    if state.owner[src] != seat:
        yours = ", ".join(_at(state, t) for t in sorted(state.penguins[seat]))
        return f"{_at(state, src)} is not one of your penguins (yours: {yours})"
    if src == dst:
        return "a penguin must move to another floe"
    for line in state.layout.rays[src]:
        if dst in line:
            for other in line:
                if state.owner[other] >= 0:
                    return f"the way is blocked by the penguin on {_at(state, other)}"
                if state.fish[other] <= 0:
                    return f"the way is blocked by the hole at {_at(state, other)}"
                if other == dst:
                    return None
    return "a penguin moves in a straight line: same row or same column"


def _numbers(text: str) -> list[int]:
    """The numbers typed; ValueError (with the reason) for one too long to be a row or column,
    before int() itself fails on it (past 4300 digits)."""
    found = re.findall(r"\d+", text)
    if any(len(number) > 9 for number in found):
        raise ValueError("a number of more than 9 digits is off any board")
    return [int(number) for number in found]


class Session:
    """One game at the terminal: whose turn, asking people, letting bots play."""

    def __init__(
        self,
        state: Floes,
        bots: dict[int, Strategy],
        rng: random.Random,
    ) -> None:
        self.state = state
        self.bots = bots
        self.rng = rng

    def say(self, text: str) -> None:
        print(text, flush=True)

    def run(self) -> int:
        state = self.state
        self.say(HELP)
        while state.phase in (PLACEMENT, MOVEMENT):
            seat = state.current
            self.say("")
            self.say(render(state))
            if seat in self.bots:
                self._bot_turn(seat)
            elif not self._human_turn(seat):
                self.say("Game abandoned.")
                return 0
        self.say("")
        self.say(render(state))
        winners = state.winners()
        if len(winners) == 1:
            self.say(
                f"Game over: player {winners[0] + 1} wins with {state.scores[winners[0]]} fish."
            )
        else:
            names = ", ".join(str(s + 1) for s in winners)
            self.say(f"Game over: a draw between players {names}.")
        return 0

    def _bot_turn(self, seat: int) -> None:
        state, bot = self.state, self.bots[seat]
        if state.phase == PLACEMENT:
            tile = bot.place(state, seat, self.rng)
            assert tile is not None  # the flow only gives the turn to a seat that can place
            state.place(tile)
            self.say(f"Player {seat + 1} ({bot.name}) places a penguin on {_at(state, tile)}.")
        else:
            move = bot.move(state, seat, self.rng)
            assert move is not None  # the flow only gives the turn to a seat that can move
            gained = state.move(*move)
            self.say(
                f"Player {seat + 1} ({bot.name}) moves {_at(state, move[0])} -> "
                f"{_at(state, move[1])} and collects {gained} fish."
            )
        self._report_skips(seat)

    def _human_turn(self, seat: int) -> bool:
        """Ask until a legal choice is made (True), or the player quits or input ends (False)."""
        state = self.state
        placing = state.phase == PLACEMENT
        prompt = (
            f"Player {seat + 1}, place a penguin (row col): "
            if placing
            else f"Player {seat + 1}, move a penguin (row col row col): "
        )
        while True:
            try:
                text = input(prompt).strip().lower()
            except EOFError:
                self.say("")
                return False
            if text in ("q", "quit", "exit"):
                return False
            if text in ("h", "help", "?"):
                self.say(HELP)
                continue
            if text in ("m", "moves"):
                self.say(self._choices(seat))
                continue
            try:
                problem = self._try(seat, _numbers(text), placing)
            except ValueError as error:
                problem = str(error)
            if problem is None:
                self._report_skips(seat)
                return True
            self.say(f"  Not allowed: {problem}. Type 'moves' to list the legal ones.")

    def _try(self, seat: int, numbers: list[int], placing: bool) -> str | None:
        state = self.state
        wanted = 2 if placing else 4
        if len(numbers) != wanted:
            example = "3 4" if placing else "3 4 3 7 (from row 3, column 4 to row 3, column 7)"
            return f"type {wanted} numbers, e.g. {example}"
        tiles = []
        for row, col in zip(numbers[::2], numbers[1::2], strict=True):
            tile, off_board = _tile(state, row, col)
            if tile is None:
                return off_board
            tiles.append(tile)
        if placing:
            refused = why_not_place(state, seat, tiles[0])
            if refused is None:
                state.place(tiles[0])
            return refused
        refused = why_not_move(state, seat, tiles[0], tiles[1])
        if refused is None:
            gained = state.move(tiles[0], tiles[1])
            self.say(f"Player {seat + 1} collects {gained} fish.")
        return refused

    def _choices(self, seat: int) -> str:
        state = self.state
        if state.phase == PLACEMENT:
            return "You may place on: " + " ".join(_at(state, t) for t in state.placements(seat))
        return "You may move: " + " ".join(
            f"{_at(state, a)}->{_at(state, b)}" for a, b in state.moves(seat)
        )

    def _report_skips(self, seat: int) -> None:
        """Say who is skipped between ``seat`` and the next player to act."""
        state = self.state
        if state.phase not in (PLACEMENT, MOVEMENT):
            return
        skipped = []
        other = (seat + 1) % state.seats
        while other != state.current:
            skipped.append(other)
            other = (other + 1) % state.seats
        verb = "place" if state.phase == PLACEMENT else "move"
        for other in skipped:
            self.say(f"Player {other + 1} cannot {verb}: skipped.")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="arena penguins play",
        description="Play Penguins at the terminal: two people, or people against bots.",
    )
    parser.add_argument(
        "--opponent",
        choices=sorted(STRATEGIES),
        help="a bot plays every seat but the first (default: nobody, people play all seats)",
    )
    parser.add_argument(
        "--bot-first", action="store_true", help="the bot takes seat 1, you the last"
    )
    parser.add_argument("--rows", type=int, default=8, help="board rows (default 8)")
    parser.add_argument("--cols", type=int, default=8, help="board columns (default 8)")
    parser.add_argument("--seed", type=int, default=0, help="board and bot seed (default 0)")
    low, high = GAME_TYPE.min_players, GAME_TYPE.max_players
    parser.add_argument("--players", type=int, default=2, help=f"{low}-{high} (default 2)")
    parser.add_argument("--penguins", type=int, help="penguins each (default: by board size)")
    args = parser.parse_args(argv)
    if not low <= args.players <= high:
        parser.error(f"--players must be {low}-{high}")
    if args.rows < 1 or args.cols < 1 or args.rows * args.cols > 900:
        parser.error("the board needs 1-900 tiles (--rows x --cols)")
    each = (
        args.penguins
        if args.penguins is not None
        else penguins_each(args.players, args.rows, args.cols)
    )
    if each < 1 or each * args.players > args.rows * args.cols:
        parser.error(f"{each} penguins for each of {args.players} players do not fit on the board")
    rng = random.Random(args.seed)
    fish = generate_fish(rng, args.rows, args.cols, each * args.players)
    state = Floes(PENGUINS_RULES, args.rows, args.cols, fish, [each] * args.players)
    bots: dict[int, Strategy] = {}
    if args.opponent:
        human = 0 if not args.bot_first else args.players - 1
        bots = {s: make_strategy(args.opponent) for s in range(args.players) if s != human}
    elif args.bot_first:
        parser.error("--bot-first needs --opponent")
    return Session(state, bots, rng).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
