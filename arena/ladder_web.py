"""``arena ladder web | retire | rerun``: the ladder's pages and the teacher's two corrections.

arena ladder web --dir cs312 [--port 8080]        # the ladder, team pages, upload, teacher
arena ladder retire --dir cs312 fay 3 --why "copied code"
arena ladder rerun --dir cs312 17 --why "the machine was overloaded"
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from arena.errors import UsageError

__all__ = ["WEB_COMMANDS", "ladder_number"]


def ladder_number(text: str) -> int:
    """A match's or version's number on the command line, within what the database holds."""
    from server.ladder.schema import MAX_ID

    if not (text.isascii() and text.isdigit()) or int(text) > MAX_ID:
        raise argparse.ArgumentTypeError(f"{text}: wants a number from 0 to {MAX_ID}")
    return int(text)


def _open(args: argparse.Namespace) -> Any:
    from server.ladder.db import LadderError
    from server.ladder.ladder import Ladder

    try:
        return Ladder.open(args.dir, args.db)
    except LadderError as error:
        raise UsageError(str(error)) from None


def _add_web(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="port (default: 8080; 0: any)")
    parser.add_argument("--sandbox", choices=("bwrap", "none"), default="bwrap",
                        help="how uploads are built and pre-flighted (default: bwrap)")  # fmt: skip


def web(args: argparse.Namespace) -> int:
    import trio

    from arena.logs import configure_logging
    from arena.tournament.players import PLAYERS
    from server.ladder.submit import submit
    from server.ladder.web import LadderSite
    from server.web import serve_web

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: wants 0-65535")
    if args.sandbox == "bwrap":
        from server.sandbox import check_available

        why = check_available()
        if why is not None:
            raise UsageError(f"cannot sandbox uploads: {why}; install bubblewrap or --sandbox none")
    configure_logging(level="warning")
    ladder = _open(args)

    async def upload(ladder: Any, token: str, path: Path, address: str) -> Any:
        return await submit(
            ladder, token, path, players=PLAYERS, sandbox=args.sandbox, origin="web",
            address=address,
        )  # fmt: skip

    site = LadderSite(ladder, submit=upload)

    async def serve() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(partial(serve_web, site.app(), args.host, args.port))
            print(f"arena ladder: pages on http://{args.host}:{port}/ (the teacher logs in "
                  "with the ADMIN token of 'arena ladder init'); Ctrl-C stops",
                  file=sys.stderr, flush=True)  # fmt: skip

    try:
        trio.run(serve)
    except OSError as error:
        raise UsageError(f"--host {args.host} --port {args.port}: {error.strerror}") from None
    finally:
        ladder.close()
    return 0


def _add_retire(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("team", help="the team's name")
    parser.add_argument("version", type=ladder_number, help="its version number")
    parser.add_argument("--why", required=True, help="the reason, kept in the audit")


def retire(args: argparse.Namespace) -> int:
    from server.ladder.db import LadderError
    from server.ladder.teacher import retire as retire_version
    from server.ladder.views import find_version

    ladder = _open(args)
    try:
        with ladder.engine.connect() as db:
            version = find_version(db, args.team, args.version)
        if version is None:
            raise UsageError(f"{args.team} has no version {args.version}")
        retire_version(ladder.engine, version, args.why, "cli")
    except LadderError as error:
        raise UsageError(str(error)) from None
    finally:
        ladder.close()
    print(f"{args.team} v{args.version}: retired")
    return 0


def _add_rerun(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "match", type=ladder_number, help="the match's number (its page: /matches/N)"
    )
    parser.add_argument("--why", required=True, help="the reason, shown on the match's page")


def rerun(args: argparse.Namespace) -> int:
    from server.ladder.db import LadderError
    from server.ladder.teacher import rerun as rerun_match

    ladder = _open(args)
    try:
        new = rerun_match(ladder.engine, args.match, args.why, "cli")
    except LadderError as error:
        raise UsageError(str(error)) from None
    finally:
        ladder.close()
    print(f"match {args.match}: queued again as match {new}")
    return 0


#: name -> (help, add its flags, run it), for arena/ladder.py's SUBCOMMANDS.
WEB_COMMANDS: dict[
    str,
    tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]],
] = {
    "web": ("serve the ladder's pages (ladder, teams, uploads, teacher, live)", _add_web, web),
    "retire": ("retire a team's version (it stops playing)", _add_retire, retire),
    "rerun": ("re-run a disputed match (its result replaces the old one)", _add_rerun, rerun),
}
