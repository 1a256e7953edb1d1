"""``arena fish xboard|xstate|xtree|xstrategy|xref``: the course's test harnesses;
``arena fish serve`` and ``arena fish clients``: the networked tournament.

Each reads one JSON value from stdin and prints one JSON value on stdout. Malformed input gets a
message on stderr naming the field, and exit status 2. Teachers run thousands of cases, one
process each, so the common path imports only the floes core and a JSON reader over the builtin
C scanner (:mod:`fish.fastjson`: ``import json`` alone would cost a quarter of a run);
argparse is loaded only to explain usage. ``serve`` and ``clients`` live in
:mod:`arena.fish_net`, imported only for them (trio stays off the harnesses' path).
"""

from __future__ import annotations

import sys

from arena.errors import command

__all__ = ["main"]

COMMANDS = {
    "xboard": '{"position": P, "board": B} -> number of tiles a penguin on P can reach',
    "xstate": "State -> the first player's first penguin one step on, player rotated last; false",
    "xtree": '{"state": S, "from": P, "to": Q} -> the second player\'s move next to Q, or false',
    "xstrategy": "[D, State] -> the first player's minimax move over D of its turns, or false",
    "xref": '{"row": R, "column": C, "players": [[name, depth], ...], "fish": F} -> winners',
}


def _usage(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="arena fish",
        description="Fish: the course's test harnesses (one JSON value on stdin, one on stdout) "
        "and its networked tournament (serve, clients).",
        epilog='Example: echo \'{"position":[0,0],"board":[[1,2,3],[4,0,5],[1,1,0]]}\' '
        "| arena fish xboard   # prints 3",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("serve", help="host a tournament: sign-up, manager, referees over TCP")
    commands.add_parser("clients", help="connect N AI (or misbehaving) players to a server")
    for name, text in COMMANDS.items():
        commands.add_parser(name, help=text, description=text)
    parser.parse_args(argv)  # exits 0 on --help, 2 on anything unknown
    return 2


def run(command: str, text: str) -> tuple[int, str]:
    """Run one harness on the text of its input: (exit status, stdout or stderr text)."""
    from fish.data import MalformedInput
    from fish.fastjson import JSONError, dumps, loads
    from fish.harness import HARNESSES

    try:
        value = loads(text)
    except JSONError as error:
        return 2, f"arena fish {command}: stdin is not one JSON value: {error}"
    try:
        result = HARNESSES[command](value)
    except MalformedInput as error:
        return 2, f"arena fish {command}: malformed input: {error}"
    except (MemoryError, OverflowError):
        # e.g. xref with {"row": 100000, "column": 100000}: well-formed, but no board fits
        # (OverflowError once row * column no longer fits a list index).
        return 2, f"arena fish {command}: the input is too large to hold in memory"
    return 0, dumps(result)


@command("arena fish")
def main(argv: list[str]) -> int:
    if argv and argv[0] in ("serve", "clients"):
        from arena.fish_net import main as network_main

        return network_main(argv)
    if len(argv) != 1 or argv[0] not in COMMANDS:
        return _usage(argv)
    try:
        text = sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError as error:
        print(f"arena fish {argv[0]}: stdin is not UTF-8: {error}", file=sys.stderr)
        return 2
    status, output = run(argv[0], text)
    print(output, file=sys.stdout if status == 0 else sys.stderr)
    return status
