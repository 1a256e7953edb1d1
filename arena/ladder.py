"""``arena ladder``: the class ladder that lives all term (docs/ladder.md).

    arena ladder init --game dungeon --roster class.csv --dir cs312 > tokens.csv
    arena ladder submit --dir cs312 --token TOKEN bot.zip     # a file, a folder or a zip
    arena ladder status --dir cs312 [--json]
    arena ladder show --dir cs312 --token TOKEN [N]         # why version N failed: its output
    arena ladder recheck --dir cs312 --token ADMIN          # after a crash: interrupted checks
    arena ladder add --dir cs312 --token ADMIN --roster late.csv    # teams that join late
    arena ladder token --dir cs312 --token ADMIN ann        # a new token for a team that lost it

Exit status: 0 done (``submit``: the version is active), 1 the version failed its build or
pre-flight (the reason and output are printed), 2 bad input (one line naming it: a roster row,
a token, an upload refused), 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.errors import UsageError, command
from arena.ladder_run import RUNNER_COMMANDS
from arena.ladder_web import WEB_COMMANDS, ladder_number
from arena.options import ArgumentParser, describe, positive_seconds

__all__ = ["SUBCOMMANDS", "main"]

#: The variable a team's token can come from (instead of --token: kept out of shell history).
ENV_TOKEN = "ARENA_LADDER_TOKEN"


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dir", type=Path, default=Path("ladder"),
        help="the ladder's folder: its store, and its database unless --db (default: ladder)",
    )  # fmt: skip
    parser.add_argument(
        "--db", metavar="URL",
        help="sqlite:///PATH or postgresql://USER@HOST/NAME (default: DIR/ladder.db; "
        "init remembers it in DIR/ladder.json)",
    )  # fmt: skip


def _words(text: str, flag: str) -> list[str]:
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise UsageError(f"{flag} {text!r}: {error}") from None
    if not words:
        raise UsageError(f"{flag}: empty")
    return words


def _read_text(path: Path, flag: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{flag} {path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{flag} {path}: a folder, not a file") from None
    except UnicodeDecodeError:
        raise UsageError(f"{flag} {path}: not UTF-8 text") from None


def _options(path: Path | None, game: str) -> dict[str, Any]:
    """The ``[tournament]`` table of --options, checked as a teams file would be."""
    from arena.tournament.players import PLAYERS
    from server.competition.competition import HOUSE
    from server.competition.teams import TeamsError, parse_teams
    from server.ladder.check import house_teams

    table: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(_read_text(path, "--options"))
        except tomllib.TOMLDecodeError as error:
            raise UsageError(f"--options {path}: {error}") from None
        if set(data) - {"tournament"} or not isinstance(data.get("tournament", {}), dict):
            raise UsageError(f"--options {path}: want only a [tournament] table")
        table = dict(data.get("tournament", {}))
    if table.get("game", game) != game:
        raise UsageError(f"--options {path}: tournament.game {table['game']!r} is not --game")
    table.update(game=game, name=table.get("name", "ladder"))
    house = [{"name": "h", "builtin": HOUSE[game]}, *house_teams(game, table, avoid="h")]
    try:
        parse_teams({"tournament": table, "team": house}, base=Path.cwd(),
                    source=str(path or "--options"), players=PLAYERS)  # fmt: skip
    except TeamsError as error:
        raise UsageError(str(error)) from None
    return table


def init(args: argparse.Namespace) -> int:
    from server.ladder.db import LadderError
    from server.ladder.ladder import Ladder
    from server.ladder.roster import parse_roster

    try:
        roster = parse_roster(_read_text(args.roster, "--roster"), str(args.roster))
        settings: dict[str, Any] = {"tournament": _options(args.options, args.game)}
        if args.command is not None:
            settings["command"] = _words(args.command, "--command")
        if args.build is not None:
            settings["build"] = _words(args.build, "--build")
        if args.name is not None:
            settings["tournament"]["name"] = args.name
        ladder, tokens, admin = Ladder.create(
            args.dir, args.db, game=args.game, roster=roster, name=args.name, settings=settings
        )
    except LadderError as error:
        raise UsageError(str(error)) from None
    ladder.close()
    print("team,token")
    for name, token in tokens.items():
        print(f"{name},{token}")
    print(f"ADMIN,{admin}")
    print(
        f"arena ladder: {len(tokens)} teams in {args.dir}; each token above is shown once "
        "(only its hash is kept): hand each team its own, keep ADMIN for yourself",
        file=sys.stderr,
    )
    return 0


def _open(args: argparse.Namespace) -> Any:
    from server.ladder.db import LadderError
    from server.ladder.ladder import Ladder

    try:
        return Ladder.open(args.dir, args.db)
    except LadderError as error:
        raise UsageError(str(error)) from None


def submit(args: argparse.Namespace) -> int:
    import trio

    from arena.logs import configure_logging
    from arena.tournament.players import PLAYERS
    from server.ladder.db import LadderError
    from server.ladder.submit import submit as submit_version

    token = args.token or os.environ.get(ENV_TOKEN)
    if not token:
        raise UsageError(f"--token: missing (or set {ENV_TOKEN})")
    if args.sandbox == "none":
        print("arena ladder: WARNING: --sandbox none: the build and the program run "
              "unconfined, as you", file=sys.stderr)  # fmt: skip
    else:
        from server.sandbox import check_available

        why = check_available()
        if why is not None:
            print(f"arena ladder: cannot sandbox the program: {why}; install bubblewrap "
                  "(make bubblewrap) or pass --sandbox none", file=sys.stderr)  # fmt: skip
            return 1
    configure_logging(level="warning")
    ladder = _open(args)
    try:
        done = trio.run(
            lambda: submit_version(ladder, token, args.path, players=PLAYERS, sandbox=args.sandbox)
        )
    except LadderError as error:
        raise UsageError(str(error)) from None
    finally:
        ladder.close()
    for title, text in (("build", done.build_output), ("pre-flight", done.preflight_output)):
        if text and (done.status != "active" or args.verbose):
            print(f"--- {title} output ---\n{text.rstrip()}", file=sys.stderr)
    verdict = "active" if done.status == "active" else f"FAILED: {done.reason}"
    print(f"{done.team} version {done.number}: {verdict} (sha256 {done.content_hash[:12]})")
    return 0 if done.status == "active" else 1


def recheck(args: argparse.Namespace) -> int:
    import trio

    from arena.logs import configure_logging
    from arena.tournament.players import PLAYERS
    from server.ladder.db import LadderError
    from server.ladder.submit import recheck as recheck_versions

    token = _admin_token(args)
    configure_logging(level="warning")
    ladder = _open(args)
    try:
        done = trio.run(
            lambda: recheck_versions(
                ladder, token, older_than=args.older_than, players=PLAYERS, sandbox=args.sandbox
            )
        )
    except LadderError as error:
        raise UsageError(str(error)) from None
    finally:
        ladder.close()
    for version in done:
        verdict = "active" if version.status == "active" else f"FAILED: {version.reason}"
        print(f"{version.team} version {version.number}: {verdict}")
    print(f"arena ladder: {len(done)} interrupted submissions checked", file=sys.stderr)
    return 0


def _admin_token(args: argparse.Namespace) -> str:
    token: str | None = args.token or os.environ.get(ENV_TOKEN)
    if not token:
        raise UsageError(f"--token: missing: the admin token (or set {ENV_TOKEN})")
    return token


def add(args: argparse.Namespace) -> int:
    from server.ladder.db import LadderError
    from server.ladder.roster import parse_roster

    token = _admin_token(args)
    ladder = _open(args)
    try:
        roster = parse_roster(_read_text(args.roster, "--roster"), str(args.roster))
        tokens = ladder.add_teams(roster, token)
    except LadderError as error:
        raise UsageError(str(error)) from None
    finally:
        ladder.close()
    print("team,token")
    for name, fresh in tokens.items():
        print(f"{name},{fresh}")
    print(f"arena ladder: {len(tokens)} teams added; each token is shown once", file=sys.stderr)
    return 0


def token(args: argparse.Namespace) -> int:
    from server.ladder.db import LadderError

    admin = _admin_token(args)
    ladder = _open(args)
    try:
        fresh = ladder.reissue(args.team, admin)
    except LadderError as error:
        raise UsageError(str(error)) from None
    finally:
        ladder.close()
    print(f"{args.team},{fresh}")
    print(f"arena ladder: a new token for {args.team} (shown once); its old one no longer works",
          file=sys.stderr)  # fmt: skip
    return 0


def show(args: argparse.Namespace) -> int:
    from server.ladder.db import LadderError

    given = args.token or os.environ.get(ENV_TOKEN)
    if not given:
        raise UsageError(f"--token: missing (or set {ENV_TOKEN})")
    ladder = _open(args)
    try:
        version = ladder.version_outputs(given, args.version, args.team)
    except LadderError as error:
        raise UsageError(str(error)) from None
    finally:
        ladder.close()
    reason = f": {version['reason']}" if version["reason"] else ""
    print(f"{version['team']} version {version['number']}: {version['status']}{reason} "
          f"(sha256 {version['content_hash'][:12]})")  # fmt: skip
    for title, key in (("build", "build_output"), ("pre-flight", "preflight_output")):
        if version[key]:
            print(f"--- {title} output ---\n{version[key].rstrip()}")
    return 0


def _when(seconds: float | None) -> str:
    import time

    if seconds is None:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(seconds))


def status(args: argparse.Namespace) -> int:
    ladder = _open(args)
    try:
        data = ladder.status()
    finally:
        ladder.close()
    if args.json:
        print(json.dumps(data, indent=1))
        return 0
    head = data["ladder"]
    print(f"{head['name']} ({head['game']}): {head['state']}, {len(data['teams'])} teams")
    for team in data["teams"]:
        active = f"v{team['active']}" if team["active"] is not None else "no active version"
        print(f"  {team['team']}: {active}")
        for version in team["versions"]:
            reason = f": {version['reason']}" if version["reason"] else ""
            print(f"    v{version['number']} {version['status']}{reason} "
                  f"({version['files']} files, {_when(version['submitted'])} UTC)")  # fmt: skip
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = ArgumentParser(prog="arena ladder", description=describe(__doc__))
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    one = sub.add_parser("init", help="create a ladder: a team per roster row, tokens shown once")
    one.add_argument("--game", required=True, choices=("dungeon", "fish", "penguins", "labyrinth"))
    one.add_argument("--roster", type=Path, required=True,
                     help="CSV with a header and a 'team' column; other columns kept")  # fmt: skip
    one.add_argument("--name", help="the ladder's name (default: the folder's)")
    one.add_argument("--command", help="how a program runs unless its program.toml says "
                     "(default: the game's starter: 'python3 client.py {host} ...')")  # fmt: skip
    one.add_argument("--build", help="a build command run in the sandbox before the "
                     "pre-flight unless program.toml says (e.g. 'make')")  # fmt: skip
    one.add_argument("--options", type=Path, metavar="FILE",
                     help="a TOML file with a [tournament] table: the game's options as in a "
                     "teams file (match_seconds, config, ...)")  # fmt: skip
    _common(one)
    one.set_defaults(run=init)
    two = sub.add_parser("submit", help="submit a team's program: a new version, checked")
    two.add_argument("path", type=Path, help="a file, a folder or a .zip")
    two.add_argument("--token", help=f"the team's token (or {ENV_TOKEN})")
    two.add_argument("--sandbox", choices=("bwrap", "none"), default="bwrap",
                     help="none: the build and the check run unconfined (warned)")  # fmt: skip
    two.add_argument("--verbose", action="store_true", help="show the output of a passing check")
    _common(two)
    two.set_defaults(run=submit)
    four = sub.add_parser(
        "recheck", help="after a crash: check the versions an interrupted submission left"
    )
    four.add_argument("--token", help=f"the admin token (or {ENV_TOKEN})")
    four.add_argument("--older-than", type=positive_seconds, default=600.0, metavar="SECONDS",
                      help="only versions checking for longer than this (default 600: a "
                      "submission being checked now is left alone)")  # fmt: skip
    four.add_argument("--sandbox", choices=("bwrap", "none"), default="bwrap")
    _common(four)
    four.set_defaults(run=recheck)
    five = sub.add_parser("add", help="teams that join late: tokens shown once (admin)")
    five.add_argument("--roster", type=Path, required=True, help="CSV as for init")
    five.add_argument("--token", help=f"the admin token (or {ENV_TOKEN})")
    _common(five)
    five.set_defaults(run=add)
    six = sub.add_parser("token", help="a new token for a team that lost its own (admin)")
    six.add_argument("team", help="the team's name")
    six.add_argument("--token", help=f"the admin token (or {ENV_TOKEN})")
    _common(six)
    six.set_defaults(run=token)
    seven = sub.add_parser(
        "show", help="a version's state, reason, build and pre-flight output (its team's token)"
    )
    seven.add_argument(
        "version", type=ladder_number, nargs="?", help="its number (default: the newest)"
    )
    seven.add_argument("--token", help=f"the team's token, or the admin's (or {ENV_TOKEN})")
    seven.add_argument("--team", help="with the admin token: whose version")
    _common(seven)
    seven.set_defaults(run=show)
    three = sub.add_parser("status", help="teams, versions and their states")
    three.add_argument("--json", action="store_true", help="the same as JSON")
    _common(three)
    three.set_defaults(run=status)
    for name, (helptext, flags, run) in SUBCOMMANDS.items():
        extra = sub.add_parser(name, help=helptext)
        flags(extra)
        _common(extra)
        extra.set_defaults(run=run)
    return parser.parse_args(argv)


#: More actions (the runner's: run, pause, ...): name -> (help, add its flags, run it).
SUBCOMMANDS: dict[
    str,
    tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]],
] = {**RUNNER_COMMANDS, **WEB_COMMANDS}


@command("arena ladder")
def main(argv: list[str]) -> int:
    args = parse_args(argv)
    run: Callable[[argparse.Namespace], int] = args.run
    return run(args)
