"""The Penguins board file in memory (spec penguins.md, "Board file"): a parsed file's fields,
players and lines, and the writer that keeps every byte of the file that did not change. The
strict parser that makes one is :mod:`protocol.penguins` (which re-exports all of this).

Standard library only, and nothing slow to import: the player program reads one file per call.
"""

from __future__ import annotations

__all__ = [
    "BOM",
    "MAX_DIGITS",
    "MAX_FISH",
    "MAX_PLAYERS",
    "TRAILING",
    "BoardFile",
    "BoardFileError",
    "PlayerLine",
    "encode",
]

MAX_PLAYERS = 9
MAX_FISH = 3
#: Longest number (header, score) a file may hold: what a C program's int reads, and far below
#: the 4300 digits at which Python's int() itself refuses (a ValueError, not a BoardFileError).
MAX_DIGITS = 9
TRAILING = " \t\r"
BOM = "\ufeff"


class BoardFileError(ValueError):
    """A board file that breaks the format; ``line`` and ``field`` are 1-based (``field`` is
    None when the whole line is at fault, e.g. a missing row)."""

    def __init__(self, line: int, field: int | None, problem: str) -> None:
        self.line = line
        self.field = field
        self.problem = problem
        where = f"line {line}" if field is None else f"line {line}, field {field}"
        super().__init__(f"{where}: {problem}")


class PlayerLine:
    """One ``id number score`` line. ``line`` is its 0-based index in the file, or None for a
    line added since the file was read."""

    __slots__ = ("ident", "line", "number", "score")

    def __init__(self, ident: str, number: int, score: int, line: int | None = None) -> None:
        self.ident = ident
        self.number = number
        self.score = score
        self.line = line

    def __repr__(self) -> str:
        return f"PlayerLine({self.ident!r}, {self.number}, {self.score}, line={self.line})"


class BoardFile:
    """A parsed board file. Mutate ``fish``, ``owner`` and the players' ``score`` (or call
    :meth:`add_player`), then :meth:`render`: only the fields and lines that changed are
    rewritten, everything else comes back byte for byte.

    ``fish`` and ``owner`` are flat, row-major lists of length ``rows * cols``: fish 0-3 and the
    player number standing there (0 for none). A hole is fish 0 and owner 0.
    """

    __slots__ = (
        "_final_newline",
        "_lines",
        "_original_fish",
        "_original_owner",
        "_original_scores",
        "cols",
        "fish",
        "owner",
        "players",
        "rows",
    )

    def __init__(
        self,
        rows: int,
        cols: int,
        fish: list[int],
        owner: list[int],
        players: list[PlayerLine],
        lines: list[str] | None = None,
        final_newline: bool = True,
    ) -> None:
        self.rows = rows
        self.cols = cols
        self.fish = fish
        self.owner = owner
        self.players = players
        if lines is None:
            # A board made in memory: render it in the canonical format.
            lines = [f"{rows} {cols}"]
            lines += [
                " ".join(f"{fish[c]}{owner[c]}" for c in range(r * cols, (r + 1) * cols))
                for r in range(rows)
            ]
            for player in players:
                player.line = len(lines)
                lines.append(f"{player.ident} {player.number} {player.score}")
        self._lines = lines
        self._final_newline = final_newline
        self._original_fish = list(fish)
        self._original_owner = list(owner)
        self._original_scores = {p.line: p.score for p in players if p.line is not None}

    # -- queries -------------------------------------------------------------------------------

    def player(self, ident: str) -> PlayerLine | None:
        """The line of the player with this id, if any."""
        for player in self.players:
            if player.ident == ident:
                return player
        return None

    def next_free_number(self) -> int | None:
        """The number a newcomer takes: one more than the highest in use (the seed's
        "consecutive player's number"), else the lowest free one; None when all 9 are taken."""
        used = {p.number for p in self.players}
        if not used:
            return 1
        if max(used) < MAX_PLAYERS:
            return max(used) + 1
        free = [n for n in range(1, MAX_PLAYERS + 1) if n not in used]
        return free[0] if free else None

    # -- changes -------------------------------------------------------------------------------

    def add_player(self, ident: str, number: int, score: int = 0) -> PlayerLine:
        """Add a player line; it is written after the last non-blank line of the file."""
        if not ident or any(ch.isspace() for ch in ident):
            raise ValueError(f"player id must be non-empty text without spaces, got {ident!r}")
        if not 1 <= number <= MAX_PLAYERS or any(p.number == number for p in self.players):
            raise ValueError(f"player number {number} is taken or outside 1-{MAX_PLAYERS}")
        player = PlayerLine(ident, number, score)
        self.players.append(player)
        return player

    def render(self) -> str:
        """The file's text: original lines where nothing changed, in-place edits where a field or
        a score changed, new player lines after the last non-blank line."""
        lines = list(self._lines)
        cols = self.cols
        for r in range(self.rows):
            start = r * cols
            changed = [
                c
                for c in range(start, start + cols)
                if self.fish[c] != self._original_fish[c]
                or self.owner[c] != self._original_owner[c]
            ]
            if not changed:
                continue
            raw = lines[r + 1]
            chars = list(raw)
            for c in changed:
                at = 3 * (c - start)
                chars[at] = str(self.fish[c])
                chars[at + 1] = str(self.owner[c])
            lines[r + 1] = "".join(chars)
        for player in self.players:
            if player.line is None or player.score == self._original_scores.get(player.line):
                continue
            raw = lines[player.line]
            content = raw.rstrip(TRAILING)
            ident_text, number_text, _ = content.split(" ")
            lines[player.line] = f"{ident_text} {number_text} {player.score}" + raw[len(content) :]
        added = [p for p in self.players if p.line is None]
        if added:
            crlf = lines[0].endswith("\r")
            at = len(lines)
            while at > 0 and not lines[at - 1].strip(TRAILING):
                at -= 1
            new = [f"{p.ident} {p.number} {p.score}" + ("\r" if crlf else "") for p in added]
            if crlf and at == len(lines) and not self._final_newline:
                # The old last line ended the file bare: it now gets a whole "\r\n", and the
                # last new line ends the file bare in its place (no lone "\r" at the end).
                if at and not lines[at - 1].endswith("\r"):
                    lines[at - 1] += "\r"
                new[-1] = new[-1][:-1]
            lines[at:at] = new
        return "\n".join(lines) + ("\n" if self._final_newline else "")


def encode(text: str) -> bytes:
    """The bytes of a rendered file (undecodable input bytes come back unchanged)."""
    return text.encode("utf-8", "surrogateescape")
