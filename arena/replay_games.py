"""``arena replay`` of the other games' logs (Fish, Labyrinth, Penguins: replay/games.py) and of
sealed files (``FILE.sig``): which paths are theirs, and verify, show, render or fork of them.
:mod:`arena.replay` parses the command line and sends these paths here first."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from arena.errors import UsageError

if TYPE_CHECKING:
    from replay.games import GameRecord

__all__ = ["game_paths", "games_command", "read_key", "verify_seals", "write_file"]


def read_key(path: str) -> bytes:
    """The key in file ``path`` (``--key``), stripped; a usage error if unreadable or empty."""
    try:
        key = Path(path).read_bytes()
    except OSError as error:
        raise UsageError(f"--key {path}: cannot read it: {error.strerror}") from None
    if not key.strip():
        raise UsageError(f"--key {path}: the key file is empty")
    return key.strip()


def write_file(path: Path, flag: str, data: bytes) -> None:
    """Write ``data`` to ``path`` (given by option ``flag``); a usage error if it cannot be."""
    try:
        path.write_bytes(data)
    except OSError as error:
        raise UsageError(f"{flag} {path}: cannot write it: {error.strerror}") from None


def verify_seals(args: argparse.Namespace) -> tuple[int, list[str]]:
    """Check the seal (FILE.sig, replay/seal.py) of each sealed file among the logs; the worst
    status, and the logs left for their own verification: of the sealed files (the dungeon's
    logs carry their own signatures), only a Labyrinth game log is re-played; for a Fish log, a
    Labyrinth player's log, a Penguins master's log or a tournament's results the seal is the
    whole check."""
    from labyrinth.replay import is_game_log
    from replay.seal import SealError, check_seal, seal_path

    worst, left = 0, []
    key = read_key(args.key) if args.key is not None else None
    for path in args.logs:
        if not seal_path(Path(path)).is_file():
            left.append(path)
            continue
        if key is None:
            print(f"OK {path}: sealed; checked unsigned only (give --key FILE to check the seal)")
        else:
            try:
                print(f"OK {path}: {check_seal(Path(path), key)}")
            except SealError as error:
                print(f"FAIL {path}: {error}")
                worst = 1
                continue
        if is_game_log(path):  # a Labyrinth game log is re-played too
            left.append(path)
    return worst, left


#: A game's name as verify and show say it.
_TITLES = {"fish": "Fish", "labyrinth": "Labyrinth", "penguins": "Penguins"}


def game_paths(paths: list[str], command: str, wire: bool = False) -> list[str]:
    """Which of ``paths`` are game logs for :func:`games_command`: Penguins' and Fish's (but for
    show and render of Fish's old logs, which keep their own tools), and Labyrinth's to verify
    in the shared format, to fork or to show ``wire`` messages; Labyrinth's others go to
    arena/labyrinth.py, which reads both formats."""
    from replay.games import GZIP_MAGIC, detect

    chosen = []
    games = [detect(path) for path in paths]
    # old Labyrinth game logs among other logs: verified here (alone, by arena/labyrinth.py)
    mixed = any(game not in ("labyrinth", "labyrinth-player") for game in games)
    for path, game in zip(paths, games, strict=True):
        try:
            with open(path, "rb") as stream:
                shared = stream.read(2) == GZIP_MAGIC
        except OSError:
            continue
        if (
            game == "penguins"
            or (game == "fish" and (shared or command in ("verify", "fork")))
            or (game == "labyrinth" and (shared or mixed) and command == "verify")
            or (game == "labyrinth" and command == "fork")
            or (game == "labyrinth" and command == "show" and wire)
        ):
            chosen.append(path)
    return chosen


def _read_game(path: str, key: bytes | None) -> GameRecord:
    from replay.games import GameLogError, read_game

    try:
        return read_game(path, key=key)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: cannot read: {error}") from None
    except GameLogError as error:
        raise UsageError(str(error)) from None


def games_command(args: argparse.Namespace, paths: list[str]) -> int:
    """``verify``, ``show``, ``render`` or ``fork`` of Fish, Labyrinth and Penguins game logs."""
    if args.command == "fork":
        from sim.gamefork import GameForkError, fork_game

        record = _read_game(paths[0], None)
        names = tuple(name.strip() for name in args.strategies.split(","))
        try:
            lines = fork_game(
                record, at=args.at, strategies=names, seed_offset=args.seed_offset,
                output=args.output,
            )  # fmt: skip
        except GameForkError as error:
            raise UsageError(f"{paths[0]}: {error}") from None
        except OSError as error:
            raise UsageError(f"-o {args.output}: cannot write it: {error.strerror}") from None
        print("\n".join(lines))
        return 0
    if args.command == "verify":
        key = read_key(args.key) if args.key is not None else None
        worst = 0
        for path in paths:
            try:
                status = _verify_game(path, key, args.require_complete)
            except UsageError as error:
                print(f"arena replay verify: {error}", file=sys.stderr)
                status = 2
            worst = max(worst, status)
        return worst
    record = _read_game(paths[0], None)
    if args.command == "show":
        from replay.games import penguins_show

        if getattr(args, "wire", False):
            if record.game != "labyrinth":
                raise UsageError(
                    f"--wire: {record.path} is a {_TITLES[record.game]} log; --wire shows a "
                    "Labyrinth game's messages (--records prints a Fish game's calls and replies)"
                )
            from labyrinth.replay import GameLog
            from replay.labyrinthwire import wire_lines

            log = GameLog(record.path, record.header, record.records)
            for line in wire_lines(log):
                print(json.dumps(line, ensure_ascii=False))
        elif args.records:
            for entry in [record.header, *record.records]:
                print(json.dumps(entry, ensure_ascii=False))
        elif record.game == "fish":
            from fish.replay import show_lines

            print("\n".join(show_lines(record.path)))
        elif record.game == "labyrinth":
            from labyrinth.replay import GameLog, show

            print(show(GameLog(record.path, record.header, record.records)))
        else:
            print(penguins_show(record))
        return 0
    if args.output is None:
        raise UsageError(f"render: a {_TITLES[record.game]} game draws to -o FILE.html")
    if record.game == "fish":
        from fish.replay import render_html as fish_html

        page, steps = fish_html(record.path)
    elif record.game == "labyrinth":
        from labyrinth.replay import GameLog, frames
        from labyrinth.replay import render_html as labyrinth_html

        log = GameLog(record.path, record.header, record.records)
        page, steps = labyrinth_html(log), len(frames(log))
    else:
        from penguins.replay import render_html as penguins_html

        page, steps = penguins_html(record.path)
    write_file(Path(args.output), "-o", page.encode("utf-8"))
    print(f"wrote {args.output}: steps 0 to {steps - 1}")
    return 0


def _verify_game(path: str, key: bytes | None, require_complete: bool) -> int:
    from replay.games import summary, verify_game

    record = _read_game(path, key)
    verdict = verify_game(record)
    game = _TITLES[record.game]
    if not verdict.ok:
        print(f"FAIL {path} {verdict.line}")
        return 1
    chain = record.chain
    if chain is None:
        print(
            f"OK {path}: an old {game} log (schema 0: unchained, so an edit the rules accept "
            f"goes unseen), {verdict.inputs} inputs re-run, everything the rules derive matches"
        )
        print(f"  result: {summary(record)}")
        return 1 if require_complete and not record.complete else 0
    if key is not None and (chain.signed_by is None or chain.signed_through == 0):
        what = "carries no signature" if chain.signed_by is None else "has no signed line yet"
        print(f"FAIL {path}: the log {what}: it cannot be told from a re-hashed copy")
        return 1
    last = chain.lines[-1][0]
    if record.complete:
        print(
            f"OK {path}: a {game} log, {last} lines, {verdict.inputs} inputs re-run, "
            "everything the rules derive matches"
        )
    else:
        word = "FAIL" if require_complete else "OK"
        cut = "; its last line was cut mid-write" if chain.cut_short else ""
        print(
            f"{word} {path}: INCOMPLETE, a {game} log verified up to its last line {last} "
            f"({verdict.inputs} inputs re-run); no close line{cut}"
        )
    if key is not None:
        tail = "" if chain.signed_through == last else f"; lines {chain.signed_through + 1}-"
        tail += f"{last} are chained but not yet signed" if tail else ""
        print(
            f"  signature: genuine, signed with this key through line {chain.signed_through}{tail}"
        )
    elif chain.signed_by is not None:
        print(
            f"  signature: not checked ({chain.signed_by}; give --key FILE): checked unsigned only"
        )
    else:
        print("  signature: none (an unsigned log): checked unsigned only")
    close = chain.lines[-1][1] if chain.closed else {}
    if isinstance(close.get("budget"), dict):
        budget = close["budget"]
        print(f"  size budget: the log reached its {budget.get('limit')} bytes; "
              f"{budget.get('dropped')} records after it are not written")  # fmt: skip
    print(f"  result: {summary(record)}")
    return 0 if record.complete or not require_complete else 1
