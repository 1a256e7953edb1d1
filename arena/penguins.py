"""``arena penguins`` and the ``penguins-player`` script: the player program, terminal play and
the game master's command line.

    penguins-player phase=movement board.txt board.txt         (the player: client.penguins)
    arena penguins play --opponent alphabeta                    (penguins.interactive)
    arena penguins master --player CMD --player CMD [--seed 3]  (the master: server.penguins.master)

Only ``sys`` is imported here: a game master starts the player program once per move, so each
branch imports its own modules when it is taken.
"""

import sys

__all__ = ["main", "master_main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``penguins-player`` (argv None: sys.argv[1:]) and ``arena penguins``."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] == "master":
        return master_main(args[1:])
    if "name" in args and args[0] != "play":
        # Asked before every game: the interpreter's start-up and this module, nothing more.
        from penguins.naming import name_of

        print(name_of(args))
        return 0
    from client.penguins import main as player_main

    return player_main(args)


def master_main(argv: list[str]) -> int:
    """``arena penguins master``: parse the options, set up the board, host the game, print the
    ranking."""
    import argparse
    import random
    import shlex
    import tempfile
    from pathlib import Path

    from arena.logopts import add_key_option, log_key
    from arena.options import positive_seconds
    from penguins.facts import GAME_TYPE
    from penguins.rules import generate_fish, penguins_each
    from protocol.penguins import BoardFile, BoardFileError, parse
    from server.penguins.master import LOG_NAME, host, sandbox_runner
    from server.sandbox import check_available

    parser = argparse.ArgumentParser(
        prog="arena penguins master",
        description="Run player programs against each other on one board file, each sandboxed.",
    )
    parser.add_argument(
        "--player",
        action="append",
        required=True,
        metavar="COMMAND",
        help="a player program with its arguments, e.g. 'penguins-player strategy=greedy id=g' "
        "(repeat, in turn order; 1-9 programs)",
    )
    parser.add_argument("--penguins", type=int, help="penguins each (default: by board size)")
    parser.add_argument("--rows", type=int, default=10, help="rows of a generated board (10)")
    parser.add_argument("--cols", type=int, default=10, help="columns of a generated board (10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of a generated board (0)")
    parser.add_argument("--board", type=Path, help="start from this board file instead")
    parser.add_argument(
        "--timeout", type=positive_seconds, default=2.0, help="seconds per call (2)"
    )
    parser.add_argument("--workdir", type=Path, help="directory for the game (default: new temp)")
    parser.add_argument(
        "--sandbox",
        choices=("bwrap", "none"),
        default="bwrap",
        help="how programs are isolated: bubblewrap (bwrap, the default; refused where it "
        "cannot run) or not at all (none: resource limits only, as you; warns every run)",
    )
    add_key_option(parser, "the game's log (log.jsonl.gz, signed in its lines)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every step")
    args = parser.parse_args(argv)
    if not 1 <= len(args.player) <= GAME_TYPE.max_players:
        parser.error(f"give 1-{GAME_TYPE.max_players} --player programs")
    if args.penguins is not None and args.penguins < 1:
        parser.error(f"--penguins must be at least 1, got {args.penguins}")
    try:
        commands = [shlex.split(text) for text in args.player]
    except ValueError as error:
        parser.error(f"--player: {error}")
    if not all(commands):
        parser.error("empty --player command")
    count = len(commands)
    if args.board is not None:
        try:
            board = parse(args.board.read_bytes().decode("utf-8", "surrogateescape"), strict=True)
        except (OSError, BoardFileError) as error:
            print(f"arena penguins master: {args.board}: {error}", file=sys.stderr)
            return 2
        each = args.penguins or penguins_each(count, board.rows, board.cols)
    else:
        if args.rows < 1 or args.cols < 1:
            parser.error("--rows and --cols must be positive")
        each = args.penguins or penguins_each(count, args.rows, args.cols)
        if each * count > args.rows * args.cols:
            parser.error(f"{each} penguins for each of {count} players do not fit")
        fish = generate_fish(random.Random(args.seed), args.rows, args.cols, each * count)
        board = parse(BoardFile(args.rows, args.cols, fish, [0] * len(fish), []).render())
    # One rule with the tournament (issue 17): never unconfined unless asked, then warned.
    mode = args.sandbox
    if mode == "none":
        print(
            "arena penguins master: WARNING: --sandbox none: the player programs run "
            "unconfined, as you, with resource limits only, and can read or change anything "
            "you can",
            file=sys.stderr,
        )
    else:
        reason = check_available()
        if reason is not None:
            print(
                f"arena penguins master: cannot sandbox the player programs: {reason}; install "
                "bubblewrap (make bubblewrap) or pass --sandbox none to run them unconfined",
                file=sys.stderr,
            )
            return 1
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="penguins-game-"))

    def echo(entry: dict[str, object]) -> None:
        if args.verbose and entry["event"] == "call":
            detail = entry.get("move") or entry.get("reason") or entry.get("verdict")
            print(f"{entry['player']}: {detail}")

    try:
        key = log_key(args, workdir)
        seed = None if args.board else args.seed
        runner = sandbox_runner(mode)
        _, _, table = host(
            commands, board, each, workdir, runner, args.timeout, echo, key=key, seed=seed
        )
    except OSError as error:
        print(f"arena penguins master: {workdir}: {error}", file=sys.stderr)
        return 2
    for place, program, got in table:
        note = f"  disqualified: {program.disqualified}" if program.disqualified else ""
        print(f"{place or '-'}. {program.name}  {got} fish{note}")
    print(f"log: {workdir / LOG_NAME}  final board: {workdir / 'board.txt'}")
    return 0
