"""``arena penguins master``: a game master running player programs on one board file.

    arena penguins master --player "penguins-player strategy=greedy id=greedy" \\
                          --player "penguins-player strategy=alphabeta id=ab" --seed 3

It asks each program its ``name``, generates a board (or takes ``--board FILE``), then calls the
programs in the given order on the board file, as the course's script does: placement rounds
until every program returns 1, then movement rounds until every program returns 1. Each program
runs in a working directory of its own (``WORKDIR/<n>-<name>/board.txt``), with ``--timeout``
seconds per call.

After every call the master compares the file with the one before (:func:`judge`). A move that
breaks the rules, a changed score or field of someone else, a malformed file, a crash, a
timeout, an exit code other than 0 or 1, or exit 1 while a legal move existed disqualifies the
program; the game goes on without it, from the board before its call (its penguins stay where
they stood). Nothing a program writes reaches the master's own files: the master keeps the board
in memory, rewrites each working copy from scratch (never following a link a program left
there), and keeps its log (JSON lines, one per step: ``WORKDIR/log.jsonl``) and the final
board (``WORKDIR/board.txt``) outside the programs' directories. At the end it prints the
ranking: the most fish first, disqualified programs last.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.options import positive_seconds
from floes import MOVEMENT, PLACEMENT
from penguins.boardfile import BoardFile, BoardFileError, parse
from penguins.rules import MAX_PLAYERS, from_board, generate_fish, penguins_each

__all__ = ["Outcome", "Program", "judge", "legal_action_exists", "main", "run_game"]

#: Largest board file a program may leave behind (anything bigger is malformed).
MAX_FILE_BYTES = 1 << 20
#: How much of a program's stderr the log keeps per call.
STDERR_KEPT = 2000


@dataclass(frozen=True)
class Outcome:
    """What one call of a program did: its exit code (None after a timeout), the heads of its
    stdout and stderr, and its wall time."""

    code: int | None
    stderr: str = ""
    seconds: float = 0.0
    stdout: str = ""


#: Runs argv in a directory within a time limit: the only place the master touches processes.
Runner = Callable[[Sequence[str], Path, float], Outcome]


@dataclass
class Program:
    """A player program in the game: its command, its name (its id in the file) and its fate."""

    command: list[str]
    name: str = ""
    directory: Path = Path()
    disqualified: str | None = None
    finished: bool = field(default=False, repr=False)


def run_subprocess(argv: Sequence[str], cwd: Path, timeout: float) -> Outcome:
    """Run a program in ``cwd``, kill its whole process group when it exits or after
    ``timeout`` seconds, keep the heads of its stdout and stderr."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            process = subprocess.Popen(
                list(argv),
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
        except OSError as error:
            return Outcome(127, f"cannot start: {error}", time.monotonic() - start)
        try:
            code: int | None = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
        # Also after a normal exit: a child left running in the background would eat the CPU
        # of the next programs' timed calls, or rewrite files between calls. (Its group id
        # stays reserved while any member lives, so this never hits an unrelated process.)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        if code is None:
            process.wait()
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        stdout = out.read(STDERR_KEPT).decode("utf-8", "replace")
        stderr = err.read(STDERR_KEPT).decode("utf-8", "replace")
    return Outcome(code, stderr, seconds, stdout)


# -- judging one call --------------------------------------------------------------------------


def _where(board: BoardFile, tile: int) -> str:
    row, col = divmod(tile, board.cols)
    return f"row {row + 1}, column {col + 1} (line {row + 2}, field {col + 1})"


def legal_action_exists(board: BoardFile, name: str, phase: str, penguins: int) -> bool:
    """Whether the program called ``name`` could place (``phase`` placement, ``penguins`` each)
    or move on ``board``."""
    me = board.player(name)
    if phase == PLACEMENT:
        number = me.number if me is not None else board.next_free_number()
        if number is None or board.owner.count(number) >= penguins:
            return False
        return any(f == 1 and not o for f, o in zip(board.fish, board.owner, strict=True))
    if me is None:
        return False
    state = from_board(board, MOVEMENT, me.number)
    return state.can_move(me.number - 1)


def judge(
    before: BoardFile, after_text: str, name: str, phase: str, penguins: int
) -> tuple[BoardFile | None, str]:
    """Check a call that returned 0: the new board and a description of the move, or None and
    the reason that disqualifies ``name``."""
    try:
        after = parse(after_text, strict=True)
    except BoardFileError as error:
        return None, f"malformed board file: {error}"
    if (after.rows, after.cols) != (before.rows, before.cols):
        return None, f"changed the board size to {after.rows} x {after.cols}"
    old = {p.ident: p for p in before.players}
    new = {p.ident: p for p in after.players}
    for ident, line in old.items():
        if ident not in new:
            return None, f"removed the player line of {ident!r}"
        if new[ident].number != line.number:
            return None, f"changed the player number of {ident!r}"
        if ident != name and new[ident].score != line.score:
            return None, f"changed the score of {ident!r}"
    added = [ident for ident in new if ident not in old]
    if added and added != [name]:
        return None, f"added player lines {added!r}, but its name is {name!r}"
    mine = new.get(name)
    if mine is None:
        return None, f"exit 0 but no player line with its name {name!r}"
    number = mine.number
    gained = mine.score - (old[name].score if name in old else 0)
    changed = [
        t
        for t in range(len(before.fish))
        if (before.fish[t], before.owner[t]) != (after.fish[t], after.owner[t])
    ]
    if phase == PLACEMENT:
        if len(changed) != 1:
            return None, f"changed {len(changed)} fields; a placement changes exactly one"
        tile = changed[0]
        if before.owner.count(number) >= penguins:
            return None, f"placed a penguin beyond its {penguins}"
        if before.fish[tile] != 1 or before.owner[tile]:
            return None, f"placed on {_where(before, tile)}, not a free floe with one fish"
        if (after.fish[tile], after.owner[tile]) != (0, number):
            return None, f"wrote {after.fish[tile]}{after.owner[tile]} at {_where(before, tile)}"
        if gained != 1:
            return None, f"added {gained} to its score; a placement collects 1 fish"
        return after, f"placed on {_where(before, tile)}"
    if len(changed) != 2:
        return None, f"changed {len(changed)} fields; a move changes exactly two"
    sources = [t for t in changed if before.owner[t] == number and not after.owner[t]]
    targets = [t for t in changed if after.owner[t] == number and not before.owner[t]]
    if len(sources) != 1 or len(targets) != 1:
        return None, "the two changed fields are not one of its penguins leaving and landing"
    src, dst = sources[0], targets[0]
    if after.fish[src] or after.fish[dst]:
        return None, "a floe left must become 00 and a floe landed on must read 0<number>"
    state = from_board(before, MOVEMENT, number)
    if dst not in state.reachable(src):
        return None, f"moved to {_where(before, dst)}: not in a straight free line from its penguin"
    if gained != before.fish[dst]:
        return (
            None,
            f"added {gained} to its score, but the floe it landed on had {before.fish[dst]}",
        )
    return after, f"moved {_where(before, src)} -> {_where(before, dst)}, {gained} fish"


# -- the game ----------------------------------------------------------------------------------


def _write_fresh(path: Path, data: bytes) -> None:
    """Write ``path`` as a new regular file, whatever a program left there (never following a
    link it planted)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        raise OSError(f"{path} is not a regular file")
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(descriptor, "wb") as stream:
        stream.write(data)


def _read_capped(path: Path) -> str | None:
    """The text a program left in ``path``, or None when it is missing, odd or too big."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        return path.read_bytes().decode("utf-8", "surrogateescape")
    except OSError:
        return None


def _changed_on_exit_1(before: BoardFile, after_text: str) -> str:
    """Why a file rewritten by a call that returned 1 disqualifies its program, or "" when it
    holds the same position: a program may write the board back in another conforming layout
    (trailing spaces, CRLF), which changes no field and no score."""
    try:
        after = parse(after_text, strict=True)
    except BoardFileError as error:
        return f"exit 1 (cannot move) but it left a malformed board file: {error}"
    if (
        (after.rows, after.cols, after.fish, after.owner)
        != (before.rows, before.cols, before.fish, before.owner)
    ) or sorted((p.ident, p.number, p.score) for p in after.players) != sorted(
        (p.ident, p.number, p.score) for p in before.players
    ):
        return "exit 1 (cannot move) but it changed the board"
    return ""


def run_game(
    programs: list[Program],
    board: BoardFile,
    penguins: int,
    log: Callable[[dict[str, object]], None],
    runner: Runner = run_subprocess,
    timeout: float = 2.0,
    max_rounds: int = 10_000,
) -> BoardFile:
    """Play a whole game; return the final board. Programs must have their name and directory."""
    for phase in (PLACEMENT, MOVEMENT):
        for program in programs:
            program.finished = False
        for _ in range(max_rounds):
            active = [p for p in programs if p.disqualified is None]
            if not active or all(p.finished for p in active):
                break
            for program in active:
                program.finished = False
                board = _call(program, board, phase, penguins, log, runner, timeout)
            if all(p.finished for p in programs if p.disqualified is None):
                break
    return board


def _call(
    program: Program,
    board: BoardFile,
    phase: str,
    penguins: int,
    log: Callable[[dict[str, object]], None],
    runner: Runner,
    timeout: float,
) -> BoardFile:
    text = board.render()
    path = program.directory / "board.txt"
    argv = [*program.command, f"phase={phase}"]
    if phase == PLACEMENT:
        argv.append(f"penguins={penguins}")
    argv += ["board.txt", "board.txt"]
    try:
        _write_fresh(path, text.encode("utf-8", "surrogateescape"))
    except OSError as error:
        # What a program left in its own directory (a directory named board.txt, a read-only
        # directory) is its fault, not a reason for the game master to stop.
        reason = f"its board file cannot be written afresh: {error}"
        program.disqualified = reason
        program.finished = True
        log(
            {
                "event": "call",
                "player": program.name,
                "phase": phase,
                "argv": argv,
                "verdict": "disqualified",
                "reason": reason,
            }
        )
        return board
    outcome = runner(argv, program.directory, timeout)
    entry: dict[str, object] = {
        "event": "call",
        "player": program.name,
        "phase": phase,
        "argv": argv,
        "exit": outcome.code,
        "seconds": round(outcome.seconds, 4),
    }
    if outcome.stderr:
        entry["stderr"] = outcome.stderr[:STDERR_KEPT]
    verdict, reason, new_board = "", "", board
    if outcome.code is None:
        reason = f"timed out after {timeout} s"
    elif outcome.code == 1:
        after = _read_capped(path)
        if after is None and os.path.lexists(path):
            reason = (
                "exit 1 (cannot move) but it left a board file that is not a regular file "
                f"of at most {MAX_FILE_BYTES} bytes"
            )
        elif after is not None and after != text:
            reason = _changed_on_exit_1(board, after)
        if not reason and legal_action_exists(board, program.name, phase, penguins):
            reason = "exit 1 (cannot move) while a legal move existed"
        if not reason:
            verdict = "cannot_move"
            program.finished = True
    elif outcome.code == 0:
        after = _read_capped(path)
        if after is None:
            reason = "exit 0 but the board file is missing, not a regular file or too big"
        else:
            judged, description = judge(board, after, program.name, phase, penguins)
            if judged is None:
                reason = description
            else:
                verdict, new_board = "moved", judged
                entry["move"] = description
    else:
        reason = f"exit code {outcome.code} ({'bad input' if outcome.code == 2 else 'error'})"
    if reason:
        verdict = "disqualified"
        program.disqualified = reason
        program.finished = True
        entry["reason"] = reason
    entry["verdict"] = verdict
    if verdict == "moved":
        entry["board"] = new_board.render()
    log(entry)
    return new_board


def ranking(programs: Sequence[Program], board: BoardFile) -> list[tuple[int | None, Program, int]]:
    """(place, program, fish): the most fish first (equal fish, equal place), then the
    disqualified programs, with no place."""
    scores = {p.ident: p.score for p in board.players}
    fair = sorted(
        (p for p in programs if p.disqualified is None), key=lambda p: -scores.get(p.name, 0)
    )
    out: list[tuple[int | None, Program, int]] = []
    for program in fair:
        fish = scores.get(program.name, 0)
        place = next((rank for rank, q, f in out if f == fish), len(out) + 1)
        out.append((place, program, fish))
    out += [(None, p, scores.get(p.name, 0)) for p in programs if p.disqualified]
    return out


def _command(text: str) -> list[str]:
    words = shlex.split(text)
    if not words:
        raise ValueError("empty --player command")
    # The program runs in its own directory: a relative path given here means from here.
    if os.sep in words[0] and not os.path.isabs(words[0]) and os.path.exists(words[0]):
        words[0] = os.path.abspath(words[0])
    return words


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="arena penguins master",
        description="Run player programs against each other on one board file.",
    )
    parser.add_argument(
        "--player",
        action="append",
        required=True,
        metavar="COMMAND",
        help="a player program with its arguments, e.g. 'penguins-player strategy=greedy id=g' "
        "(repeat, in turn order; 1-9 programs)",
    )
    parser.add_argument("--penguins", type=int, help="penguins each (default: by board size)")
    parser.add_argument("--rows", type=int, default=10, help="rows of a generated board (10)")
    parser.add_argument("--cols", type=int, default=10, help="columns of a generated board (10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of a generated board (0)")
    parser.add_argument("--board", type=Path, help="start from this board file instead")
    parser.add_argument(
        "--timeout", type=positive_seconds, default=2.0, help="seconds per call (2)"
    )
    parser.add_argument("--workdir", type=Path, help="directory for the game (default: new temp)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every step")
    args = parser.parse_args(argv)
    if not 1 <= len(args.player) <= MAX_PLAYERS:
        parser.error(f"give 1-{MAX_PLAYERS} --player programs")
    if args.penguins is not None and args.penguins < 1:
        parser.error(f"--penguins must be at least 1, got {args.penguins}")
    try:
        programs = [Program(_command(text)) for text in args.player]
    except ValueError as error:
        parser.error(str(error))
    count = len(programs)
    if args.board is not None:
        try:
            board = parse(args.board.read_bytes().decode("utf-8", "surrogateescape"), strict=True)
        except (OSError, BoardFileError) as error:
            print(f"arena penguins master: {args.board}: {error}", file=sys.stderr)
            return 2
        each = args.penguins or penguins_each(count, board.rows, board.cols)
    else:
        if args.rows < 1 or args.cols < 1:
            parser.error("--rows and --cols must be positive")
        each = args.penguins or penguins_each(count, args.rows, args.cols)
        if each * count > args.rows * args.cols:
            parser.error(f"{each} penguins for each of {count} players do not fit")
        fish = generate_fish(random.Random(args.seed), args.rows, args.cols, each * count)
        board = BoardFile(args.rows, args.cols, fish, [0] * len(fish), [])
        board = parse(board.render())
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="penguins-game-"))
    workdir.mkdir(parents=True, exist_ok=True)
    log_path = workdir / "log.jsonl"
    # A board given with --board may hold bytes that are not UTF-8 (a latin-1 id): they are
    # logged as JSON escapes of the surrogates they were read as, never a crash.
    with log_path.open("w", encoding="utf-8", errors="backslashreplace") as log_stream:

        def log(entry: dict[str, object]) -> None:
            log_stream.write(json.dumps(entry, ensure_ascii=False) + "\n")
            log_stream.flush()
            if args.verbose and entry["event"] == "call":
                detail = entry.get("move") or entry.get("reason") or entry.get("verdict")
                print(f"{entry['player']}: {detail}")

        log({"event": "start", "penguins": each, "board": board.render(), "players": args.player})
        names: set[str] = set()
        for index, program in enumerate(programs, start=1):
            program.directory = workdir / f"player{index}"
            program.directory.mkdir(exist_ok=True)
            outcome = run_subprocess([*program.command, "name"], program.directory, args.timeout)
            words = outcome.stdout.split() if outcome.code == 0 else []
            name = words[0] if len(words) == 1 else ""
            program.name = name or f"<player {index}>"
            if not name:
                ended = (
                    f"timed out after {args.timeout} s"
                    if outcome.code is None
                    else f"exit {outcome.code}"
                )
                program.disqualified = (
                    f"'name' gave no single id: {ended}, output {outcome.stdout!r}"
                )
            elif name in names:
                print(f"arena penguins master: two programs are called {name!r}", file=sys.stderr)
                return 2
            names.add(program.name)
            log({"event": "name", "player": program.name, "command": program.command})
        board = run_game(programs, board, each, log, run_subprocess, args.timeout)
        table = ranking(programs, board)
        log(
            {
                "event": "end",
                "ranking": [
                    {"place": place, "player": p.name, "fish": got, "disqualified": p.disqualified}
                    for place, p, got in table
                ],
            }
        )
    (workdir / "board.txt").write_bytes(board.render().encode("utf-8", "surrogateescape"))
    for place, program, got in table:
        note = f"  disqualified: {program.disqualified}" if program.disqualified else ""
        print(f"{place or '-'}. {program.name}  {got} fish{note}")
    print(f"log: {log_path}  final board: {workdir / 'board.txt'}")
    return 0
