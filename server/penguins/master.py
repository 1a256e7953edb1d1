"""The Penguins game master: player programs take turns on one board file, each sandboxed.

    arena penguins master --player "penguins-player strategy=greedy id=greedy" \\
                          --player "penguins-player strategy=alphabeta id=ab" --seed 3

(``arena/penguins.py`` holds the command line; this module the game's shell.) It asks each
program its ``name``, then plays the calls the pure referee (:mod:`penguins.referee`) asks for,
in the given order, as the course's script does: placement rounds until every program returns
1, then movement rounds until every program returns 1.

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
most :data:`~server.penguins.folder.MAX_FILE_BYTES`) and hands it to the referee, which judges
it (:func:`penguins.judge.judge`) and says what to log.

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
from dataclasses import dataclass
from pathlib import Path

from floes.effects import Deadline, Record, Send
from penguins.judge import judge, legal_action_exists
from penguins.referee import (
    BOARD,
    Answer,
    Call,
    Entrant,
    Fault,
    Referee,
    Unprepared,
    failure,
    failure_kind,
    ranking,
)
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

#: Runs argv in a folder within a time limit: the only place the master touches processes.
Runner = Callable[[Sequence[str], Path, float], Outcome]


@dataclass
class Program(Entrant):
    """A player program in the game (:class:`penguins.referee.Entrant`: its command, name and
    fate), with its private folder and the folder that folder starts as (a tournament team's,
    or None: empty)."""

    directory: Path = Path()
    seed_folder: Path | None = None


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
        kind: Fault | None = Fault.CRASHED if reason is not None else None
        name = ""
        if reason is None:
            outcome = runner([*program.command, "name"], program.directory, timeout)
            words = outcome.stdout.split()
            if outcome.code != 0 or outcome.timed_out:
                reason = f"'name' failed: {failure(outcome, timeout)}"
                kind = failure_kind(outcome)
            elif len(words) != 1:
                reason = f"'name' gave no single id: output {outcome.stdout[:100]!r}"
                kind = Fault.PROTOCOL
            elif words[0] in taken:
                reason = f"its name {words[0]!r} is already the name of player {taken[words[0]]}"
                kind = Fault.PROTOCOL
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
    """Play a whole game (:class:`penguins.referee.Referee`); return the final board. Programs
    must have their name and folder."""
    referee = Referee(
        programs, board, penguins, timeout=timeout, max_file_bytes=MAX_FILE_BYTES,
        max_rounds=max_rounds,
    )  # fmt: skip
    effects = referee.start()
    while True:
        call: Send[Call] | None = None
        seconds = timeout
        for effect in effects:
            if isinstance(effect, Record):
                log(effect.entry.to_json())
            elif isinstance(effect, Deadline) and effect.seconds is not None:
                seconds = effect.seconds
            elif isinstance(effect, Send):
                call = effect
        if call is None:
            return referee.board
        effects = referee.apply(
            _call(call.seat, programs[call.seat], call.message, runner, seconds)
        )


def _call(
    seat: int, program: Program, call: Call, runner: Runner, timeout: float
) -> Answer | Unprepared:
    """Run one call: the board file written afresh in the program's folder (the folder is the
    program's for the whole game: only the board file is replaced), the program run, the file
    read back once and the folder measured."""
    path = program.directory / BOARD
    try:
        write_fresh(path, call.board.encode("utf-8", "surrogateescape"))
    except OSError as error:
        return Unprepared(seat, str(error))
    outcome = runner([*program.command, *call.arguments], program.directory, timeout)
    after = read_once(path)
    return Answer(seat, outcome, after, os.path.lexists(path), over_bounds(program.directory))


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
