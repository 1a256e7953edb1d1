"""``arena labyrinth``: show a maze from a seed, play one against a bot in the terminal, play on a
course server (2017 protocol), or run one with the teacher's web page.

arena labyrinth show --seed 3 [--png maze.png] [--width 15 --height 11]
arena labyrinth play [--opponent astar] [--seed 3] [--second]
arena labyrinth connect HOST PORT [--name arena_rotator] [--training 'PLAY_RANDOM rotate=true']
    [--rules auto|spec|cgs2017]
arena labyrinth serve [--host 127.0.0.1] [--port 1234] [--web 127.0.0.1:8088]
    [--rules spec|cgs2017] [--log-dir DIR] [--move-timeout 10] [--auto-pair] [--seed N]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from pathlib import Path
from typing import TextIO

from arena.errors import EXIT_INTERRUPTED, UsageError, command
from arena.logopts import add_key_option
from arena.options import (
    ArgumentParser,
    describe,
    png_file,
    port,
    positive_seconds,
    seed,
    server_port,
)
from client.labyrinth import (
    Connection,
    RulesDisagreement,
    ServerError,
    play_online,
    valid_name,
)
from labyrinth.game import STRATEGIES, LabyrinthState
from labyrinth.generation import generate
from labyrinth.interactive import play_at_terminal
from labyrinth.render import render_png, render_text
from labyrinth.rules import PROFILES, Labyrinth, LabyrinthConfig, Move
from protocol.framing import RemoteProtocolError

__all__ = ["main"]


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
    parser = ArgumentParser(prog="arena labyrinth", description=describe(__doc__))
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
    connect.add_argument("port", type=server_port, help="the server's port")
    connect.add_argument(
        "--name", type=_client_name, default="arena_rotator", help="our name (1-20 of A-Za-z0-9_)"
    )
    connect.add_argument(
        "--training",
        type=_ascii_text,
        default="",
        help="WAIT_GAME's options, e.g. 'DO_NOTHING timeout=10' or 'PLAY_RANDOM rotate=true' "
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
    connect.add_argument(
        "--rules",
        default="auto",
        choices=["auto", *sorted(PROFILES)],
        help="the server's rules: spec, cgs2017 (CodingGameServer: second player's energy 2) "
        "or auto (recognised from the game, default)",
    )
    connect.add_argument("-v", "--verbose", action="store_true", help="print every move")
    serve = commands.add_parser(
        "serve", help="run a server of the course's 2017 protocol, with the teacher's web page"
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=port, default=1234, help="game port (1234; 0: any)")
    serve.add_argument(
        "--web", type=_host_port, metavar="HOST:PORT", help="also serve the teacher's page here"
    )
    serve.add_argument(
        "--teacher-token",
        metavar="TOKEN",
        help="the credential the page's actions need (default: ARENA_TEACHER_TOKEN, else a new "
        "random one, printed at start)",
    )
    serve.add_argument(
        "--rules",
        default="spec",
        choices=sorted(PROFILES),
        help="spec (default) or cgs2017 (as CodingGameServer: second player's energy 2)",
    )
    serve.add_argument(
        "--log-dir", type=Path, help="write games/*.jsonl.gz and players/*.jsonl here"
    )
    add_key_option(serve, "each log (FILE.sig beside it)")
    serve.add_argument(
        "--move-timeout", type=positive_seconds, default=10.0, help="seconds per move (10)"
    )
    serve.add_argument(
        "--auto-pair",
        action="store_true",
        help="pair programs waiting for a game at once (default: the teacher pairs them)",
    )
    serve.add_argument("--seed", type=seed, help="seed of the server's draws (default: random)")
    return parser


def _host_port(text: str) -> tuple[str, int]:
    host, colon, port_text = text.rpartition(":")
    if not colon or not host:
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT, e.g. 127.0.0.1:8088")
    return host.strip("[]"), port(port_text)


def serve(args: argparse.Namespace, out: TextIO) -> int:
    """Run the server until SIGINT/SIGTERM; 1 when a port cannot be bound."""
    import signal

    import trio

    from arena.logopts import log_key
    from server.labyrinth.server import LabyrinthServer, Settings, serve_labyrinth

    if args.log_dir is not None:
        try:
            args.log_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UsageError(f"--log-dir {args.log_dir}: {error.strerror}") from None
    settings = Settings(
        rules=args.rules,
        move_timeout=args.move_timeout,
        log_dir=args.log_dir,
        log_key=None if args.log_dir is None else log_key(args, args.log_dir),
        auto_pair=args.auto_pair,
    )
    server = LabyrinthServer(settings, seed=args.seed)
    stopped_by: list[int] = []

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(serve_labyrinth, server, args.host, args.port)
            print(f"labyrinth server ({args.rules} rules) on {args.host}:{port}", file=out)
            print(
                "waiting for players (CLIENT_NAME, then WAIT_GAME); Ctrl-C stops",
                file=out,
                flush=True,
            )
            if args.web is not None:
                from server.labyrinth.web import teacher_app
                from server.web import serve_web
                from server.web.auth import TeacherGate

                gate = TeacherGate.from_env(args.teacher_token)
                web = await nursery.start(serve_web, teacher_app(server, gate), *args.web)
                print(f"teacher's page on http://{args.web[0]}:{web}/", file=out)
                if not args.teacher_token:
                    print(f"teacher token: {gate.token} (log in at /login to act)", file=out)
            out.flush()
            with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for signum in signals:
                    stopped_by.append(signum)
                    break
            nursery.cancel_scope.cancel()

    try:
        trio.run(run)
    except (OSError, BaseExceptionGroup) as failure:
        bind_error = _os_error(failure)
        if bind_error is None:
            raise
        print(f"arena labyrinth: cannot listen: {bind_error}", file=sys.stderr)
        return 1
    print("labyrinth server stopped", file=out)
    # As every command: 130 after Ctrl-C (SIGINT), 0 after SIGTERM.
    return EXIT_INTERRUPTED if stopped_by == [signal.SIGINT] else 0


def _os_error(failure: BaseException) -> OSError | None:
    if isinstance(failure, OSError):
        return failure
    if isinstance(failure, BaseExceptionGroup):
        for inner in failure.exceptions:
            if (found := _os_error(inner)) is not None:
                return found
    return None


def replay(command: str, paths: list[str], output: str | None, png: str | None) -> int:
    """``arena replay verify|show|render`` of Labyrinth game logs and ``show`` of player logs
    (arena/replay.py sends them here): 0 when done (verify: every log re-plays exactly), 1 on a
    difference, 2 bad input (a player's log to verify or render is one)."""
    from labyrinth.replay import (
        LogError,
        is_player_log,
        read_game_log,
        read_player_log,
        render_html,
        show,
        show_player,
        verify,
    )

    worst = 0
    for path in paths:
        try:
            if is_player_log(path) and command != "show":
                print(f"arena replay {command}: {path}: a Labyrinth player's log has no moves "
                      f"to {command}; 'arena replay show' prints it, its games' logs are in "
                      "games/", file=sys.stderr)  # fmt: skip
                worst = 2
                continue
            if is_player_log(path):
                print(show_player(read_player_log(path)))
                continue
            log = read_game_log(path)
            if command == "verify":
                problems = verify(log)
                moves = sum(r["type"] == "move" for r in log.records)
                if problems:
                    print(f"FAIL {path}: {problems[0]}" + (f" (+{len(problems) - 1} more)"
                          if len(problems) > 1 else ""))  # fmt: skip
                    worst = max(worst, 1)
                else:
                    print(f"OK {path}: {moves} moves re-played, every code and energy matches")
            elif command == "show":
                print(show(log))
            else:
                if output is None and png is None:
                    print("arena replay render: give -o FILE.html, --png FILE.png, or both",
                          file=sys.stderr)  # fmt: skip
                    return 2
                if output is not None:
                    Path(output).write_text(render_html(log), encoding="utf-8")
                    print(f"wrote {output}")
                if png is not None:
                    from labyrinth.replay import frames, initial

                    final = initial(log)
                    for record in log.records:
                        if record["type"] == "move" and not final.over:
                            final.play(Move(*record["move"]))
                    render_png(final, png, title=f"Labyrinth {log.header.get('game', '')}")
                    print(f"wrote {png}: after {len(frames(log)) - 1} moves")
        except (LogError, KeyError, TypeError, ValueError) as error:
            print(f"arena replay {command}: {path}: {error}", file=sys.stderr)
            worst = 2
    return worst


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
    training = f" ({args.training})" if args.training else ""
    print(
        f"arena labyrinth: connected to {args.host}:{args.port} as {args.name}: waiting for a"
        f" game{training}, then playing it",
        file=sys.stderr,
        flush=True,
    )
    try:
        result = play_online(connection, args.name, args.training, choose, report, args.rules)
    except RulesDisagreement as error:
        print(f"arena labyrinth: stopped, the server's verdict differs: {error}", file=sys.stderr)
        return 1
    except (OSError, RemoteProtocolError, ServerError) as error:
        print(f"arena labyrinth: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    finally:
        sock.close()
    outcome = "drew" if result.draw else "won" if result.won else "lost"
    forfeit = " (the opponent forfeited)" if result.forfeit else ""
    summary = (
        f"game {result.game}: we {outcome}{forfeit} after {result.moves} moves "
        f"({result.rules} rules). {result.message}"
    )
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
    return play_at_terminal(state, seed, args.opponent, 1 if args.second else 0, stdin, out)


@command("arena labyrinth")
def main(argv: list[str], stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    args = _parser().parse_args(argv)
    out = stdout if stdout is not None else sys.stdout
    if args.command == "show":
        return show(args, out)
    if args.command == "connect":
        return connect(args, out)
    if args.command == "serve":
        return serve(args, out)
    return play(args, stdin if stdin is not None else sys.stdin, out)
