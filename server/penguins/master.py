"""The Penguins game master: player programs take turns on one board file, each sandboxed.

    arena penguins master --player "penguins-player strategy=greedy id=greedy" \\
                          --player "penguins-player strategy=alphabeta id=ab" --seed 3

(``arena/penguins.py`` holds the command line; this module the game.) It asks each program its
``name``, then calls the programs in the given order, as the course's script does: placement
rounds until every program returns 1, then movement rounds until every program returns 1.

Every call runs in the project's sandbox (:mod:`server.sandbox`, bubblewrap): its own user, a
fresh PID namespace (everything it starts dies with the call), resource limits, no network, and
a private folder that lasts the whole game (spec penguins.md: a course program keeps its identity
in a file there between calls): emptied (or filled with a copy of the team's folder, in a
tournament) once before the ``name`` call, given a fresh copy of the board before every call, and
bounded (:mod:`server.penguins.folder`; over its bounds: disqualified). The master keeps the
authoritative board in memory; the log
(``WORKDIR/log.jsonl.gz``, the shared log format, one line per step) and the final board
(``WORKDIR/board.txt``) live in a directory no program can see, opened without following
links. After the call it reads the program's board file once (no link, a regular file of at
most :data:`~server.penguins.folder.MAX_FILE_BYTES`) and judges it (:func:`judge`).

A move that breaks the rules, a changed score or field of someone else, a malformed file, a
crash (named by its signal), a timeout, an exit code other than 0 or 1, exit 1 while a legal
move existed, a missing program or a name another program already answered disqualifies the
program; the game goes on without it, from the board before its call (its penguins stay). At
the end the ranking puts the most fish first, disqualified programs last.
"""

from __future__ import annotations

import math
import os
import shlex
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from floes import MOVEMENT, PLACEMENT
from penguins.judge import changed_on_exit_1, judge, legal_action_exists
from protocol.penguins import BoardFile
from replay.chainlog import software_version
from replay.penguinslog import PenguinsGameLog
from server import sandbox
from server.penguins.folder import (
    MAX_FILE_BYTES,
    empty_folder,
    over_bounds,
    read_once,
    write_fresh,
)
from server.sandbox import Outcome

__all__ = [
    "Outcome",
    "Program",
    "host",
    "judge",
    "legal_action_exists",
    "name_programs",
    "ranking",
    "run_game",
    "sandbox_runner",
]

#: How much of a program's stderr the log keeps per call.
STDERR_KEPT = 2000

#: The kinds of disqualification (the tournament's reasons, spec tournament.md).
CRASHED, PROTOCOL, ILLEGAL, TIME, LIMIT = (
    "crashed", "protocol_error", "illegal_move", "time_limit", "sandbox_limit",
)  # fmt: skip

#: Runs argv in a folder within a time limit: the only place the master touches processes.
Runner = Callable[[Sequence[str], Path, float], Outcome]


@dataclass
class Program:
    """A player program in the game: its command, its name (its id in the file), its private
    folder and its fate."""

    command: list[str]
    name: str = ""
    directory: Path = Path()
    disqualified: str | None = None
    #: The kind of the disqualification: crashed, protocol_error, illegal_move, time_limit or
    #: sandbox_limit.
    kind: str | None = None
    #: A folder whose copy the private folder starts as (a tournament team's), or None: empty.
    seed_folder: Path | None = None
    finished: bool = field(default=False, repr=False)


def limits_for(timeout: float) -> sandbox.Limits:
    """The resource limits of one call with ``timeout`` seconds of wall time."""
    return sandbox.Limits(
        cpu_seconds=max(1, math.ceil(timeout)) + 1,
        memory_bytes=1 << 30,
        file_bytes=4 * MAX_FILE_BYTES,
        processes=64,
        open_files=64,
        wall_seconds=timeout,
    )


def sandbox_runner(mode: str = "bwrap") -> Runner:
    """The real runner: each call in :func:`server.sandbox.run` (``mode`` bwrap or none: as a
    user of its own, given its folder), with read-only access to what the program's
    executable needs to start."""

    def run(argv: Sequence[str], folder: Path, timeout: float) -> Outcome:
        return sandbox.run(
            argv,
            folder=folder,
            limits=limits_for(timeout),
            network=False,
            timeout=timeout,
            mode=mode,
            read_only=sandbox.program_paths(argv),
        )

    return run


def resolve(command: list[str], folder: Path | None = None) -> str | None:
    """Make ``command[0]`` an absolute path (a program runs in a folder of its own); the reason
    it cannot run (not found, not executable), or None. With ``folder`` (the program's own,
    seeded from its team's), a relative path with a slash is the program's own file there and
    stays relative: it runs inside its folder."""
    word = command[0]
    if folder is not None and os.sep in word and not os.path.isabs(word):
        inside = folder / word
        if not inside.is_file() or not os.access(inside, os.X_OK):
            return f"program is not an executable file in its folder: {word!r}"
        return None
    found = word if os.sep in word else shutil.which(word)
    if found is None or not os.path.exists(found):
        return f"program not found: {word!r}"
    if not os.path.isfile(found) or not os.access(found, os.X_OK):
        return f"program is not an executable file: {word!r}"
    command[0] = os.path.abspath(found)
    if folder is not None:
        return None  # (its arguments name files of its own folder)
    # It runs in a folder of its own: a relative path given here (a script) means from here.
    for index, word in enumerate(command[1:], start=1):
        if os.sep in word and not os.path.isabs(word) and os.path.exists(word):
            command[index] = os.path.abspath(word)
    return None


#: Signals the sandbox's limits send (prlimit): the limit, not the program, ended the call.
LIMIT_SIGNALS = {"SIGXCPU": "CPU time", "SIGXFSZ": "file size"}


def failure_kind(outcome: Outcome) -> str:
    """The kind of a call that neither moved nor declined (see :func:`failure`)."""
    if outcome.timed_out:
        return TIME
    if outcome.signal in LIMIT_SIGNALS:
        return LIMIT
    return CRASHED


def failure(outcome: Outcome, timeout: float) -> str:
    """Why a call that neither moved nor declined disqualifies: the signal, the timeout, the
    exit code."""
    if outcome.timed_out:
        return f"timed out after {timeout:g} s"
    if outcome.signal in LIMIT_SIGNALS:
        return f"sandbox limit: {LIMIT_SIGNALS[outcome.signal]} (killed by {outcome.signal})"
    if outcome.signal is not None:
        return f"crashed: killed by {outcome.signal}"
    if outcome.code == 127 and "failed to execute" in outcome.stderr:
        return "the program could not be executed (exit code 127)"
    kind = "bad input" if outcome.code == 2 else "error"
    return f"exit code {outcome.code} ({kind})"


# -- the game ----------------------------------------------------------------------------------


def seed_folder(program: Program) -> None:
    """The program's private folder as it starts its game: empty, or a copy of its team's
    folder (links copied as links)."""
    empty_folder(program.directory)
    if program.seed_folder is not None:
        shutil.copytree(program.seed_folder, program.directory, symlinks=True, dirs_exist_ok=True)


#: The game's log in the work directory (the shared format: docs/log-format.md).
LOG_NAME = "log.jsonl.gz"


def name_programs(
    programs: list[Program],
    runner: Runner,
    timeout: float,
    log: Callable[[dict[str, object]], None],
) -> None:
    """Ask each program its ``name`` (in its private folder, as the game starts: see
    :func:`seed_folder`); a missing program, a failed call or a name already answered
    disqualifies it (with a placeholder name) before the game."""
    taken: dict[str, int] = {}
    for index, program in enumerate(programs, start=1):
        seed_folder(program)
        inside = program.directory if program.seed_folder is not None else None
        reason = resolve(program.command, inside)
        kind: str | None = CRASHED if reason is not None else None
        name = ""
        if reason is None:
            outcome = runner([*program.command, "name"], program.directory, timeout)
            words = outcome.stdout.split()
            if outcome.code != 0 or outcome.timed_out:
                reason = f"'name' failed: {failure(outcome, timeout)}"
                kind = failure_kind(outcome)
            elif len(words) != 1:
                reason = f"'name' gave no single id: output {outcome.stdout[:100]!r}"
                kind = PROTOCOL
            elif words[0] in taken:
                reason = f"its name {words[0]!r} is already the name of player {taken[words[0]]}"
                kind = PROTOCOL
            else:
                name = words[0]
                taken[name] = index
        program.name = name or f"<player{index}>"
        program.disqualified = reason
        program.kind = kind
        program.finished = reason is not None
        entry: dict[str, object] = {"event": "name", "player": program.name}
        entry["command"] = program.command
        if reason:
            entry["reason"] = reason
        log(entry)


def run_game(
    programs: list[Program],
    board: BoardFile,
    penguins: int,
    log: Callable[[dict[str, object]], None],
    runner: Runner,
    timeout: float = 2.0,
    max_rounds: int = 10_000,
) -> BoardFile:
    """Play a whole game; return the final board. Programs must have their name and folder."""
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
    entry: dict[str, object] = {"event": "call", "player": program.name, "phase": phase}
    entry["argv"] = argv
    try:
        # The folder is the program's for the whole game: only the board file is replaced.
        write_fresh(path, text.encode("utf-8", "surrogateescape"))
    except OSError as error:
        # What a program left in its own folder is its fault, not a reason for the game master
        # to stop (a sandboxed program cannot leave anything the master cannot remove).
        reason = f"its folder cannot be prepared afresh: {error}"
        program.disqualified, program.finished, program.kind = reason, True, PROTOCOL
        log({**entry, "verdict": "disqualified", "reason": reason})
        return board
    outcome = runner(argv, program.directory, timeout)
    entry["exit"] = outcome.code
    if outcome.signal:
        entry["signal"] = outcome.signal
    entry["seconds"] = round(outcome.seconds, 4)
    if outcome.stderr:
        entry["stderr"] = outcome.stderr[:STDERR_KEPT]
    verdict, reason, new_board = "", "", board
    kind = PROTOCOL
    after = read_once(path) if outcome.code in (0, 1) and not outcome.timed_out else None
    if outcome.timed_out or outcome.code not in (0, 1):
        reason, kind = failure(outcome, timeout), failure_kind(outcome)
    elif outcome.code == 1:
        if after is None and os.path.lexists(path):
            reason = (
                "exit 1 (cannot move) but it left a board file that is not a regular file "
                f"of at most {MAX_FILE_BYTES} bytes"
            )
        elif after is not None and after != text:
            reason = changed_on_exit_1(board, after)
            kind = PROTOCOL if "malformed" in reason else ILLEGAL
        if not reason and legal_action_exists(board, program.name, phase, penguins):
            reason, kind = "exit 1 (cannot move) while a legal move existed", ILLEGAL
        if not reason:
            verdict = "cannot_move"
            program.finished = True
    elif after is None:
        reason = "exit 0 but the board file is missing, a link, not a regular file or too big"
    else:
        judged, description = judge(board, after, program.name, phase, penguins)
        if judged is None:
            reason = description
            kind = PROTOCOL if description.startswith(("malformed", "exit 0")) else ILLEGAL
        else:
            verdict, new_board = "moved", judged
            entry["move"] = description
    if bounds := over_bounds(program.directory):
        # A sandbox limit comes first among the reasons (spec tournament.md): whatever else
        # the call did, its folder outgrew its bound.
        reason, kind = bounds, LIMIT
    if reason:
        verdict, new_board = "disqualified", board
        program.kind = kind
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


def host(
    commands: list[list[str]],
    board: BoardFile,
    penguins: int,
    workdir: Path,
    runner: Runner,
    timeout: float = 2.0,
    echo: Callable[[dict[str, object]], None] | None = None,
    folders: Sequence[Path | None] | None = None,
    *,
    key: bytes | None = None,
    seed: int | None = None,
) -> tuple[list[Program], BoardFile, list[tuple[int | None, Program, int]]]:
    """A whole game with its record: names, placement, movement, ranking. The log
    (``workdir/log.jsonl.gz``: replay/penguinslog.py, signed with ``key``, naming the board's
    ``seed``) and the final board (``workdir/board.txt``) are opened without
    following links; the programs' folders lie in a directory of their own, removed at the end.
    ``echo`` sees every log entry too; ``folders`` (one per command, or None) are what each
    program's private folder starts as. Returns the programs, the final board and the
    ranking."""
    workdir.mkdir(parents=True, exist_ok=True)
    players = Path(tempfile.mkdtemp(prefix="penguins-players-"))
    seeds = list(folders) if folders is not None else [None] * len(commands)
    programs = [
        Program(list(command), directory=players / f"player{index}", seed_folder=seed)
        for index, (command, seed) in enumerate(zip(commands, seeds, strict=True), start=1)
    ]
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
    descriptor = os.open(workdir / LOG_NAME, flags, 0o644)
    # A board given by the user may hold bytes that are not UTF-8 (a latin-1 id): they are
    # logged as JSON escapes of the surrogates they were read as, never a crash.
    stream = open(descriptor, "wb")  # noqa: SIM115 - closed below, after the log's last line
    writer = PenguinsGameLog(
        stream, clock=time.monotonic, key=key, version=software_version(), seed=seed
    )

    def log(entry: dict[str, object]) -> None:
        writer(entry)
        if echo is not None:
            echo(entry)

    try:
        start: dict[str, object] = {"event": "start", "penguins": penguins}
        start["board"] = board.render()
        start["players"] = [shlex.join(command) for command in commands]
        log(start)
        name_programs(programs, runner, timeout, log)
        board = run_game(programs, board, penguins, log, runner, timeout)
        table = ranking(programs, board)
        places = [
            {
                "place": place,
                "player": p.name,
                "fish": got,
                "disqualified": p.disqualified,
                "kind": p.kind,
            }
            for place, p, got in table
        ]
        log({"event": "end", "ranking": places})
    finally:
        writer.close()  # a game stopped short says so in its log, verified up to there
        stream.close()
        shutil.rmtree(players, ignore_errors=True)
    write_fresh(workdir / "board.txt", board.render().encode("utf-8", "surrogateescape"))
    return programs, board, table
