"""The Penguins player program: ``arena penguins ...`` and the ``penguins-player`` script.

    penguins-player phase=placement penguins=3 board.txt board.txt
    penguins-player phase=movement IN OUT
    penguins-player name
    penguins-player play [--opponent greedy] [--rows 8 --cols 8 --seed 4]   (terminal play)
    penguins-player master --player CMD --player CMD [--seed 3]         (a game master)

Arguments come in any order. Besides the seed's three: ``strategy=NAME`` (random, greedy,
alphabeta, minimax2, territory; default territory); ``id=TEXT`` (the player line's id, default
``penguins-STRATEGY``, so two copies in one game need different ids or strategies); ``seed=N``
(for ``random``; by default the seed is derived from the file and the id, so a call is
reproducible); ``budget=N`` (the node budget of alphabeta, default 400, and territory, default
2500). A search also stops at :data:`SAFETY_SECONDS` of wall time, whatever its budget.

Exit codes (spec penguins.md, "Player program"): 0 made a move and wrote OUT; 1 cannot move
(placement: N penguins already on the board or no free one-fish floe; movement: all blocked or
none on the board), OUT not written; 2 the input file (or the command line) is wrong, with the
line and field on stderr; 3 internal error, with a message.

The call path imports the standard library only, and not its slow parts (argparse, typing,
dataclasses, tempfile, re): a game master calls this once per move.
"""

from __future__ import annotations

import os
import sys

from floes import MOVEMENT, PLACEMENT
from penguins.naming import DEFAULT_STRATEGY, name_of
from penguins.rules import from_board, to_board
from penguins.strategies import (
    STRATEGIES,
    TERRITORY_BUDGET,
    AlphaBetaStrategy,
    Strategy,
    TerritoryStrategy,
)
from protocol import penguins as boardfile

__all__ = ["main"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    import random

PROG = "penguins-player"
#: A search's wall-clock safety cap, well under a game master's usual 2 s a call.
SAFETY_SECONDS = 0.8
#: Alphabeta's node budget in the player program: keeps a call within a game master's time
#: (bench/bench_penguins.py), deterministic unlike a time limit.
DEFAULT_BUDGET = 400

EXIT_MOVED, EXIT_CANNOT_MOVE, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3

USAGE = f"""\
usage: {PROG} phase=placement penguins=N IN OUT [strategy=NAME] [id=TEXT] [seed=N] [budget=N]
       {PROG} phase=movement IN OUT [strategy=NAME] [id=TEXT] [seed=N] [budget=N]
       {PROG} name [strategy=NAME] [id=TEXT]
       {PROG} play [--opponent STRATEGY] [--rows R] [--cols C] [--seed S] ...
       {PROG} master --player COMMAND --player COMMAND ... [--seed S] [--timeout SEC] ...
Arguments may come in any order; IN and OUT may be the same file.
Strategies: {", ".join(STRATEGIES)}.
Exit codes: 0 moved, 1 cannot move, 2 bad input file or usage, 3 internal error."""

_OPTIONS = ("phase", "penguins", "strategy", "id", "seed", "budget")


class BadArguments(Exception):
    """A command line we cannot act on: :func:`run` prints it with the usage, exit 2.

    Not ``arena.errors.UsageError``, the project's one error type for the command line: games
    never import :mod:`arena` (the contract "Nothing imports the command line"), and this
    program is a game's own, started by a game master once per move through the
    ``penguins-player`` script as well as through ``arena penguins``. Sharing the class would
    need a new top-level module for one exception or a command-line type inside a game core;
    this one never leaves :func:`run`, which answers in the spec's own terms (the message, the
    usage text, status 2).
    """


class Request:
    """What one call was asked to do."""

    __slots__ = ("budget", "files", "ident", "name", "penguins", "phase", "seed", "strategy")

    def __init__(self) -> None:
        self.phase: str | None = None
        self.penguins: int | None = None
        self.strategy = DEFAULT_STRATEGY
        self.ident: str | None = None
        self.seed: int | None = None
        self.budget: int | None = None
        self.name = False
        self.files: list[str] = []

    @property
    def player_id(self) -> str:
        return self.ident if self.ident is not None else f"penguins-{self.strategy}"


def parse_arguments(argv: list[str]) -> Request:
    """The request of a command line, in any order; BadArguments names what is wrong."""
    request = Request()
    seen: set[str] = set()
    for argument in argv:
        key, equals, value = argument.partition("=")
        if argument == "name":
            request.name = True
            continue
        if not equals or key not in _OPTIONS:
            request.files.append(argument)
            continue
        if key in seen:
            raise BadArguments(f"{key}= given twice")
        seen.add(key)
        if key == "phase":
            if value not in (PLACEMENT, MOVEMENT):
                raise BadArguments(f"phase must be placement or movement, got {value!r}")
            request.phase = value
        elif key == "strategy":
            if value not in STRATEGIES:
                raise BadArguments(
                    f"unknown strategy {value!r}; choose one of {', '.join(STRATEGIES)}"
                )
            request.strategy = value
        elif key == "id":
            if not value or any(ch.isspace() for ch in value):
                raise BadArguments(f"id must be non-empty text without spaces, got {value!r}")
            request.ident = value
        else:
            # int() refuses more than 4300 digits with a ValueError: a usage error too (exit 2).
            if not (value.isascii() and value.isdigit() and len(value) <= 18):
                raise BadArguments(
                    f"{key} must be a non-negative integer of at most 18 digits, "
                    f"got {boardfile.shown(value)}"
                )
            if key == "penguins":
                request.penguins = int(value)
            elif key == "seed":
                request.seed = int(value)
            else:
                request.budget = max(1, int(value))
    if request.name:
        return request
    if request.phase is None:
        raise BadArguments("missing phase=placement or phase=movement")
    if request.phase == "placement" and request.penguins is None:
        raise BadArguments("phase=placement needs penguins=N")
    if len(request.files) != 2:
        listed = " ".join(repr(f) for f in request.files) or "none"
        raise BadArguments(f"expected two files IN OUT, got {listed}")
    return request


def make_player_strategy(request: Request) -> Strategy:
    if request.strategy == "alphabeta":
        return AlphaBetaStrategy(budget=request.budget or DEFAULT_BUDGET)
    if request.strategy == "territory":
        import time

        deadline = time.monotonic() + SAFETY_SECONDS
        return TerritoryStrategy(
            budget=request.budget or TERRITORY_BUDGET, stop=lambda: time.monotonic() > deadline
        )
    return STRATEGIES[request.strategy]()


def generator(request: Request, text: str) -> random.Random:
    """The random strategy's generator: from ``seed=N``, else from the file's text and the id,
    so that the same call on the same file makes the same choice. Imported here, as only this
    strategy draws (start-up: docs/penguins.md)."""
    import random
    import zlib

    seed = request.seed
    if seed is None:
        content = text.encode("utf-8", "surrogateescape")
        seed = zlib.crc32(content) ^ zlib.crc32(request.player_id.encode())
    return random.Random(seed)


def play_turn(request: Request, board: boardfile.BoardFile, text: str) -> tuple[int, str]:
    """Make this call's placement or move on ``board`` (in place); return the exit code and a
    note for stderr (empty when a move was made)."""
    ident = request.player_id
    me = board.player(ident)
    if me is None and request.phase == "movement":
        return EXIT_CANNOT_MOVE, f"no player line with id {ident!r}: no penguin to move"
    number = me.number if me is not None else board.next_free_number()
    if number is None:
        return EXIT_CANNOT_MOVE, "all 9 player numbers are taken: cannot join this game"
    seat = number - 1
    strategy = make_player_strategy(request)
    rng = generator(request, text) if request.strategy == "random" else None
    if request.phase == PLACEMENT:
        assert request.penguins is not None  # parse_arguments insists on it
        placed = board.owner.count(number)
        if placed >= request.penguins:
            return EXIT_CANNOT_MOVE, f"all {request.penguins} penguins are placed"
        state = from_board(board, PLACEMENT, number, request.penguins - placed)
        if state.phase != PLACEMENT or state.current != seat:
            return EXIT_CANNOT_MOVE, "no free floe with exactly one fish to place a penguin on"
        tile = strategy.place(state, seat, rng)
        if tile is None:
            return EXIT_CANNOT_MOVE, "no free floe with exactly one fish to place a penguin on"
        state.place(tile)
        gained = 1
    else:
        state = from_board(board, MOVEMENT, number)
        if state.phase != MOVEMENT or state.current != seat:
            return EXIT_CANNOT_MOVE, "every penguin is blocked"
        choice = strategy.move(state, seat, rng)
        if choice is None:
            return EXIT_CANNOT_MOVE, "every penguin is blocked"
        gained = state.move(*choice)
    to_board(state, board)
    if me is None:
        me = board.add_player(ident, number)
    me.score += gained
    return EXIT_MOVED, ""


def write_file(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically where the directory allows it, so that a player
    killed mid-write never leaves half a board behind. A link is written through (the file it
    names is replaced, the link stays): a game master may link each program's board file to
    the one board."""
    path = os.path.realpath(path)
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError:
        with open(path, "wb") as stream:
            stream.write(data)
        return
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        finally:
            raise


def run(argv: list[str]) -> int:
    if "name" in argv:
        print(name_of(argv))
        return EXIT_MOVED
    try:
        request = parse_arguments(argv)
    except BadArguments as error:
        print(f"{PROG}: {error}\n{USAGE}", file=sys.stderr)
        return EXIT_BAD_INPUT
    source, target = request.files
    try:
        with open(source, "rb") as stream:
            text = stream.read().decode("utf-8", "surrogateescape")
    except OSError as error:
        print(f"{PROG}: cannot read {source}: {error.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        board = boardfile.parse(text)
    except boardfile.BoardFileError as error:
        print(f"{PROG}: {source}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    code, note = play_turn(request, board, text)
    if code != EXIT_MOVED:
        print(f"{PROG}: {note}", file=sys.stderr)
        return code
    try:
        write_file(target, boardfile.encode(board.render()))
    except OSError as error:
        print(f"{PROG}: internal error: cannot write {target}: {error.strerror}", file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_MOVED


def main(argv: list[str] | None = None) -> int:
    """The player program and terminal play (argv None: sys.argv[1:]); ``penguins-player`` and
    ``arena penguins`` enter through :mod:`arena.penguins`, which also runs the master."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] == "play":
        from penguins.interactive import main as play_main

        return play_main(args[1:])
    if args and args[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    try:
        return run(args)
    except Exception as error:  # the spec's exit code 3: never a traceback for a game master
        print(f"{PROG}: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_INTERNAL
