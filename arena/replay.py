"""``arena replay``: verify, show, render or fork a match log of any game.

Exit status: 0 when the command did its job (``verify``: the log re-runs exactly), 1 when
``verify`` finds a difference or a broken hash chain (or, with ``--require-complete``, no close
line), 2 on bad usage or a file that is not a readable match log (the message on stderr names
the file and the cause). ``verify`` says OK or FAIL first on its line, whatever else it says.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from arena.errors import EXIT_USAGE, UsageError, command
from arena.options import ArgumentParser, count, png_file, positive_count
from arena.replay_games import game_paths, games_command, verify_seals, write_file
from arena.replay_verify import match_timeline, read_match_log, verify_logs

__all__ = ["main"]


def _fish(args: argparse.Namespace) -> int | None:
    """Fish's logs (game-*.jsonl, tournament.jsonl) have their own show and render."""
    from fish.replay import fish_log_kind, render_html, show_lines

    if fish_log_kind(args.log) is None:
        return None
    try:
        if args.command == "show":
            print("\n".join(show_lines(args.log)))
            return 0
        if args.output is None:
            raise UsageError("render: a Fish game draws to -o FILE.html")
        page, frames = render_html(args.log)
    except (ValueError, KeyError, TypeError) as error:
        raise UsageError(f"{args.log}: not a readable Fish log: {error!r:.200}") from None
    Path(args.output).write_text(page, encoding="utf-8")
    print(f"wrote {args.output}: steps 0 to {frames - 1}")
    return 0


def _penguins(args: argparse.Namespace) -> int | None:
    """A Penguins master's log (log.jsonl.gz, or an old log.jsonl): render draws it."""
    from penguins.replay import is_penguins_log, render_html

    if not is_penguins_log(args.log):
        return None
    if args.command != "render" or args.output is None:
        raise UsageError(f"{args.log}: a Penguins game log renders to -o FILE.html only")
    try:
        page, frames = render_html(args.log)
    except (ValueError, KeyError, TypeError) as error:
        raise UsageError(f"{args.log}: not a readable Penguins log: {error}") from None
    write_file(Path(args.output), "-o", page.encode("utf-8"))
    print(f"wrote {args.output}: steps 0 to {frames - 1}")
    return 0


def _show(args: argparse.Namespace) -> int:
    from rich.console import Console

    from replay.show import print_timeline

    if (status := _fish(args)) is not None:
        return status
    if args.wire:
        raise UsageError(
            f"--wire: {args.log} is not a Labyrinth game log (--wire shows a Labyrinth game's "
            "messages; --records a Fish game's calls and replies)"
        )
    log = read_match_log(args.log)
    console = Console(highlight=False, width=args.width)
    print_timeline(
        log,
        match_timeline(log),
        console,
        team=args.team,
        agent=args.agent,
        sightings=not args.no_sightings,
        requests=args.requests,
    )
    return 0


def _render(args: argparse.Namespace) -> int:
    if args.output is None and args.png is None:
        raise UsageError("give -o FILE.html, --png FILE.png, or both")
    if (status := _fish(args)) is not None:
        return status
    if (status := _penguins(args)) is not None:
        return status
    log = read_match_log(args.log)
    timeline = match_timeline(log)
    if args.step is not None and not 0 <= args.step < len(timeline.frames):
        raise UsageError(f"--step {args.step}: the match has steps 0 to {len(timeline.frames) - 1}")
    if log.bad is not None:
        # The pictures are drawn from the trusted part only; say so where the user looks.
        print(
            f"arena replay render: warning: {args.log} {log.bad}; showing lines 1-"
            f"{log.bad.line - 1} only (see 'arena replay verify {args.log}')",
            file=sys.stderr,
        )
    if args.output is not None:
        from replay.html import render_html

        write_file(Path(args.output), "-o", render_html(log, timeline).encode("utf-8"))
        print(f"wrote {args.output}: steps 0 to {len(timeline.frames) - 1}")
    if args.png is not None:
        from replay.still import render_png

        step = len(timeline.frames) - 1 if args.step is None else args.step
        try:
            render_png(timeline, step, str(args.png))
        except OSError as error:
            raise UsageError(f"--png {args.png}: cannot write it: {error.strerror}") from None
        print(f"wrote {args.png}: step {step} of {len(timeline.frames) - 1}")
    return 0


def _fork(args: argparse.Namespace) -> int:
    from sim.fork import ForkError, fork

    log = read_match_log(args.log)
    names = [name.strip() for name in args.strategies.split(",")]
    if len(names) != 2 or not all(names):
        raise UsageError(f"--strategies {args.strategies!r}: give two names, e.g. reference,rusher")
    try:
        result = fork(
            log,
            at=args.at,
            strategies=(names[0], names[1]),
            seed_offset=args.seed_offset,
            steps=args.steps,
            output=args.output,
            optimum=args.optimum,
        )
    except ForkError as error:
        raise UsageError(str(error)) from None
    for line in result.lines():
        print(line)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="arena replay", description="Verify, show, render or fork a match log of any game."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    verify = commands.add_parser(
        "verify", help="re-run the engine from the log and compare every message and event"
    )
    verify.add_argument("logs", nargs="+", metavar="LOG", help="match logs (JSON Lines)")
    verify.add_argument(
        "--optimum", action="store_true", help="also recompute each logged trap optimum (slower)"
    )
    verify.add_argument(
        "--require-complete", action="store_true", help="exit 1 when the log has no close line"
    )
    verify.add_argument(
        "--key",
        metavar="FILE",
        default=os.environ.get("ARENA_LOG_KEY"),
        help="the server's log key: tell a genuine signed log from a re-hashed one "
        "(default: $ARENA_LOG_KEY)",
    )
    verify.set_defaults(run=verify_logs)

    show = commands.add_parser("show", help="print a readable timeline of the match")
    show.add_argument("log")
    show.add_argument("--team", type=int, choices=(0, 1), help="only what concerns this team")
    show.add_argument(
        "--agent", type=int, choices=range(6), metavar="0-5", help="only this agent (0: heir)"
    )
    show.add_argument("--no-sightings", action="store_true", help="leave out enemy sightings")
    show.add_argument("--requests", action="store_true", help="also list every request")
    show.add_argument(
        "--records",
        action="store_true",
        help="a Fish, Labyrinth or Penguins log: print every record (each call and reply as on "
        "the wire), regenerated, as JSON Lines",
    )
    show.add_argument(
        "--wire",
        action="store_true",
        help="a Labyrinth game log: print every message of the game as it was on the wire "
        "(each program's commands, the server's framed answers), regenerated, as JSON Lines",
    )
    show.add_argument(
        "--width", type=positive_count, default=None, help="terminal width (default: auto)"
    )
    show.set_defaults(run=_show)

    render = commands.add_parser(
        "render", help="write a self-contained HTML viewer (and/or a PNG still)"
    )
    render.add_argument("log")
    render.add_argument("-o", "--output", help="the HTML file to write")
    render.add_argument(
        "--png", type=png_file, help="also (or only) draw a still picture to this PNG file"
    )
    render.add_argument("--step", type=count, help="the step the PNG shows (default: the last)")
    render.set_defaults(run=_render)

    fork = commands.add_parser(
        "fork", help="continue the match headless from the state after line N"
    )
    fork.add_argument("log")
    fork.add_argument("--at", type=int, required=True, help="the log line N to fork after")
    fork.add_argument(
        "--strategies",
        required=True,
        help="team 0's and team 1's strategies, e.g. reference,rusher (Fish, Labyrinth, "
        "Penguins: one a seat, e.g. greedy,minimax1 or astar,random or greedy,alphabeta)",
    )
    fork.add_argument(
        "--seed-offset",
        type=count,
        default=0,
        help="vary the strategies' seeds and the step order (default 0)",
    )
    fork.add_argument(
        "--steps", type=positive_count, help="logical steps before a draw (default: config)"
    )
    fork.add_argument("-o", "--output", help="write the forked match's log here")
    fork.add_argument(
        "--optimum", action="store_true", help="log the trap optimum of each new crossing"
    )
    fork.set_defaults(run=_fork)
    return parser


@command("arena replay")
def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    sealed_status = 0
    if args.command == "verify":
        try:
            sealed_status, args.logs = verify_seals(args)
        except UsageError as error:
            print(f"arena replay verify: {error}", file=sys.stderr)
            return EXIT_USAGE
        if not args.logs:
            return sealed_status
    if args.command in ("verify", "show", "render", "fork"):
        paths = args.logs if args.command == "verify" else [args.log]
        games = game_paths(paths, args.command, wire=getattr(args, "wire", False))
        if games:
            # Fish, Labyrinth and Penguins game logs (replay/games.py); any others after them
            try:
                games_status = games_command(args, games)
                args.games_status, args.games_checked = games_status, len(games)
                sealed_status = max(sealed_status, games_status)
            except UsageError as error:
                print(f"arena replay {args.command}: {error}", file=sys.stderr)
                return EXIT_USAGE
            if len(games) == len(paths):
                return sealed_status
            args.logs = [path for path in paths if path not in games]
    if args.command in ("verify", "show", "render"):
        from labyrinth.replay import is_game_log, is_player_log

        paths = args.logs if args.command == "verify" else [args.log]
        # Labyrinth game and player logs: their own tools
        if all(is_game_log(path) or is_player_log(path) for path in paths):
            from arena.labyrinth import replay

            own = replay(
                args.command, paths, getattr(args, "output", None), getattr(args, "png", None)
            )
            return max(own, sealed_status)
    try:
        status: int = args.run(args)
    except UsageError as error:
        print(f"arena replay {args.command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    return max(status, sealed_status)
