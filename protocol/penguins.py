"""The Penguins board file: a strict parser that names the line and field of every fault; the
board in memory and the writer that keeps every byte of the file that did not change are
:mod:`protocol.penguins_board`'s (re-exported here: import the board file from this module).

Format (spec penguins.md, "Board file")::

    m n                      line 1: rows and columns
    10 20 00 31 ...          lines 2..m+1: n fields "FP", F = fish 0-3, P = player 0-9
    alice 1 4                then one line per player: id, number 1-9, score

``00`` is a hole; a penguin's field reads ``0P`` (it collected the fish of its floe). Any line
may end in spaces (tabs and carriage returns are tolerated too), a file may use CRLF, start with
a UTF-8 byte order mark and end without a newline; the writer keeps all of that. Fields are
separated by single spaces, as the format says: two spaces in a row are reported, not guessed.

Why so strict: a game master compares the file before and after each call to catch cheating,
and the players of a class read each other's files. A file we accept must mean exactly one
thing to every conforming program.

Standard library only, and nothing slow to import: the player program parses one file per call.
"""

from __future__ import annotations

from protocol.penguins_board import (
    BOM,
    MAX_DIGITS,
    MAX_FISH,
    MAX_PLAYERS,
    TRAILING,
    BoardFile,
    BoardFileError,
    PlayerLine,
    encode,
)

__all__ = [
    "MAX_FISH",
    "MAX_PLAYERS",
    "BoardFile",
    "BoardFileError",
    "PlayerLine",
    "encode",
    "parse",
    "read",
    "shown",
]


def read(path: str) -> BoardFile:
    """Parse the board file at ``path`` (OSError if it cannot be read)."""
    with open(path, "rb") as stream:
        data = stream.read()
    return parse(data.decode("utf-8", "surrogateescape"))


def parse(text: str, strict: bool = False) -> BoardFile:
    """Parse a board file's text; BoardFileError names the first fault's line and field.

    ``strict`` also refuses what this parser tolerates but the format does not allow: a byte
    order mark, and tabs or stray carriage returns at the end of a line. A game master checks
    files strictly before passing them on, since other programs may read only the format."""
    lines = text.split("\n")
    final_newline = lines[-1] == ""
    if final_newline:
        lines.pop()
    if not lines:
        raise BoardFileError(1, None, "the file is empty; expected the header 'm n'")
    if strict:
        _check_line_ends(lines)
    rows, cols = _parse_header(lines[0])
    fish: list[int] = []
    owner: list[int] = []
    for r in range(rows):
        index = r + 1
        if index >= len(lines):
            raise BoardFileError(
                index + 1, None, f"row {r + 1} of {rows} is missing (the file ends here)"
            )
        _parse_row(lines[index], index + 1, r + 1, rows, cols, fish, owner)
    players = _parse_players(lines, rows + 1)
    numbers = {p.number for p in players}
    for c, number in enumerate(owner):
        if number and number not in numbers:
            raise BoardFileError(
                c // cols + 2,
                c % cols + 1,
                f"a penguin of player {number} stands here but no player line has number {number}",
            )
    return BoardFile(rows, cols, fish, owner, players, lines, final_newline)


def _check_line_ends(lines: list[str]) -> None:
    if lines[0].startswith(BOM):
        raise BoardFileError(1, 1, "byte order mark before the header: the file starts with 'm n'")
    for index, raw in enumerate(lines):
        body = raw[:-1] if raw.endswith("\r") else raw
        if body.rstrip(" ") != body.rstrip(TRAILING):
            raise BoardFileError(
                index + 1,
                None,
                "line ends in a tab or a stray carriage return: only spaces may end a line, "
                "before \\n or \\r\\n",
            )


def _fields(raw: str, line: int) -> list[str]:
    content = raw.rstrip(TRAILING)
    if line == 1 and content.startswith(BOM):
        content = content[1:]
    fields = content.split(" ")
    for index, field in enumerate(fields):
        if not field and content:
            raise BoardFileError(
                line, index + 1, "empty field: fields are separated by single spaces"
            )
        if "\r" in field:
            raise BoardFileError(
                line, index + 1, "carriage return inside a line: lines end in \\n or \\r\\n"
            )
    return fields if content else []


def _parse_header(raw: str) -> tuple[int, int]:
    fields = _fields(raw, 1)
    names = ("m (rows)", "n (columns)")
    if len(fields) < 2:
        raise BoardFileError(
            1, len(fields) + 1, f"bad header: missing {names[len(fields)]}; expected 'm n'"
        )
    if len(fields) > 2:
        raise BoardFileError(1, 3, "bad header: extra field; expected exactly 'm n'")
    values = []
    for index, (field, name) in enumerate(zip(fields, names, strict=True)):
        if not _is_number(field) or int(field) < 1:
            raise BoardFileError(
                1,
                index + 1,
                f"bad header: {name} must be a positive integer of at most {MAX_DIGITS} digits, "
                f"got {shown(field)}",
            )
        values.append(int(field))
    return values[0], values[1]


def _parse_row(
    raw: str, line: int, row: int, rows: int, cols: int, fish: list[int], owner: list[int]
) -> None:
    fields = _fields(raw, line)
    if _looks_like_player_line(fields):
        raise BoardFileError(
            line,
            None,
            f"row {row} of {rows} is missing: this looks like a player line ({fields[0]!r} ...)",
        )
    for column, field in enumerate(fields, start=1):
        if not _is_field(field):
            raise BoardFileError(
                line, column, f"field {field!r} must be two digits: fish 0-3, then player 0-9"
            )
        count, number = ord(field[0]) - 48, ord(field[1]) - 48
        if count > MAX_FISH:
            raise BoardFileError(
                line, column, f"fish digit {count} out of range 0-{MAX_FISH} in {field!r}"
            )
        if count and number:
            raise BoardFileError(
                line,
                column,
                f"penguin of player {number} on a floe with {count} fish: a penguin collects "
                f"the fish of its floe, so its field reads '0{number}'",
            )
        fish.append(count)
        owner.append(number)
    if len(fields) < cols:
        raise BoardFileError(
            line, len(fields) + 1, f"short row {row}: {len(fields)} fields, expected {cols}"
        )
    if len(fields) > cols:
        raise BoardFileError(
            line, cols + 1, f"long row {row}: {len(fields)} fields, expected {cols}"
        )


def _looks_like_player_line(fields: list[str]) -> bool:
    return (
        len(fields) == 3
        and not _is_field(fields[0])
        and len(fields[1]) == 1
        and "1" <= fields[1] <= "9"
        and fields[2].isascii()
        and fields[2].isdigit()
    )


def _is_number(text: str) -> bool:
    return 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit()


def shown(text: str) -> str:
    """A field (or an argument) for a message: whole when short, else its head and its length,
    so that a 5000-digit number does not flood the terminal."""
    return repr(text) if len(text) <= 40 else f"{text[:20]!r}... ({len(text)} characters)"


def _is_field(field: str) -> bool:
    return len(field) == 2 and "0" <= field[0] <= "9" and "0" <= field[1] <= "9"


def _parse_players(lines: list[str], first: int) -> list[PlayerLine]:
    players: list[PlayerLine] = []
    line_of_number: dict[int, int] = {}
    line_of_ident: dict[str, int] = {}
    blank_at: int | None = None
    for index in range(first, len(lines)):
        line = index + 1
        fields = _fields(lines[index], line)
        if not fields:
            if blank_at is None:
                blank_at = line
            continue
        if blank_at is not None:
            raise BoardFileError(
                blank_at, None, "blank line between player lines (only the end may be blank)"
            )
        if len(fields) < 3:
            missing = ("id", "number", "score")[len(fields)]
            raise BoardFileError(
                line,
                len(fields) + 1,
                f"player line lacks its {missing}; expected 'id number score'",
            )
        if len(fields) > 3:
            raise BoardFileError(
                line, 4, "player line has extra fields; expected 'id number score'"
            )
        ident, number_text, score_text = fields
        if not _is_number(number_text) or not 1 <= int(number_text) <= MAX_PLAYERS:
            raise BoardFileError(
                line, 2, f"player number must be 1-{MAX_PLAYERS}, got {shown(number_text)}"
            )
        if not _is_number(score_text):
            raise BoardFileError(
                line,
                3,
                f"score must be a non-negative integer of at most {MAX_DIGITS} digits, "
                f"got {shown(score_text)}",
            )
        number = int(number_text)
        if number in line_of_number:
            raise BoardFileError(
                line, 2, f"duplicate player number {number} (also on line {line_of_number[number]})"
            )
        if ident in line_of_ident:
            raise BoardFileError(
                line, 1, f"duplicate player id {ident!r} (also on line {line_of_ident[ident]})"
            )
        line_of_number[number] = line
        line_of_ident[ident] = line
        players.append(PlayerLine(ident, number, int(score_text), index))
    return players
