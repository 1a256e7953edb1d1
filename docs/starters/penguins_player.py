#!/usr/bin/env python3
"""The Penguins starter player (docs/penguins.md: the course's arguments and board file), standard
library only; copy it and make it smarter. As it stands it keeps its id in id.txt of its folder
between calls, places on the first free one-fish floe, moves the first penguin that can one step
to the first free floe (up, down, left, right)."""

import random
import sys


def read(path):
    with open(path) as stream:
        lines = [line.rstrip("\r\n").rstrip() for line in stream]
    rows, cols = map(int, lines[0].split())
    board = [line.split() for line in lines[1 : rows + 1]]
    players = [line.split() for line in lines[rows + 1 :] if line.strip()]
    return rows, cols, board, players


def write(path, rows, cols, board, players):
    with open(path, "w") as out:
        out.write(f"{rows} {cols}\n")
        out.writelines(" ".join(row) + "\n" for row in board)
        out.writelines(" ".join(player) + "\n" for player in players)


def main(args):
    if "name" in args:
        ident = f"floe{random.randrange(10**6)}"
        with open("id.txt", "w") as stream:
            stream.write(ident)
        print(ident)
        return 0
    with open("id.txt") as stream:
        ident = stream.read().strip()
    words = [a for a in args if "=" not in a]
    source, target = words[0], words[-1]
    options = dict(a.split("=", 1) for a in args if "=" in a)
    rows, cols, board, players = read(source)
    me = next((p for p in players if p[0] == ident), None)
    if me is None:
        used = {int(p[1]) for p in players}
        me = [ident, str(min(n for n in range(1, 10) if n not in used)), "0"]
        players.append(me)
    number = me[1]
    mine = [(r, c) for r in range(rows) for c in range(cols) if board[r][c][1] == number]
    if options["phase"] == "placement":
        if len(mine) >= int(options["penguins"]):
            return 1
        for r in range(rows):
            for c in range(cols):
                if board[r][c] == "10":
                    board[r][c] = "0" + number
                    me[2] = str(int(me[2]) + 1)
                    write(target, rows, cols, board, players)
                    return 0
        return 1
    for r, c in mine:
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            nr, nc = r + dr, c + dc
            if (
                0 <= nr < rows
                and 0 <= nc < cols
                and board[nr][nc][0] != "0"
                and board[nr][nc][1] == "0"
            ):
                me[2] = str(int(me[2]) + int(board[nr][nc][0]))
                board[nr][nc] = "0" + number
                board[r][c] = "00"
                write(target, rows, cols, board, players)
                return 0
    return 1


sys.exit(main(sys.argv[1:]))
