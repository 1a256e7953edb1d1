"""``arena check-client --game fish|labyrinth|penguins -- CMD ...``: check a student's program of
one of the course games the way a tournament will run it.

The program plays the tournament's pre-flight game (docs/tournament.md): one short game against
the game's built-in player, through that game's own adapter, sandboxed, with the tournament's
placeholders (``{host} {port} {name}`` for Fish and Labyrinth clients; a Penguins player gets the
course's arguments). The report says whether it started, played by the rules and ended well, or
the one reason it failed (the reasons of docs/tournament.md), with the last lines of its output.

The program's folder is the folder of the first file CMD names (``python3 bots/me.py``: the
folder ``bots``, the word becoming ``me.py``), copied as a tournament copies a team's folder;
``--dir`` names another. Exit 0 when it passed, 1 when it failed, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from arena.stopping import STOP_SIGNALS, Stopped

__all__ = ["check_game", "program_folder"]

#: Where each game's protocol is explained to students.
DOCS = {"fish": "docs/fish.md", "labyrinth": "docs/labyrinth.md", "penguins": "docs/penguins.md"}
#: What a failure of each reason most often means, in a sentence.
HINTS = {
    "never_connected": "connect to {host} {port} at once and sign up with the name you are given",
    "protocol_error": "read the message the check names, and the protocol section of the docs",
    "illegal_move": "check the rules of a move against the board you were sent",
    "crashed": "run the program by hand with the same arguments and read its error output",
    "time_limit": "answer each call within its time limit",
    "hung": "answer every call: the program was alive but stopped playing",
    "disconnected": "keep the connection open until the game or tournament is over",
    "sandbox_limit": "stay within the sandbox's memory, processes, files and output",
}


#: An absolute path with one of these endings is the program's own file, not an interpreter.
SCRIPTS = {".py", ".js", ".rb", ".pl", ".sh", ".jar", ".class", ".ml", ".exe"}


def program_folder(command: list[str], given: Path | None) -> tuple[Path | None, list[str]]:
    """The folder the program runs in (None: an empty one) and its command there: the folder
    of the first file CMD names by a relative path (or by an absolute one to a script)."""
    if given is not None:
        return given, command
    for index, word in enumerate(command):
        path = Path(word)
        if path.is_file() and (not path.is_absolute() or path.suffix in SCRIPTS):
            here = f"./{path.name}"
            return path.resolve().parent, [*command[:index], here, *command[index + 1 :]]
    return None, command


def _toml(value: object) -> str:
    return json.dumps(value)  # a JSON string or list of strings is a TOML one


def teams_file(game: str, command: list[str], folder: Path, seed: int) -> str:
    placeholders = {"penguins": []}.get(game, ["{host}", "{port}", "{name}"])
    words = command if any("{" in word for word in command) else [*command, *placeholders]
    return "\n".join(
        [
            "[tournament]",
            f'name = "check-{game}"',
            f"game = {_toml(game)}",
            "players_per_game = 2",
            "games_per_pair = 2",
            f"seed = {seed}",
            "",
            "[[team]]",
            'name = "student"',
            f"dir = {_toml(str(folder))}",
            f"command = {_toml(words)}",
            "",
            "[[team]]",
            'name = "house"',
            'builtin = "greedy"' if game != "labyrinth" else 'builtin = "astar"',
            "",
        ]
    )


def _tail(path: Path, lines: int = 8) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [line for line in text.splitlines() if line.strip()][-lines:]


def check_game(args: argparse.Namespace, command: list[str]) -> int:
    """Run the pre-flight game for ``command``; print the report; the exit status."""
    from arena.logs import configure_logging
    from arena.tournament.players import PLAYERS, load_teams
    from server.competition.board import Board
    from server.competition.competition import RunOptions
    from server.competition.run import make_run
    from server.competition.teams import TeamsError

    configure_logging(level="warning")
    game = args.game
    folder, words = program_folder(command, args.dir)
    print(f"arena check-client: checking {' '.join(command)} as a {game} program", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="check-client-") as scratch:
        root = Path(scratch)
        if folder is None:
            folder = root / "program"
            folder.mkdir()
        teams = root / "teams.toml"
        teams.write_text(teams_file(game, words, folder, args.seed), encoding="utf-8")
        try:
            tournament = load_teams(teams)
        except TeamsError as error:
            print(f"arena check-client: {error}", file=sys.stderr)
            return 2
        out = root / "out"

        def status(line: str) -> None:
            print(f"arena check-client: {line}", file=sys.stderr, flush=True)

        options = RunOptions(
            out=out, concurrency=1, sandbox=args.sandbox, status=status, preflight="keep",
            preflight_only=True, players=PLAYERS,
        )  # fmt: skip
        status("playing one game against the built-in player, as a tournament's pre-flight")
        runner = make_run(tournament, options, Board(tournament.name))
        runner.open_journal()
        try:
            trio.run(_until_stopped, runner.run)
        except Stopped as stop:
            return stop.report()
        check = runner.preflight["student"]
        output = _tail(out / check["output"])
    print(report(game, command, check, output))
    return 0 if check["passed"] else 1


async def _until_stopped(run: Callable[[], Awaitable[None]]) -> None:
    """``await run()``; SIGTERM or SIGHUP cancel it (the tournament's runner then kills the
    program's process group, as at any end) and raise Stopped."""
    stopped: list[int] = []
    # The receiver is open before the program starts: no signal can slip in between.
    with trio.open_signal_receiver(*STOP_SIGNALS) as signals:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                async for signum in signals:
                    stopped.append(signum)
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(watch)
            await run()
            nursery.cancel_scope.cancel()
    if stopped:
        raise Stopped(stopped[0])


def report(game: str, command: list[str], check: dict[str, object], output: list[str]) -> str:
    lines = [f"arena check-client --game {game}: {' '.join(command)}", ""]
    if check["passed"]:
        lines.append("PASS  plays: a whole game against the built-in player, by the rules")
        lines.append(f"      {check['result']}")
    else:
        reason = str(check["reason"])
        lines.append(f"FAIL  plays: {reason}")
        lines.append(f"      {check['detail']}")
        lines.append(f"      see: {DOCS[game]} and docs/tournament.md (reasons)")
        lines.append(f"      hint: {HINTS.get(reason, 'read the detail above')}")
    if output:
        lines.append("      the program's last output lines:")
        lines.extend(f"        {line}" for line in output)
    lines.append("")
    lines.append("1 of 1 checks passed" if check["passed"] else "0 of 1 checks passed; 1 failed")
    return "\n".join(lines)
