"""Labyrinth at one terminal against a bot (``arena labyrinth play``): typed commands to
moves (:func:`parse_command`), moves to words (:func:`describe`), and the game loop
(:func:`play_at_terminal`) over any text input and output, so a test can feed a whole game.
"""

from __future__ import annotations

import random
from typing import TextIO

from labyrinth.game import STRATEGIES, LabyrinthState
from labyrinth.render import render_text
from labyrinth.rules import Labyrinth, Move, MoveType, whole_number

__all__ = ["HELP", "describe", "parse_command", "play_at_terminal"]

HELP = """commands (then Enter):
  u d l r      step up, down, left, right (the maze wraps around)
  .            stay (DO_NOTHING): +1 energy; every step gives +1 energy too
  rl N / rr N  rotate row N left / right (costs 5 energy; carries players and treasure)
  cu N / cd N  rotate column N up / down (costs 5 energy)
  T V          a raw move: type 0-8 and value, as the protocol's PLAY_MOVE
  ?            this help        q  give up and quit
Only a step onto the treasure wins."""

STEPS = {
    "u": MoveType.MOVE_UP,
    "up": MoveType.MOVE_UP,
    "d": MoveType.MOVE_DOWN,
    "down": MoveType.MOVE_DOWN,
    "l": MoveType.MOVE_LEFT,
    "left": MoveType.MOVE_LEFT,
    "r": MoveType.MOVE_RIGHT,
    "right": MoveType.MOVE_RIGHT,
    ".": MoveType.DO_NOTHING,
    "s": MoveType.DO_NOTHING,
    "stay": MoveType.DO_NOTHING,
}
ROTATION_COMMANDS = {
    "rl": (MoveType.ROTATE_LINE_LEFT, "row"),
    "rr": (MoveType.ROTATE_LINE_RIGHT, "row"),
    "cu": (MoveType.ROTATE_COLUMN_UP, "column"),
    "cd": (MoveType.ROTATE_COLUMN_DOWN, "column"),
}
WORDS = {
    MoveType.ROTATE_LINE_LEFT: "rotate row {} left",
    MoveType.ROTATE_LINE_RIGHT: "rotate row {} right",
    MoveType.ROTATE_COLUMN_UP: "rotate column {} up",
    MoveType.ROTATE_COLUMN_DOWN: "rotate column {} down",
    MoveType.MOVE_UP: "step up",
    MoveType.MOVE_DOWN: "step down",
    MoveType.MOVE_LEFT: "step left",
    MoveType.MOVE_RIGHT: "step right",
    MoveType.DO_NOTHING: "stay",
}


def describe(move: Move) -> str:
    """A move in words, e.g. "rotate column 3 up"."""
    kind, value = move
    if kind not in WORDS:
        return f"unknown move type {kind}"
    return WORDS[MoveType(kind)].format(value)


def parse_command(text: str, labyrinth: Labyrinth) -> Move | str:
    """The move a typed command stands for, or a message saying what is wrong with it."""
    words = text.strip().lower().split()
    if not words:
        return "type a command (? for help)"
    head = words[0]
    if head in STEPS and len(words) == 1:
        return Move(STEPS[head])
    if head in ROTATION_COMMANDS:
        kind, axis = ROTATION_COMMANDS[head]
        count = labyrinth.height if axis == "row" else labyrinth.width
        index = whole_number(words[1]) if len(words) == 2 else None
        if index is None or not 0 <= index < count:
            return f"'{head}' needs a {axis} index from 0 to {count - 1}, e.g. '{head} 3'"
        return Move(kind, index)
    if len(words) == 2:
        raw_type, raw_value = whole_number(words[0]), whole_number(words[1])
        if raw_type is not None and raw_value is not None:
            if not 0 <= raw_type <= 8:
                return f"move type {raw_type} is not one of 0-8 (? for help)"
            return Move(raw_type, raw_value)
    return f"unknown command {text.strip()!r} (? for help)"


def play_at_terminal(
    state: LabyrinthState, seed: int, opponent: str, human: int, stdin: TextIO, out: TextIO
) -> int:
    """Play ``state`` (drawn from ``seed``, which seeds the bot too) as seat ``human`` against
    the strategy ``opponent``: 0 when the game ends or the player gives up, 1 when input ends
    first."""
    labyrinth = state.labyrinth
    names = ["you", opponent] if human == 0 else [opponent, "you"]
    bot = STRATEGIES[opponent]()
    rng = random.Random(seed)
    print(f"seed {seed}: you are {'AB'[human]}; reach T with a step first. ? for help.", file=out)
    print(render_text(labyrinth, names), file=out)
    while not labyrinth.over:
        if labyrinth.to_move != human:
            move = bot.step(state, rng)
            labyrinth.play(move)
            print(f"\n{opponent}: {describe(move)}", file=out)
            print(render_text(labyrinth, names), file=out)
            continue
        print("your move> ", end="", file=out, flush=True)
        line = stdin.readline()
        if not line:
            print("\ninput ended before the game did; game abandoned", file=out)
            return 1
        command = line.strip().lower()
        if command in {"?", "h", "help"}:
            print(HELP, file=out)
            continue
        if command in {"q", "quit"}:
            print("you gave up", file=out)
            return 0
        parsed = parse_command(line, labyrinth)
        if isinstance(parsed, str):
            print(parsed, file=out)
            continue
        reason = labyrinth.losing_reason(parsed)
        if reason is not None:
            print(f"that {reason}: it would lose the game; choose another move", file=out)
            continue
        labyrinth.play(parsed)
        print(f"\nyou: {describe(parsed)}", file=out)
        print(render_text(labyrinth, names), file=out)
    if labyrinth.winner is None:
        print("draw", file=out)
    else:
        print("you win!" if labyrinth.winner == human else "you lose", file=out)
    return 0
