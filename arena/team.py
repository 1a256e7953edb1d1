"""``arena team``: connect one team of six agents to a dungeon server and play one match.

Exits 0 when the match ended (won, lost or drawn) and 1 with a message on stderr when the team
could not play (server unreachable, start refused, protocol error); 2 on bad usage.
"""

from __future__ import annotations

import argparse
import re
import secrets
import sys
from functools import partial

import trio

from arena.errors import EXIT_FAILURE, UsageError, command
from arena.logs import configure_logging
from arena.options import ArgumentParser, log_level, seed, server_port
from arena.options import describe as help_text
from client.strategies.base import STRATEGIES, make_strategy
from client.team import TeamError, TeamResult, connect_team
from sim.plugins import PluginError, dungeon_strategy, resolve_names

__all__ = ["main"]

MATCH_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = ArgumentParser(prog="arena team", description=help_text(__doc__))
    parser.add_argument("--team", type=int, choices=(0, 1), required=True, help="team 0 or 1")
    parser.add_argument("--host", default="127.0.0.1", help="server address")
    parser.add_argument("--port", type=server_port, default=7700, help="server port")
    parser.add_argument("--match", default=None, help="join this named match (1-64 [A-Za-z0-9_-])")
    parser.add_argument(
        "--token", default=None, help="the team's secret for the match (tournaments hand one out)"
    )
    parser.add_argument(
        "--strategy",
        default="reference",
        help=f"how the team plays: {', '.join(sorted(STRATEGIES))}, or module:Class / "
        "path/to/file.py:Class",
    )
    parser.add_argument("--seed", type=seed, default=None, help="strategy seed (default: random)")
    parser.add_argument(
        "--log-level", type=log_level, default="warning", help="client log level (stderr)"
    )
    return parser.parse_args(argv)


def describe(result: TeamResult) -> str:
    return (
        f"team {result.team}: {result.outcome} "
        f"(winner: {'none, a draw' if result.winner is None else f'team {result.winner}'}); "
        f"{result.crossings} crossings, {result.deaths} deaths, {result.kills} kills"
    )


@command("arena team")
def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.match is not None and not MATCH_NAME.match(args.match):
        raise UsageError(f"--match {args.match!r}: use 1-64 of [A-Za-z0-9_-]")
    try:
        (args.strategy,) = resolve_names([args.strategy], "dungeon", STRATEGIES)
    except PluginError as error:
        raise UsageError(f"--strategy: {error}") from None
    configure_logging(level=args.log_level)
    seed = secrets.randbits(63) if args.seed is None else args.seed
    strategy = make_strategy(args.strategy, args.team, seed, load=dungeon_strategy)
    where = f"{args.host}:{args.port}" + (f", match {args.match}" if args.match else "")

    def told(stage: str) -> None:
        # A team can wait minutes for its opponent: the terminal says so instead of staying blank.
        if stage == "waiting":
            said = f"team {args.team} connected to {where}: waiting for the other team to join"
        else:
            said = f"team {args.team}: the match has begun ({args.strategy} playing)"
        print(f"arena team: {said}", file=sys.stderr, flush=True)

    try:
        result = trio.run(
            partial(
                connect_team,
                args.host,
                args.port,
                team=args.team,
                strategy=strategy,
                match=args.match,
                token=args.token,
                told=told,
            )
        )
    except TeamError as error:
        print(f"arena team: {error}", file=sys.stderr)
        return EXIT_FAILURE
    print(describe(result))
    return 0
