"""``arena ladder run | pause | freeze | resume | grades``: the runner's side of the ladder
(docs/ladder.md), added to ``arena ladder`` (arena/ladder.py) through its ``SUBCOMMANDS``.

    arena ladder run --dir cs312 --concurrency 2               # until Ctrl-C
    arena ladder run --dir cs312 --dask tcp://10.0.0.5:8786    # matches on a Dask cluster
    arena ladder pause --dir cs312      # nothing starts; running matches finish
    arena ladder freeze --dir cs312     # paused, and no rating changes (grading)
    arena ladder resume --dir cs312
    arena ladder grades --dir cs312 --out grades.csv

``run`` prints one line per event (a match started, done, queued again) and exits 0 after
``--matches N`` matches, 130 on Ctrl-C (a match it was playing is played again by the next
run), 1 when another runner holds the ladder or the sandbox cannot run, 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.errors import EXIT_FAILURE, UsageError

__all__ = ["RUNNER_COMMANDS"]


def _open(args: argparse.Namespace) -> Any:
    from server.ladder.db import LadderError
    from server.ladder.ladder import Ladder

    try:
        return Ladder.open(args.dir, args.db)
    except LadderError as error:
        raise UsageError(str(error)) from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"wants a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"wants at least 1, got {value}")
    return value


def _dask_url(text: str) -> str:
    if not text.startswith(("tcp://", "tls://")) or ":" not in text.split("://", 1)[1]:
        raise argparse.ArgumentTypeError(f"wants tcp://HOST:PORT, got {text!r}")
    return text


def _add_run(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--concurrency", type=_positive, default=1, metavar="N",
                        help="matches played at once (default 1; 2 on 2 cores)")  # fmt: skip
    parser.add_argument("--dask", type=_dask_url, metavar="URL",
                        help="play the matches on this Dask cluster's workers "
                        "(tcp://HOST:PORT of its scheduler)")  # fmt: skip
    parser.add_argument("--sandbox", choices=("bwrap", "none"), default="bwrap",
                        help="none: the programs run unconfined (a machine without "
                        "bubblewrap; warned)")  # fmt: skip
    parser.add_argument("--matches", type=_positive, metavar="N",
                        help="stop after N matches are done (default: until Ctrl-C)")  # fmt: skip


def _line(text: str) -> None:
    print(text, flush=True)


def run(args: argparse.Namespace) -> int:
    import trio

    from arena.logs import configure_logging
    from arena.tournament.players import PLAYERS
    from server.ladder.db import LadderError
    from server.ladder.play import DaskPlayer, LocalPlayer, MatchLost, Player
    from server.ladder.runner import RunnerOptions, run_ladder, runner_lock

    if args.sandbox == "none":
        print("arena ladder run: WARNING: --sandbox none: the teams' programs run unconfined",
              file=sys.stderr)  # fmt: skip
    else:
        from server.sandbox import check_available

        why = check_available()
        if why is not None:
            print(f"arena ladder run: cannot sandbox the programs: {why}; install bubblewrap "
                  "(make bubblewrap) or pass --sandbox none", file=sys.stderr)  # fmt: skip
            return EXIT_FAILURE
    configure_logging(level="warning")
    ladder = _open(args)
    player: Player = DaskPlayer(args.dask) if args.dask else LocalPlayer()
    options = RunnerOptions(
        concurrency=args.concurrency, player=player, sandbox=args.sandbox, players=PLAYERS,
        matches=args.matches, status=_line,
    )  # fmt: skip

    async def main() -> None:
        if isinstance(player, DaskPlayer):
            await player.open()
        try:
            await run_ladder(ladder.engine, ladder.store, options)
        finally:
            if isinstance(player, DaskPlayer):
                await player.close()

    try:
        with runner_lock(ladder.engine, ladder.folder):
            _line(f"ladder running: {player.describe()}, {args.concurrency} at once")
            trio.run(main)
    except (LadderError, MatchLost) as error:
        print(f"arena ladder run: {error}", file=sys.stderr)
        return EXIT_FAILURE
    finally:
        ladder.close()
    return 0


def _state(action: str) -> Callable[[argparse.Namespace], int]:
    def change(args: argparse.Namespace) -> int:
        from server.ladder.teacher import set_state

        ladder = _open(args)
        try:
            old, new = set_state(ladder.engine, action)
        finally:
            ladder.close()
        print(f"ladder {new}" + (f" (was {old})" if old != new else " (already)"))
        return 0

    return change


def _add_nothing(parser: argparse.ArgumentParser) -> None:
    return None


def _add_grades(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, metavar="FILE",
                        help="write grades.csv there (default: print it)")  # fmt: skip


def grades(args: argparse.Namespace) -> int:
    from server.ladder.teacher import grades_csv

    ladder = _open(args)
    try:
        text = grades_csv(ladder.engine)
    finally:
        ladder.close()
    if args.out is None:
        sys.stdout.write(text)
        return 0
    if args.out.is_dir():
        raise UsageError(f"--out {args.out}: a folder, not a file")
    if not args.out.parent.is_dir():
        raise UsageError(f"--out {args.out}: its folder does not exist")
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({text.count(chr(10)) - 1} teams)")
    return 0


#: name -> (help, add its flags, run it): what arena/ladder.py adds to ``arena ladder``.
RUNNER_COMMANDS: dict[
    str,
    tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]],
] = {
    "run": ("play matches continuously: schedule, play, rate", _add_run, run),
    "pause": ("start no new match (running ones finish)", _add_nothing, _state("pause")),
    "freeze": ("paused, and no rating changes (for grading)", _add_nothing, _state("freeze")),
    "resume": ("start matches again", _add_nothing, _state("resume")),
    "grades": ("export grades.csv: one row per team, ranked", _add_grades, grades),
}
