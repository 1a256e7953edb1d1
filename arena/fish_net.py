"""``arena fish serve`` and ``arena fish clients``: Fish's networked tournament.

``serve`` signs players up on a TCP port, runs one tournament and prints ``[final winners,
failed + cheaters]`` (nothing when too few signed up: no tournament). ``clients N`` connects N
AI players, each on its own connection, and prints how each one's session ended. Bad usage: one
line naming the flag, exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

from arena.errors import EXIT_USAGE, UsageError
from arena.logopts import add_key_option
from arena.options import (
    ArgumentParser,
    add_config_option,
    config_pairs,
    port,
    seed,
    server_port,
)

__all__ = ["main"]

DEFAULT_PORT = 45678


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of clients") from None
    if not 1 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"{text!r}: give 1-1000 clients")
    return value


def _server_config(items: list[str], names: str) -> Any:
    from server.fish.server import ServerConfig

    types = {field.name: field.type for field in fields(ServerConfig)}
    values: dict[str, Any] = {"names": names}
    for key, text in config_pairs(items).items():
        kind = types.get(key)
        if key == "names" or kind is None:
            known = ", ".join(k for k in types if k != "names")
            raise UsageError(f"--config {key}: unknown setting; known: {known}")
        convert = float if kind in ("float", float) else int
        try:
            values[key] = convert(text)
        except ValueError:
            raise UsageError(f"--config {key}={text}: expected a number") from None
    try:
        return ServerConfig(**values)
    except ValueError as error:
        raise UsageError(f"--config: {error}") from None


def _serve(args: argparse.Namespace) -> int:
    import trio

    from arena.logopts import log_key
    from arena.logs import configure_logging
    from server.fish.server import serve

    config = _server_config(args.config, args.names)
    configure_logging(level=args.log_level)
    log_dir = Path(args.log_dir) if args.log_dir else None
    key = log_key(args, log_dir) if log_dir is not None else None

    async def run() -> Any:
        async with trio.open_nursery() as nursery:
            box: list[Any] = []

            async def server(task_status: trio.TaskStatus[int]) -> None:
                box.append(
                    await serve(
                        config,
                        host=args.host,
                        port=args.port,
                        log_dir=log_dir,
                        log_key=key,
                        task_status=task_status,
                    )
                )

            port = await nursery.start(server)
            print(f"arena fish serve: listening on {args.host}:{port}", file=sys.stderr)
            print(
                f"arena fish serve: signing players up ({config.min_players} to"
                f" {config.max_players}, up to {config.periods} x {config.wait:g} s), then the"
                " tournament",
                file=sys.stderr,
                flush=True,
            )
        return box[0]

    try:
        standing = trio.run(run)
    except OSError as error:
        raise UsageError(f"--host {args.host} --port {args.port}: cannot listen: {error}") from None
    except KeyboardInterrupt:
        return 130
    if standing is None:
        print("arena fish serve: too few players signed up: no tournament", file=sys.stderr)
        return 0
    print(f"arena fish serve: {standing.described()}", file=sys.stderr, flush=True)
    print(json.dumps(standing.summary(), separators=(",", ":")), flush=True)
    return 0


def _clients(args: argparse.Namespace) -> int:
    import trio

    from client.fish import ClientResult, names_for, play
    from fish.game import FishGame

    if args.strategy not in FishGame().strategies():
        raise UsageError(f"--strategy {args.strategy!r}: unknown; try greedy, minimax2, paranoid")
    names = names_for(args.count)
    if args.names:
        given = [name.strip() for name in args.names.split(",")]
        if len(given) != args.count or not all(given):
            raise UsageError(f"--names: give {args.count} comma-separated names")
        names = given
    results: list[ClientResult] = []

    async def one(index: int, name: str) -> None:
        misbehaviour = args.misbehave if index == 0 else None
        try:
            stream = await trio.open_tcp_stream(args.host, args.port)
        except OSError as error:
            results.append(ClientResult(name, "no-connection", detail=str(error)))
            return
        results.append(await play(stream, name, args.strategy, args.seed + index, misbehaviour))

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            for index, name in enumerate(names):
                nursery.start_soon(one, index, name)

    print(
        f"arena fish clients: {args.count} players ({args.strategy}) to {args.host}:{args.port}:"
        " each signs up, then plays until the tournament ends",
        file=sys.stderr,
        flush=True,
    )
    try:
        trio.run(run)
    except KeyboardInterrupt:
        return 130
    if all(result.outcome == "no-connection" for result in results):
        raise UsageError(f"--host {args.host} --port {args.port}: {results[0].detail}")
    order = {name: index for index, name in enumerate(names)}
    for result in sorted(results, key=lambda r: order.get(r.name, 0)):
        detail = f" ({result.detail})" if result.detail else ""
        print(f"{result.name} {result.outcome} games={result.games}{detail}")
    return 0


def _parser() -> argparse.ArgumentParser:
    from fish.misbehave import KINDS

    parser = ArgumentParser(prog="arena fish", description="Fish over the network.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="sign players up and run one tournament",
        description="Sign players up over TCP, run one tournament, print [winners, failed + "
        "cheaters].",
        epilog="Example: arena fish serve --port 45678 --names lenient --log-dir logs/fish "
        "--config call_timeout=3 wait=30",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=port, default=DEFAULT_PORT, help=f"({DEFAULT_PORT})")
    add_config_option(
        serve,
        "server settings: call_timeout, name_timeout, wait, periods (seconds / count), "
        "min_players, max_players, rows, cols, fish, holes, seed, max_value (bytes per value), "
        "max_connections",
    )
    serve.add_argument(
        "--names",
        choices=("strict", "lenient"),
        default="strict",
        help="strict: 1-12 ASCII letters (the spec); lenient: 1-12 printable ASCII characters",
    )
    serve.add_argument("--log-dir", help="write tournament.jsonl and one game-*.jsonl.gz per game")
    add_key_option(serve, "each log as it closes (FILE.sig)")
    serve.add_argument("--log-level", default="info", choices=("debug", "info", "warning"))
    serve.set_defaults(run=_serve)

    clients = commands.add_parser(
        "clients",
        help="connect N AI players, each on its own connection",
        description="Connect N AI players to a Fish server and print how each session ended.",
        epilog="Example: arena fish clients 10 --port 45678 --strategy minimax2; "
        "arena fish clients 5 --misbehave garbage (the first client misbehaves). Kinds: "
        + "; ".join(f"{kind}: {k.description}" for kind, k in KINDS.items()),
    )
    clients.add_argument("count", type=_count, metavar="N", help="number of clients")
    clients.add_argument("--host", default="127.0.0.1", help="server address (127.0.0.1)")
    clients.add_argument("--port", type=server_port, default=DEFAULT_PORT, help=f"({DEFAULT_PORT})")
    clients.add_argument("--strategy", default="minimax1", help="greedy, minimaxD, paranoid...")
    clients.add_argument("--names", help="comma-separated names (default fisha, fishb, ...)")
    clients.add_argument("--seed", type=seed, default=0, help="seed of the first client (0)")
    clients.add_argument(
        "--misbehave", choices=sorted(KINDS), metavar="KIND", help="the first client's misdeed"
    )
    clients.set_defaults(run=_clients)
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except UsageError as error:
        print(f"arena fish {args.command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    return status
