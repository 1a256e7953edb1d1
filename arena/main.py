"""``arena``: the one command-line front door to the project.

Each subcommand lives in the package that owns it and is imported only when asked for: the
course harnesses (``arena fish xboard``) and the Penguins player must start in a few
milliseconds, so nothing heavy (numpy, trio, networkx) may load on their path.
"""

from __future__ import annotations

import importlib
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: start-up time counts here
if TYPE_CHECKING:
    from collections.abc import Sequence

#: subcommand -> (module, one-line description). The module has ``main(argv) -> int``.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "match": ("arena.match", "play one dungeon match on loopback: server and both teams"),
    "serve": ("arena.serve", "host dungeon matches over TCP"),
    "team": ("arena.team", "connect one team of six agents to a dungeon server"),
    "dungeon": ("arena.dungeon", "generate a dungeon from a seed and describe or draw it"),
    "tournament": (
        "arena.tournament.cli",
        "run a class tournament of sandboxed team programs; leaderboard and live page",
    ),
    "sim": ("arena.sim", "run thousands of headless matches and compare strategies"),
    "replay": ("arena.replay", "verify, show, render or fork a match log"),
    "fish": ("arena.fish", "Fish: the course's test harnesses (xboard, xstate, ...)"),
    "penguins": ("penguins.player", "Penguins: the player program and terminal play"),
    "labyrinth": ("arena.labyrinth", "Labyrinth: show a maze, play against a bot"),
}


def usage() -> str:
    width = max(len(name) for name in SUBCOMMANDS)
    lines = ["usage: arena COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<{width}}  {text}" for name, (_, text) in SUBCOMMANDS.items()]
    lines += ["", "Run 'arena COMMAND --help' for the options of one command."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help", "help"}:
        print(usage())
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command not in SUBCOMMANDS:
        print(f"arena: unknown command {command!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(SUBCOMMANDS[command][0])
    try:
        result: int = module.main(rest)
    except BrokenPipeError:
        # The reader went away (`arena dungeon --json | head`): not an error of ours. Point
        # stdout at devnull so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return result


if __name__ == "__main__":
    sys.exit(main())
