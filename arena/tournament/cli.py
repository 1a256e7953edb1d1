"""``arena tournament TEAMS.toml``: pair the teams of a class, run their programs sandboxed
against each other on a private server, and write the leaderboard (docs/tournament.md).

Exits 0 when every match was played, 2 on a bad teams file or option (one line naming it), 1
when the run could not go on (the sandbox cannot run here, the journal belongs to another run);
130 when interrupted: ``--resume`` then goes on without losing a finished match.
"""

from __future__ import annotations

import argparse
import signal
import sys
from functools import partial
from pathlib import Path

import trio

from arena.errors import EXIT_USAGE, command
from arena.logs import configure_logging
from arena.options import (
    ArgumentParser,
    add_time_options,
    describe,
    log_level,
    positive_count,
    web_address,
)
from arena.serve import _os_error
from arena.tournament.players import PLAYERS, load_teams
from replay.journal import JournalError
from server.competition.board import Board
from server.competition.competition import Competition, RunOptions
from server.competition.run import check_playable, finish, make_run
from server.competition.teams import TeamsError, Tournament

__all__ = ["main"]


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = ArgumentParser(prog="arena tournament", description=describe(__doc__))
    parser.add_argument("teams", type=Path, help="the teams file (TOML)")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: NAME/)")
    parser.add_argument(
        "--concurrency", type=positive_count, default=2, help="matches played at once"
    )
    parser.add_argument("--resume", action="store_true", help="go on with a stopped run")
    parser.add_argument(
        "--add", metavar="TEAM",
        help="a team added to the teams file after the run began: play its matches only "
        "(a swiss: from its next round; a knockout: before its bracket begins)",
    )  # fmt: skip
    parser.add_argument(
        "--rerun", metavar="MATCH",
        help="play this finished match again; its new result replaces the old one, which the "
        "journal keeps and the page shows as replaced",
    )  # fmt: skip
    parser.add_argument(
        "--why", default="re-run at the teacher's request", help="why --rerun (on the page)"
    )
    parser.add_argument(
        "--preflight", choices=("keep", "drop", "off"), default="keep",
        help="before the first match, check every program with a short game against a "
        "built-in player; keep (default) or drop a team that fails, or skip the check",
    )  # fmt: skip
    parser.add_argument(
        "--preflight-only", action="store_true",
        help="only check the programs (exit 0 when all pass, 1 otherwise)",
    )  # fmt: skip
    parser.add_argument(
        "--web", type=web_address, default=None, metavar="HOST:PORT",
        help="serve the live page there (127.0.0.1:0: any free port)",
    )  # fmt: skip
    parser.add_argument(
        "--sandbox",
        choices=("bwrap", "none"),
        default="bwrap",
        help="how programs are isolated (none: not at all, for machines without bubblewrap)",
    )
    add_time_options(parser, "cpu", "the teams' programs; the dungeon only")
    parser.add_argument(
        "--log-level", type=log_level, default="warning", help="server log level (stderr)"
    )
    return parser.parse_args(argv)


@command("arena tournament")
def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        tournament = load_teams(args.teams)
        check_playable(tournament)
    except TeamsError as error:
        print(f"arena tournament: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.cpu_budget is not None and tournament.game != "dungeon":
        print(
            f"arena tournament: --cpu-budget is for dungeon tournaments; a {tournament.game} "
            "program's time is limited per call (call_seconds)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    web = args.web
    out = args.out if args.out is not None else Path(tournament.name)
    if args.sandbox == "none":
        print(
            "arena tournament: WARNING: --sandbox none: the teams' programs run unconfined, "
            "as you, and can read or change anything you can",
            file=sys.stderr,
        )
    elif any(team.external for team in tournament.teams):
        from server.sandbox import check_available

        why = check_available()
        if why is not None:
            print(
                f"arena tournament: cannot sandbox the programs: {why}; install bubblewrap "
                "(make bubblewrap) or pass --sandbox none to run them unconfined",
                file=sys.stderr,
            )
            return 1
    configure_logging(level=args.log_level)
    return run(tournament, out, args, web)


def run(
    tournament: Tournament, out: Path, args: argparse.Namespace, web: tuple[str, int] | None
) -> int:
    from sim.progress import match_progress

    terminal = sys.stderr.isatty()

    def status(line: str) -> None:
        if not terminal:
            print(line, file=sys.stderr, flush=True)

    with match_progress(tournament.name) as progress:
        options = RunOptions(
            out=out, concurrency=args.concurrency, resume=args.resume, sandbox=args.sandbox,
            status=status, progress=progress, add=args.add, rerun=args.rerun,
            rerun_why=args.why, preflight="keep" if args.preflight_only else args.preflight,
            preflight_only=args.preflight_only, players=PLAYERS, time=args.time,
            cpu_budget=args.cpu_budget,
        )  # fmt: skip
        board = Board(tournament.name)
        runner = make_run(tournament, options, board)
        try:
            runner.open_journal()
        except JournalError as error:
            print(f"arena tournament: {error}", file=sys.stderr)
            return 1
        try:
            interrupted = trio.run(partial(_main, runner, web))
        except (OSError, BaseExceptionGroup) as failure:
            # trio wraps a failed bind (--web) in the nurseries' exception groups.
            cause = _os_error(failure)
            if cause is None:
                raise
            print(f"arena tournament: {cause}", file=sys.stderr)
            return 1
    data = finish(tournament, runner)
    if args.preflight_only and not interrupted:
        # Checking leaves no journal behind: the tournament itself starts afresh.
        journal = out / "results.json.journal"
        if journal.is_file() and len(journal.read_text(encoding="utf-8").splitlines()) == 1:
            journal.unlink()
        failing = 0
        for team, check in runner.preflight.items():
            failing += not check["passed"]
            verdict = (
                "passed" if check["passed"] else f"FAILED {check['reason']}: {check['detail']}"
            )
            print(f"{team}: {verdict}  ({out / check['output']})")
        print(f"pre-flight: {len(runner.preflight) - failing} passed, {failing} failed; "
              f"see {out / 'index.html'}")  # fmt: skip
        return 1 if failing else 0
    if interrupted:
        print(
            f"arena tournament: interrupted after {len(runner.records)} matches; "
            f"wrote {out}/index.html; continue with --resume",
            file=sys.stderr,
        )
        return 130
    leader = data["teams"][0]
    print(f"{tournament.name}: {len(data['matches'])} matches; leader {leader['team']} with "
          f"{leader['points']:g} points; see {out / 'index.html'}")  # fmt: skip
    return 0


async def _main(runner: Competition, web: tuple[str, int] | None) -> bool:
    """Run the tournament (and its page); True when a signal stopped it."""
    interrupted = finished = False
    async with trio.open_nursery() as nursery:

        async def on_signal() -> None:
            nonlocal interrupted
            with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for _ in signals:
                    interrupted = True
                    nursery.cancel_scope.cancel()
                    return

        nursery.start_soon(on_signal)
        if web is not None:
            from server.competition.web import serve_board

            port = await nursery.start(
                partial(serve_board, runner.board, web[0], web[1], runner.out)
            )
        await runner.run()
        finished = True
        # Final when the last match ends, whether or not the page stays up (spec turn 3).
        await trio.to_thread.run_sync(finish, runner.t, runner)
        runner.board.finished = True
        runner.board.touch()
        if web is None:
            nursery.cancel_scope.cancel()
        else:
            print(f"arena tournament: finished; the page stays up at http://{web[0]}:{port}/ "
                  "(Ctrl-C to stop)", file=sys.stderr)  # fmt: skip
    return interrupted and not finished
