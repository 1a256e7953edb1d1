"""``arena match``: one dungeon match on loopback, server and both teams in this process.

Starts a server on a free loopback port, connects both teams (``reference`` against ``rusher`` by
default), plays one match, and prints the winner, each team's crossings, deaths and kills, the
duration and the path of the match log. Exits 2 with a message on stderr on bad options (an
unplayable ``--config``, a ``--log-dir`` that cannot be created), 1 when anything else fails.
"""

from __future__ import annotations

import argparse
import secrets
import shlex
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Literal

import trio

from arena.errors import EXIT_FAILURE, UsageError, command
from arena.logopts import add_log_options, log_settings
from arena.logs import configure_logging
from arena.options import ArgumentParser, add_config_option, describe, dungeon_rules, seed
from arena.serve import start_optimum_pool
from client.strategies.base import STRATEGIES, TeamStrategy, make_strategy, strategy_seed
from client.team import TeamError, TeamResult, connect_team
from dungeon.config import DEFAULT_RULES, RulesConfig
from dungeon.engine import Match
from server.app import Server, serve
from server.optimum_checks import Checker
from sim.plugins import PluginError, dungeon_strategy, resolve_names

__all__ = ["MatchReport", "main", "play_match"]

HOST = "127.0.0.1"
#: Seconds the finished match may take to log its outstanding optimum checks.
LOG_GRACE = 5.0


@dataclass(frozen=True)
class MatchReport:
    """What one loopback match produced."""

    strategies: tuple[str, str]
    results: tuple[TeamResult, TeamResult]
    seconds: float
    log_path: Path | None
    end_reason: str | None


def strategy_seeds(seed: int | None) -> tuple[int, int]:
    """Each team's strategy seed: fixed by the match seed when given."""
    if seed is None:
        import secrets

        return secrets.randbits(63), secrets.randbits(63)
    return strategy_seed(seed, 0), strategy_seed(seed, 1)


async def play_match(
    strategies: tuple[str, str] = ("reference", "rusher"),
    *,
    seed: int | None = None,
    config: RulesConfig = DEFAULT_RULES,
    log_dir: Path | None = None,
    log_maps: Literal["each", "once", "digest"] = "digest",
    log_key: bytes | None = None,
    log_budget: int | None = None,
    checker: Checker | None = None,
) -> MatchReport:
    """Host one match on a free loopback port and play it with both teams."""
    server = Server(
        config=config,
        log_dir=log_dir,
        log_maps=log_maps,
        log_key=log_key,
        log_budget=log_budget,
        seed=seed,
        checker=checker,
    )
    shutdown = trio.Event()
    seeds = strategy_seeds(seed)
    results: list[TeamResult | None] = [None, None]
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, server, host=HOST, port=0, shutdown=shutdown))
        began = time.monotonic()
        failures: list[TeamError] = []
        try:
            async with trio.open_nursery() as teams:
                for team in (0, 1):
                    strategy = make_strategy(
                        strategies[team], team, seeds[team], load=dungeon_strategy
                    )

                    async def play(team: int = team, strategy: TeamStrategy = strategy) -> None:
                        try:
                            results[team] = await connect_team(
                                HOST, port, team=team, strategy=strategy
                            )
                        except TeamError as error:
                            failures.append(error)
                            teams.cancel_scope.cancel()  # the other team cannot finish alone

                    teams.start_soon(play)
            seconds = time.monotonic() - began
            if not failures:
                # Let the match log its last optimum checks and close before the server stops.
                with trio.move_on_after(LOG_GRACE):
                    await server.wait_no_matches()
        finally:
            shutdown.set()
    if failures:
        raise failures[0]
    actor = server.finished[0] if server.finished else None
    first, second = results
    assert first is not None
    assert second is not None
    return MatchReport(
        strategies=strategies,
        results=(first, second),
        seconds=seconds,
        log_path=None if actor is None else actor.log_path,
        end_reason=None if actor is None else actor.end_reason,
    )


def format_report(report: MatchReport) -> str:
    winner = report.results[0].winner
    if winner is None:
        headline = f"draw ({report.end_reason or 'no winner'})"
    else:
        headline = f"team {winner} ({report.strategies[winner]}) wins by {report.end_reason}"
    lines = [f"winner: {headline}"]
    for result, name in zip(report.results, report.strategies, strict=True):
        lines.append(
            f"team {result.team} ({name}): {result.crossings} crossings, {result.deaths} deaths "
            f"({result.trap_deaths} by traps, {result.killed_by_enemy} by enemies), "
            f"{result.kills} kills, {result.npc_kills} NPCs killed"
        )
    lines.append(f"duration: {report.seconds:.2f} s")
    lines.append(f"log: {report.log_path}" if report.log_path else "log: (none)")
    return "\n".join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = ArgumentParser(prog="arena match", description=describe(__doc__))
    parser.add_argument("--log-dir", type=Path, default=Path("logs"), help="where the log goes")
    add_log_options(parser)
    parser.add_argument(
        "--strategies",
        default="reference,rusher",
        help=f"team 0 and team 1 strategies, comma-separated; known: {', '.join(STRATEGIES)}, "
        "or module:Class / path/to/file.py:Class",
    )
    parser.add_argument("--seed", type=seed, default=None, help="match seed (default: random)")
    add_config_option(parser, "rules overrides, e.g. nodes=300 radius=0.1")
    parser.add_argument("--no-optimum", action="store_true", help="skip the trap optimum checks")
    return parser.parse_args(argv)


@command("arena match")
def main(argv: list[str]) -> int:
    args = parse_args(argv)
    names = tuple(name.strip() for name in args.strategies.split(","))
    if len(names) != 2 or any(name not in STRATEGIES and ":" not in name for name in names):
        raise UsageError(
            f"--strategies wants two of {', '.join(STRATEGIES)} (or module:Class, "
            f"path/to/file.py:Class), got {args.strategies!r}"
        )
    try:
        names = resolve_names(names, "dungeon", STRATEGIES)
    except PluginError as error:
        raise UsageError(f"--strategies: {error}") from None
    config = dungeon_rules(args.config)
    # Checked before anything starts: inside the server's nursery these failures would surface
    # as a traceback (an exception group), not as a message naming the option.
    match_seed = args.seed if args.seed is not None else secrets.randbits(63)
    try:
        Match(match_seed, config)
    except ValueError as error:  # no playable dungeon: the --config cannot work
        raise UsageError(f"--config: {error}") from None
    try:
        args.log_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"--log-dir {args.log_dir}: cannot create it: {error}") from None
    log_maps, log_key = log_settings(args, args.log_dir)
    configure_logging(level="warning")
    strategies = ",".join(name.strip() for name in args.strategies.split(","))
    again = ["arena", "match", "--seed", str(match_seed), "--strategies", strategies]
    again += ["--config", *args.config] if args.config else []
    print(
        f"arena match: seed {match_seed}: {names[0]} (team 0) against {names[1]} (team 1) on"
        " loopback, until one heir is home or the draw limit",
        file=sys.stderr,
        flush=True,
    )
    pool = None if args.no_optimum else start_optimum_pool(1, config.optimum_timeout)
    try:
        report = trio.run(
            partial(
                play_match,
                (names[0], names[1]),
                seed=match_seed,
                config=config,
                log_dir=args.log_dir,
                log_maps=log_maps,
                log_key=log_key,
                log_budget=args.log_budget,
                checker=None if pool is None else pool.check,
            )
        )
    except (TeamError, OSError) as error:
        print(f"arena match: {error}", file=sys.stderr)
        return EXIT_FAILURE
    finally:
        if pool is not None:
            pool.close()
    print(format_report(report))
    print(f"seed: {match_seed} (the same dungeon and team seeds again: {shlex.join(again)})")
    return 0
