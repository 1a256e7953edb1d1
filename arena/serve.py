"""``arena serve``: host dungeon matches over TCP until SIGINT or SIGTERM.

On either signal the server stops accepting, ends every running match as a draw, closes every
match log cleanly and exits 0.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import Any

import structlog
import trio

from arena.logs import configure_logging
from arena.options import add_config_option, web_address
from dungeon.config import DEFAULT_RULES, RulesConfig, parse_overrides
from server.app import Server, serve
from server.collector import Collector

__all__ = ["main"]

log = structlog.get_logger()


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="arena serve", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=7700, help="TCP port (0: any free port)")
    parser.add_argument("--log-dir", type=Path, default=Path("logs"), help="match logs go here")
    add_config_option(parser, "rules overrides, e.g. nodes=300 radius=0.1")
    parser.add_argument(
        "--seed", type=int, default=None, help="first match's seed, +1 per match (default: random)"
    )
    parser.add_argument(
        "--check-workers",
        type=int,
        default=2,
        help="worker processes for trap optimum checks (0: no checks)",
    )
    parser.add_argument(
        "--web",
        type=web_address,
        default=None,
        metavar="HOST:PORT",
        help="also serve the live page (running and finished matches) there",
    )
    parser.add_argument("--log-level", default="info", help="server log level (stderr)")
    return parser.parse_args(argv)


async def _run(args: argparse.Namespace, config: RulesConfig, checker: Any) -> None:
    shutdown = trio.Event()

    async def on_signal() -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for signum in signals:
                log.info("signal_received", signal=signal.Signals(signum).name)
                shutdown.set()
                return

    server = Server(
        config=config,
        log_dir=args.log_dir,
        seed=args.seed,
        checker=checker,
        check_workers=max(1, args.check_workers),
        # This process is the server's own: keep the collector off its answer times.
        collector=Collector(),
    )
    async with trio.open_nursery() as nursery:
        nursery.start_soon(on_signal)
        if args.web is not None:
            from arena.tournament.board import Board, server_observer
            from arena.tournament.web import serve_board

            board = Board("Dungeon Arena server")
            server.observer = server_observer(board)
            host, port = args.web
            bound = await nursery.start(serve_board, board, host, port)
            log.info("web_listening", url=f"http://{host}:{bound}/")
        await serve(host=args.host, port=args.port, server=server, shutdown=shutdown)
        nursery.cancel_scope.cancel()  # the server has closed every match: the page goes too
    log.info("serve_exit")


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        config = DEFAULT_RULES.replace(**parse_overrides(args.config))
    except ValueError as error:
        print(f"arena serve: {error}", file=sys.stderr)
        return 2
    if args.check_workers < 0:
        print("arena serve: --check-workers must be >= 0", file=sys.stderr)
        return 2
    try:
        args.log_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        print(f"arena serve: --log-dir {args.log_dir}: {error.strerror}", file=sys.stderr)
        return 2
    configure_logging(level=args.log_level)
    pool = None
    if args.check_workers > 0:
        from server.checker import OptimumPool

        pool = OptimumPool(workers=args.check_workers, timeout=config.optimum_timeout)
    try:
        trio.run(_run, args, config, None if pool is None else pool.check)
    except (OSError, BaseExceptionGroup) as failure:
        # trio wraps a failed bind in the nurseries' exception groups: find the OSError inside.
        bind_error = _os_error(failure)
        if bind_error is None:
            raise
        print(
            f"arena serve: cannot listen on {args.host}:{args.port}: {bind_error}", file=sys.stderr
        )
        return 1
    finally:
        if pool is not None:
            pool.close()
    return 0


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
