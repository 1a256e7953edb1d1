"""``arena serve``: host dungeon matches over TCP until SIGINT or SIGTERM.

On either signal the server stops accepting, ends every running match as a draw, closes every
match log cleanly, stops its checker workers and exits: 0 after SIGTERM, 130 after SIGINT
(Ctrl-C), as every command. Exit 2 on bad usage, 1 when it cannot listen.

``--processes N`` (N > 1): this process runs the lobby and hands each full match to one of N
worker processes (server.workers); a worker is this module run as ``python -m arena.serve
--worker FD LEVEL SETTINGS`` (:func:`worker_main`), so that it configures logging and its
checker pool as this command does (the server never imports the command line).
"""

from __future__ import annotations

import argparse
import base64
import ipaddress
import os
import re
import signal
import socket
import sys
import tomllib
from functools import partial
from pathlib import Path
from typing import Any, TextIO

import msgspec
import structlog
import trio

from arena.errors import EXIT_FAILURE, EXIT_INTERRUPTED, UsageError, command
from arena.logopts import add_log_options, log_settings
from arena.logs import configure_logging
from arena.options import (
    ArgumentParser,
    add_config_option,
    add_time_options,
    count,
    describe,
    dungeon_rules,
    log_level,
    port,
    positive_count,
    seed,
    web_address,
)
from dungeon.config import RulesConfig
from server.app import Server, limits_for, serve
from server.fairtime import loopback_meters
from server.gc_policy import Collector
from server.handoff import Settings

__all__ = ["main"]

log = structlog.get_logger()

_MATCH_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = ArgumentParser(prog="arena serve", description=describe(__doc__))
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=port, default=7700, help="TCP port (0: any free port)")
    parser.add_argument("--log-dir", type=Path, default=Path("logs"), help="match logs go here")
    add_log_options(parser)
    add_config_option(parser, "rules overrides, e.g. nodes=300 radius=0.1")
    parser.add_argument(
        "--seed", type=seed, default=None, help="first match's seed, +1 per match (default: random)"
    )
    parser.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a network limit (docs/server.md, Limits), e.g. max_connections=1000; repeatable",
    )
    parser.add_argument(
        "--check-workers",
        type=count,
        default=2,
        help="worker processes for trap optimum checks (0: no checks)",
    )
    parser.add_argument(
        "--teams",
        type=Path,
        default=None,
        metavar="FILE",
        help='TOML file of team tokens: [match-name] with 0 = "token" and 1 = "token"; '
        "a start for a listed match and team must carry that token",
    )
    parser.add_argument(
        "--web",
        type=web_address,
        default=None,
        metavar="HOST:PORT",
        help="also serve the live page (running and finished matches) there",
    )
    parser.add_argument(
        "--processes",
        type=positive_count,
        default=1,
        help="processes that play matches: above 1, this one runs the lobby and hands each "
        "full match to one of N worker processes (default 1: this process plays them)",
    )
    add_time_options(parser, "wall", "team programs connecting over loopback on this machine")
    parser.add_argument(
        "--log-level", type=log_level, default="info", help="server log level (stderr)"
    )
    return parser.parse_args(argv)


async def _run(
    args: argparse.Namespace,
    config: RulesConfig,
    checker: Any,
    tokens: dict[str, dict[int, str]] | None,
) -> int:
    """Serve until a signal; the exit status it calls for (130 after SIGINT, else 0)."""
    shutdown = trio.Event()
    status = 0

    async def on_signal() -> None:
        nonlocal status
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for signum in signals:
                log.info("signal_received", signal=signal.Signals(signum).name)
                status = EXIT_INTERRUPTED if signum == signal.SIGINT else 0
                shutdown.set()
                return

    async with trio.open_nursery() as nursery:
        nursery.start_soon(on_signal)
        if args.processes > 1:
            await _serve_processes(args, config, tokens, shutdown)
            nursery.cancel_scope.cancel()
            log.info("serve_exit")
            return status
        server = Server(
            config=config,
            log_dir=args.log_dir,
            log_maps=args.log_maps,
            log_key=args.log_key_bytes,
            log_budget=args.log_budget,
            seed=args.seed,
            checker=checker,
            check_workers=max(1, args.check_workers),
            limits=args.limits,
            # This process is the server's own: keep the collector off its answer times.
            collector=Collector(),
            tokens=tokens,
            time=args.time,
            meters=loopback_meters if args.time == "cpu" or args.cpu_budget else None,
            cpu_budget=args.cpu_budget,
        )
        if args.web is not None:
            from server.competition.board import Board, server_observer
            from server.competition.web import serve_board

            board = Board("Dungeon Arena server")
            server.observer = server_observer(board)
            host, web_port = args.web
            bound = await nursery.start(serve_board, board, host, web_port)
            log.info("web_listening", url=f"http://{host}:{bound}/")
        await _serve_saying(server, args, shutdown)
        nursery.cancel_scope.cancel()  # every match is closed: the page goes too
    log.info("serve_exit")
    return status


async def _serve_saying(server: Server, args: argparse.Namespace, shutdown: trio.Event) -> None:
    """``serve``, with one plain line once it listens: the JSON log above it is for machines,
    and a server can wait long for its first team."""
    async with trio.open_nursery() as serving:
        port = await serving.start(
            partial(serve, server, host=args.host, port=args.port, shutdown=shutdown)
        )
        print(
            f"arena serve: listening on {args.host}:{port}, match logs into {args.log_dir}/;"
            " waiting for teams (Ctrl-C ends running matches as draws, then stops)",
            file=sys.stderr,
            flush=True,
        )


async def _serve_processes(
    args: argparse.Namespace,
    config: RulesConfig,
    tokens: dict[str, dict[int, str]] | None,
    shutdown: trio.Event,
) -> None:
    """The front of ``--processes N``: the lobby here, every match in a worker process."""
    from server.workers import WorkerPool

    settings = Settings(
        config=config.to_dict(),
        limits=args.limits,
        log_dir=str(args.log_dir),
        check_workers=args.check_workers,
        log_maps=args.log_maps,
        log_key=None if args.log_key_bytes is None else args.log_key_bytes.hex(),
        log_budget=args.log_budget,
    )
    pool = WorkerPool(args.processes, partial(worker_command, settings, args.log_level))
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        server = Server(
            config=config,
            log_dir=args.log_dir,
            seed=args.seed,
            checker=None,
            limits=args.limits,
            collector=Collector(),
            tokens=tokens,
            hand_off=pool.hand_off,
        )
        pool.finished = server.lobby.finished
        try:
            await _serve_saying(server, args, shutdown)
        finally:
            with trio.CancelScope(shield=True):
                await pool.stop()


def worker_command(settings: Settings, level: str, fd: int) -> list[str]:
    """How the front starts a worker with control socket ``fd``."""
    encoded = base64.b64encode(msgspec.msgpack.encode(settings)).decode("ascii")
    return [sys.executable, "-m", "arena.serve", "--worker", str(fd), level, encoded]


@command("arena serve (worker process)")
def worker_main(argv: list[str]) -> int:
    """A worker process of ``arena serve --processes N``: ``FD LEVEL SETTINGS`` (its control
    socket, the log level, the front's settings). Started by the front only."""
    from server.worker import host

    # The front stops its workers; they are in a process group of their own, and this keeps a
    # signal sent to them all (kill -INT 0) from printing a KeyboardInterrupt traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    fd, level, encoded = int(argv[0]), argv[1], argv[2]
    settings = msgspec.msgpack.decode(base64.b64decode(encoded), type=Settings)
    configure_logging(level=level, stream=_whole_lines())
    structlog.contextvars.bind_contextvars(worker_pid=os.getpid())
    control = socket.socket(fileno=fd)
    pool = None
    if settings.check_workers > 0:
        timeout = RulesConfig.from_dict(settings.config).optimum_timeout
        pool = start_optimum_pool(settings.check_workers, timeout)
    try:
        trio.run(partial(host, control, settings, checker=None if pool is None else pool.check))
    finally:
        if pool is not None:
            pool.close()
    return 0


@command("arena serve")
def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.processes > 1 and args.web is not None:
        raise UsageError("--web cannot be used with --processes above 1")
    measured = args.time == "cpu" or args.cpu_budget is not None
    if measured and args.processes > 1:
        raise UsageError("--time cpu and --cpu-budget cannot be used with --processes above 1")
    if measured and not _loopback(args.host):
        raise UsageError(
            f"--time cpu and --cpu-budget measure team programs on this machine, found through "
            f"their loopback sockets: listen on 127.0.0.1 or ::1, not {args.host}"
        )
    config = dungeon_rules(args.config)
    try:
        args.limits = limits_for(config).with_overrides(args.limit)
    except ValueError as error:
        raise UsageError(f"--limit {error}") from None
    try:
        args.log_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"--log-dir {args.log_dir}: {error.strerror}") from None
    args.log_maps, args.log_key_bytes = log_settings(args, args.log_dir)
    tokens = None
    if args.teams is not None:
        try:
            tokens = load_tokens(args.teams)
        except ValueError as error:
            raise UsageError(f"--teams {args.teams}: {error}") from None
    # The front and its workers share stderr: each line must reach it in one write.
    configure_logging(level=args.log_level, stream=_whole_lines() if args.processes > 1 else None)
    pool = None
    if args.check_workers > 0 and args.processes == 1:  # with workers, each has its own
        pool = start_optimum_pool(args.check_workers, config.optimum_timeout)
    try:
        status: int = trio.run(_run, args, config, None if pool is None else pool.check, tokens)
    except (OSError, BaseExceptionGroup) as failure:
        # trio wraps a failed bind in the nurseries' exception groups: find the OSError inside.
        bind_error = _os_error(failure)
        if bind_error is None:
            raise
        print(
            f"arena serve: cannot listen on {args.host}:{args.port}: {bind_error}", file=sys.stderr
        )
        return EXIT_FAILURE
    finally:
        # Before anything else is reported: no worker outlives the server.
        if pool is not None:
            pool.close()
    return status


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _whole_lines() -> TextIO:
    """stderr, written a whole line at a time (``print`` writes a line and its newline apart
    when Python runs unbuffered, PYTHONUNBUFFERED=1, and several processes writing to one
    stderr would then interleave their lines)."""
    return open(  # for the life of the process, like sys.stderr
        sys.stderr.fileno(), "w", buffering=1, encoding="utf-8", errors="backslashreplace",
        closefd=False,
    )  # fmt: skip


def start_optimum_pool(workers: int, timeout: float) -> Any:
    """The checker workers, started with SIGINT ignored: they inherit that, so Ctrl-C (which a
    terminal sends to the whole process group) reaches only this process, which stops them."""
    from server.optimum_pool import OptimumPool

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return OptimumPool(workers=workers, timeout=timeout)
    finally:
        signal.signal(signal.SIGINT, previous)


def load_tokens(path: Path) -> dict[str, dict[int, str]]:
    """The tokens of a teams file: match name -> team (0, 1) -> token. ValueError names the
    fault (never a token: the message may reach a log)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(error.strerror or str(error)) from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"not a TOML file: {error}") from None
    tokens: dict[str, dict[int, str]] = {}
    for name, teams in data.items():
        if not _MATCH_NAME.fullmatch(name):
            raise ValueError(f"match name {name!r} is not 1-64 of [A-Za-z0-9_-]")
        if not isinstance(teams, dict) or not teams:
            raise ValueError(f'[{name}] must be a table of teams: 0 = "token", 1 = "token"')
        tokens[name] = {}
        for team, token in teams.items():
            if team not in ("0", "1"):
                raise ValueError(f"[{name}] has key {team!r}: the teams are 0 and 1")
            if not isinstance(token, str) or not 1 <= len(token) <= 256:
                raise ValueError(f"[{name}] team {team}: the token must be a string of 1-256")
            tokens[name][int(team)] = token
    return tokens


def _os_error(failure: BaseException) -> OSError | None:
    """The OSError a failure is, or holds somewhere in its exception groups; None if none."""
    if isinstance(failure, OSError):
        return failure
    if isinstance(failure, BaseExceptionGroup):
        for inner in failure.exceptions:
            found = _os_error(inner)
            if found is not None:
                return found
    return None


if __name__ == "__main__":
    if sys.argv[1:2] != ["--worker"]:
        sys.exit("arena.serve: run `arena serve`; --worker is for its own worker processes")
    sys.exit(worker_main(sys.argv[2:]))
