"""``arena``: the one command-line front door to the project.

Each subcommand lives in the package that owns it and is imported only when asked for: the
course harnesses (``arena fish xboard``) and the Penguins player must start in a few
milliseconds, so nothing heavy (numpy, trio, networkx) may load on their path.
"""

from __future__ import annotations

import importlib
import sys

from arena.errors import EXIT_INTERRUPTED, command

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: start-up time counts here
if TYPE_CHECKING:
    from collections.abc import Sequence

#: subcommand -> (module, one-line description). The module has ``main(argv) -> int``.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "match": ("arena.match", "play one dungeon match on loopback: server and both teams"),
    "serve": ("arena.serve", "host dungeon matches over TCP"),
    "team": ("arena.team", "connect one team of six agents to a dungeon server"),
    "check-client": ("arena.check_client", "check a team program against a probing server"),
    "dungeon": ("arena.dungeon", "generate a dungeon from a seed and describe or draw it"),
    "tournament": (
        "arena.tournament.cli",
        "run a class tournament of sandboxed team programs; leaderboard and live page",
    ),
    "ladder": (
        "arena.ladder",
        "the class ladder: roster and tokens, submissions checked, continuous rated matches",
    ),
    "sim": ("arena.sim", "run thousands of headless matches and compare strategies"),
    "replay": ("arena.replay", "verify, show, render or fork a match log"),
    "fish": ("arena.fish", "Fish: the course's harnesses (xboard, ...), serve and clients"),
    "penguins": ("arena.penguins", "Penguins: the player program and terminal play"),
    "labyrinth": ("arena.labyrinth", "Labyrinth: show a maze, play a bot, connect, serve"),
}


def usage() -> str:
    width = max(len(name) for name in SUBCOMMANDS)
    lines = ["usage: arena COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<{width}}  {text}" for name, (_, text) in SUBCOMMANDS.items()]
    lines += ["", "Run 'arena COMMAND --help' for the options of one command."]
    return "\n".join(lines)


def version() -> str:
    """The installed package's version, from its metadata (pyproject.toml's)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("dungeon-arena")
    except PackageNotFoundError:
        return "unknown (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help", "help", "-V", "--version"}:
        # Under the same guard as the commands: `arena --help | head -3` ends quietly too.
        @command("arena")
        def say() -> int:
            if args and args[0] in {"-V", "--version"}:
                print(f"arena {version()}")
                return 0
            print(usage())
            return 0 if args else 2

        return say()
    name, rest = args[0], args[1:]
    if name not in SUBCOMMANDS:
        print(f"arena: unknown command {name!r} (see 'arena --help')", file=sys.stderr)
        return 2

    # Every command runs under the one guard, so Ctrl-C (130), a closed pipe, an unwritable
    # output and a UsageError end the same way everywhere, even during the command's imports
    # (the commands' own mains are guarded too: direct callers get the same statuses).
    @command(f"arena {name}")
    def run() -> int:
        module = importlib.import_module(SUBCOMMANDS[name][0])
        result: int = module.main(rest)
        return result

    status = run()
    if status == EXIT_INTERRUPTED and argv is None:
        # The program is ending after Ctrl-C: a second one pressed while the interpreter
        # shuts down killed it by the signal (status -2, not 130), or raised outside the guard.
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return status


if __name__ == "__main__":
    sys.exit(main())
