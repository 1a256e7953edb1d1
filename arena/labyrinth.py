"""``arena labyrinth``: show a maze from a seed, or play one against a bot in the terminal.

arena labyrinth show --seed 3 [--png maze.png] [--width 15 --height 11]
arena labyrinth play [--opponent astar] [--seed 3] [--second]
arena labyrinth connect HOST PORT [--name arena_rotator] [--training 'DO_NOTHING timeout=10']
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from typing import TextIO

from arena.errors import UsageError, command
from arena.options import ArgumentParser, png_file, positive_seconds, seed
from labyrinth.game import STRATEGIES, LabyrinthState
from labyrinth.generation import generate
from labyrinth.online import (
    Connection,
    RemoteProtocolError,
    RulesDisagreement,
    ServerError,
    play_online,
    valid_name,
)
from labyrinth.render import render_png, render_text
from labyrinth.rules import Labyrinth, LabyrinthConfig, Move, MoveType, whole_number

__all__ = ["describe", "main", "parse_command"]

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


def _size_config(args: argparse.Namespace) -> LabyrinthConfig:
    config = LabyrinthConfig()
    if args.width is not None:
        config = dataclasses.replace(config, width_range=(args.width, args.width))
    if args.height is not None:
        config = dataclasses.replace(config, height_range=(args.height, args.height))
    return config


#: Largest maze side the command accepts: generation tests connectivity per wall, so its time
#: grows steeply with the area (101 x 101 takes seconds, 301 x 101 most of a minute).
MAX_SIZE = 99


def _odd_size(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 5 or value % 2 == 0 or value > MAX_SIZE:
        raise argparse.ArgumentTypeError(f"{value} must be odd, from 5 to {MAX_SIZE}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="arena labyrinth", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("show", help="print (or draw) the maze of a seed")
    play = commands.add_parser("play", help="play against a bot in this terminal")
    for sub in (show, play):
        sub.add_argument("--width", type=_odd_size, help=f"maze width L (odd, 5 to {MAX_SIZE})")
        sub.add_argument("--height", type=_odd_size, help=f"maze height H (odd, 5 to {MAX_SIZE})")
    show.add_argument("--seed", type=seed, default=0, help="maze seed (default 0)")
    show.add_argument(
        "--png", type=png_file, metavar="FILE.png", help="also draw the maze into this PNG file"
    )
    play.add_argument("--seed", type=seed, help="maze seed (default: a random one, printed)")
    play.add_argument(
        "--opponent",
        default="astar",
        choices=sorted(STRATEGIES),
        help="the bot you play against (default astar)",
    )
    play.add_argument(
        "--second", action="store_true", help="let the bot start (you are player B, at the right)"
    )
    connect = commands.add_parser(
        "connect", help="play a game on a server of the course's 2017 protocol (CodingGameServer)"
    )
    connect.add_argument("host", help="the server's address, e.g. localhost")
    connect.add_argument("port", type=_port, help="the server's port")
    connect.add_argument(
        "--name", type=_client_name, default="arena_rotator", help="our name (1-20 of A-Za-z0-9_)"
    )
    connect.add_argument(
        "--training",
        type=_ascii_text,
        default="",
        help="WAIT_GAME's options, e.g. 'DO_NOTHING timeout=10' or 'PLAY_RANDOM rotation=True' "
        "(default: empty, a game against another program)",
    )
    connect.add_argument(
        "--strategy", default="rotator", choices=sorted(STRATEGIES), help="our bot (rotator)"
    )
    connect.add_argument(
        "--timeout",
        type=positive_seconds,
        default=3600.0,
        help="seconds to wait for any one answer, a game included (3600)",
    )
    connect.add_argument("-v", "--verbose", action="store_true", help="print every move")
    return parser


def _port(text: str) -> int:
    value = whole_number(text)
    if value is None or not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1-65535)")
    return value


def _ascii_text(text: str) -> str:
    if not text.isascii() or not text.isprintable():
        raise argparse.ArgumentTypeError(f"{text!r}: commands are printable ASCII")
    return text


def _client_name(text: str) -> str:
    if not valid_name(text):
        raise argparse.ArgumentTypeError(f"{text!r}: a name is 1-20 of A-Z a-z 0-9 _")
    return text


def connect(args: argparse.Namespace, out: TextIO) -> int:
    """One game on a server; 0 when it was played to the end (won or lost), 1 when the
    connection or the server failed us."""
    bot = STRATEGIES[args.strategy]()
    rng = random.Random(0)

    def choose(labyrinth: Labyrinth) -> Move:
        move: Move = bot.step(LabyrinthState(labyrinth.clone()), rng)
        return move

    def report(line: str) -> None:
        if args.verbose:
            print(line, file=out, flush=True)

    try:
        connection, sock = Connection.open(args.host, args.port, args.timeout)
    except OSError as error:
        print(
            f"arena labyrinth: cannot connect to {args.host}:{args.port}: {error}", file=sys.stderr
        )
        return 1
    try:
        result = play_online(connection, args.name, args.training, choose, report)
    except (OSError, RemoteProtocolError, ServerError, RulesDisagreement) as error:
        print(f"arena labyrinth: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    finally:
        sock.close()
    outcome = "won" if result.won else "lost"
    summary = f"game {result.game}: we {outcome} after {result.moves} moves. {result.message}"
    print(summary.rstrip(), file=out)
    return 0


def show(args: argparse.Namespace, out: TextIO) -> int:
    labyrinth = generate(args.seed, _size_config(args))
    print(f"seed {args.seed}: {labyrinth.width} x {labyrinth.height}", file=out)
    print(render_text(labyrinth), file=out)
    if args.png:
        try:
            render_png(labyrinth, args.png, title=f"Labyrinth seed {args.seed}")
        except OSError as error:
            raise UsageError(f"--png {args.png}: cannot write it: {error.strerror}") from None
        print(f"wrote {args.png}", file=out)
    return 0


def play(args: argparse.Namespace, stdin: TextIO, out: TextIO) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    state = LabyrinthState(generate(seed, _size_config(args)))
    labyrinth = state.labyrinth
    human = 1 if args.second else 0
    names = ["you", args.opponent] if human == 0 else [args.opponent, "you"]
    bot = STRATEGIES[args.opponent]()
    rng = random.Random(seed)
    print(f"seed {seed}: you are {'AB'[human]}; reach T with a step first. ? for help.", file=out)
    print(render_text(labyrinth, names), file=out)
    while not labyrinth.over:
        if labyrinth.to_move != human:
            move = bot.step(state, rng)
            labyrinth.play(move)
            print(f"\n{args.opponent}: {describe(move)}", file=out)
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


@command("arena labyrinth")
def main(argv: list[str], stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    args = _parser().parse_args(argv)
    out = stdout if stdout is not None else sys.stdout
    if args.command == "show":
        return show(args, out)
    if args.command == "connect":
        return connect(args, out)
    return play(args, stdin if stdin is not None else sys.stdin, out)
