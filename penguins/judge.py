"""Judging one call of a Penguins player program: the board file it left against the one before.

Pure: boards in, a verdict out (the game master, :mod:`server.penguins.master`, runs the programs).
"""

from __future__ import annotations

from floes import MOVEMENT, PLACEMENT
from penguins.rules import from_board
from protocol.penguins import BoardFile, BoardFileError, parse

__all__ = ["changed_on_exit_1", "judge", "legal_action_exists"]


def _where(board: BoardFile, tile: int) -> str:
    row, col = divmod(tile, board.cols)
    return f"row {row + 1}, column {col + 1} (line {row + 2}, field {col + 1})"


def legal_action_exists(board: BoardFile, name: str, phase: str, penguins: int) -> bool:
    """Whether the program called ``name`` could place (``phase`` placement, ``penguins`` each)
    or move on ``board``."""
    me = board.player(name)
    if phase == PLACEMENT:
        number = me.number if me is not None else board.next_free_number()
        if number is None or board.owner.count(number) >= penguins:
            return False
        return any(f == 1 and not o for f, o in zip(board.fish, board.owner, strict=True))
    if me is None:
        return False
    state = from_board(board, MOVEMENT, me.number)
    return state.can_move(me.number - 1)


def judge(
    before: BoardFile, after_text: str, name: str, phase: str, penguins: int
) -> tuple[BoardFile | None, str]:
    """Check a call that returned 0: the new board and a description of the move, or None and
    the reason that disqualifies ``name``."""
    try:
        after = parse(after_text, strict=True)
    except BoardFileError as error:
        return None, f"malformed board file: {error}"
    if (after.rows, after.cols) != (before.rows, before.cols):
        return None, f"changed the board size to {after.rows} x {after.cols}"
    old = {p.ident: p for p in before.players}
    new = {p.ident: p for p in after.players}
    for ident, line in old.items():
        if ident not in new:
            return None, f"removed the player line of {ident!r}"
        if new[ident].number != line.number:
            return None, f"changed the player number of {ident!r}"
        if ident != name and new[ident].score != line.score:
            return None, f"changed the score of {ident!r}"
    added = [ident for ident in new if ident not in old]
    if added and added != [name]:
        return None, f"added player lines {added!r}, but its name is {name!r}"
    mine = new.get(name)
    if mine is None:
        return None, f"exit 0 but no player line with its name {name!r}"
    number = mine.number
    gained = mine.score - (old[name].score if name in old else 0)
    changed = [
        t
        for t in range(len(before.fish))
        if (before.fish[t], before.owner[t]) != (after.fish[t], after.owner[t])
    ]
    if phase == PLACEMENT:
        if len(changed) != 1:
            return None, f"changed {len(changed)} fields; a placement changes exactly one"
        tile = changed[0]
        if before.owner.count(number) >= penguins:
            return None, f"placed a penguin beyond its {penguins}"
        if before.fish[tile] != 1 or before.owner[tile]:
            return None, f"placed on {_where(before, tile)}, not a free floe with one fish"
        if (after.fish[tile], after.owner[tile]) != (0, number):
            return None, f"wrote {after.fish[tile]}{after.owner[tile]} at {_where(before, tile)}"
        if gained != 1:
            return None, f"added {gained} to its score; a placement collects 1 fish"
        return after, f"placed on {_where(before, tile)}"
    if len(changed) != 2:
        return None, f"changed {len(changed)} fields; a move changes exactly two"
    sources = [t for t in changed if before.owner[t] == number and not after.owner[t]]
    targets = [t for t in changed if after.owner[t] == number and not before.owner[t]]
    if len(sources) != 1 or len(targets) != 1:
        return None, "the two changed fields are not one of its penguins leaving and landing"
    src, dst = sources[0], targets[0]
    if after.fish[src] or after.fish[dst]:
        return None, "a floe left must become 00 and a floe landed on must read 0<number>"
    state = from_board(before, MOVEMENT, number)
    if dst not in state.reachable(src):
        return None, f"moved to {_where(before, dst)}: not in a straight free line from its penguin"
    if gained != before.fish[dst]:
        return (
            None,
            f"added {gained} to its score, but the floe it landed on had {before.fish[dst]}",
        )
    return after, f"moved {_where(before, src)} -> {_where(before, dst)}, {gained} fish"


def changed_on_exit_1(before: BoardFile, after_text: str) -> str:
    """Why a file rewritten by a call that returned 1 disqualifies its program, or "" when it
    holds the same position: a program may write the board back in another conforming layout
    (trailing spaces, CRLF), which changes no field and no score."""
    try:
        after = parse(after_text, strict=True)
    except BoardFileError as error:
        return f"exit 1 (cannot move) but it left a malformed board file: {error}"
    if (
        (after.rows, after.cols, after.fish, after.owner)
        != (before.rows, before.cols, before.fish, before.owner)
    ) or sorted((p.ident, p.number, p.score) for p in after.players) != sorted(
        (p.ident, p.number, p.score) for p in before.players
    ):
        return "exit 1 (cannot move) but it changed the board"
    return ""
