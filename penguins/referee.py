"""The referee of one Penguins game of player programs, pure: which program is called next, with
which arguments and board, and what its call did (spec penguins.md, "Game master").

The calls go as the course's script makes them: placement rounds until every program returns 1
(cannot place) in a round, then movement rounds until every program returns 1 in a round. A
program that breaks the rules, fails or times out is disqualified and never called again; the
game goes on without it, from the board before its call (its penguins stay).

It speaks the referees' one vocabulary (:mod:`floes.effects`): :meth:`Referee.start` and
:meth:`Referee.apply` (an :class:`Answer` of the program called, or :class:`Unprepared` when
its folder could not be made ready) return a ``Record`` of the call (:class:`CallRecord`),
then the next call (``Deadline`` and ``Send`` of a :class:`Call`) or ``Over``. The game master
(:mod:`server.penguins.master`) runs the programs in the sandbox and reads their files.
"""

from __future__ import annotations

import dataclasses
import enum
from collections import deque
from collections.abc import Sequence
from typing import Protocol, TypeVar

from floes.effects import Deadline, Over, Record, Send
from floes.limits import LIMIT_SIGNALS, limit_in_output
from penguins.judge import changed_on_exit_1, judge, legal_action_exists
from protocol.penguins import BoardFile

__all__ = [
    "STDERR_KEPT",
    "Answer",
    "Call",
    "CallRecord",
    "Effect",
    "Entrant",
    "Fault",
    "Phase",
    "Referee",
    "Unprepared",
    "UnpreparedRecord",
    "Verdict",
    "failure",
    "failure_kind",
    "ranking",
]

#: How much of a program's stderr the log keeps per call.
STDERR_KEPT = 2000

#: The board file's name in the program's folder: the course's programs read and write it.
BOARD = "board.txt"


class Phase(enum.StrEnum):
    """The phase a call plays, as its ``phase=`` argument says."""

    PLACEMENT = "placement"
    MOVEMENT = "movement"


class Fault(enum.StrEnum):
    """The kind of a disqualification (the tournament's reasons, spec tournament.md)."""

    CRASHED = "crashed"
    PROTOCOL = "protocol_error"
    ILLEGAL = "illegal_move"
    TIME = "time_limit"
    LIMIT = "sandbox_limit"


class Verdict(enum.StrEnum):
    MOVED = "moved"
    CANNOT_MOVE = "cannot_move"
    DISQUALIFIED = "disqualified"


@dataclasses.dataclass
class Entrant:
    """A program in the game: its command (for the record), its name (its id in the file) and
    its fate."""

    command: list[str] = dataclasses.field(default_factory=list)
    name: str = ""
    disqualified: str | None = None
    #: The kind of the disqualification.
    kind: Fault | None = None
    #: It returned 1 (cannot move) in this round, or it is out.
    finished: bool = dataclasses.field(default=False, repr=False)


class Exit(Protocol):
    """How a call ended (:class:`server.sandbox.Outcome` is one)."""

    @property
    def code(self) -> int | None: ...
    @property
    def signal(self) -> str | None: ...
    @property
    def timed_out(self) -> bool: ...
    @property
    def stderr(self) -> str: ...
    @property
    def seconds(self) -> float: ...


@dataclasses.dataclass(frozen=True, slots=True)
class Call:
    """Run the program with ``arguments`` after its command, on ``board`` (the file's text)."""

    phase: Phase
    arguments: tuple[str, ...]
    board: str


@dataclasses.dataclass(frozen=True, slots=True)
class Answer:
    """What the call of ``seat`` did: how it ended, the board file it left (None: none, or not
    a regular file of the bounded size), whether anything at all is at the file's place, and
    why its folder outgrew its bounds ("" if it did not)."""

    seat: int
    exit: Exit
    board: str | None
    board_left: bool
    folder_over: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class Unprepared:
    """The folder of ``seat`` could not be made ready for its call (what it left there)."""

    seat: int
    error: str


@dataclasses.dataclass(frozen=True, slots=True)
class CallRecord:
    """A call's line of the game's log."""

    player: str
    phase: Phase
    argv: list[str]
    exit: int | None
    signal: str | None
    seconds: float
    stderr: str
    move: str
    reason: str
    verdict: Verdict
    board: str

    def to_json(self) -> dict[str, object]:
        entry: dict[str, object] = {"event": "call", "player": self.player}
        entry["phase"] = self.phase.value
        entry["argv"] = self.argv
        entry["exit"] = self.exit
        if self.signal:
            entry["signal"] = self.signal
        entry["seconds"] = round(self.seconds, 4)
        if self.stderr:
            entry["stderr"] = self.stderr[:STDERR_KEPT]
        if self.move:
            entry["move"] = self.move
        if self.reason:
            entry["reason"] = self.reason
        entry["verdict"] = self.verdict.value
        if self.verdict is Verdict.MOVED:
            entry["board"] = self.board
        return entry


@dataclasses.dataclass(frozen=True, slots=True)
class UnpreparedRecord:
    """The log line of a call that never ran: its folder could not be made ready."""

    player: str
    phase: Phase
    argv: list[str]
    reason: str

    def to_json(self) -> dict[str, object]:
        return {
            "event": "call", "player": self.player, "phase": self.phase.value, "argv": self.argv,
            "verdict": Verdict.DISQUALIFIED.value, "reason": self.reason,
        }  # fmt: skip


Effect = Send[Call] | Deadline | Record[CallRecord | UnpreparedRecord] | Over


def failure_kind(exit: Exit) -> Fault:
    """The kind of a call that neither moved nor declined (see :func:`failure`)."""
    if exit.timed_out:
        return Fault.TIME
    if exit.signal in LIMIT_SIGNALS:
        return Fault.LIMIT
    if exit.signal is None and limit_in_output(exit.stderr) is not None:
        return Fault.LIMIT  # memory or processes: its own last words say so
    return Fault.CRASHED


def failure(exit: Exit, timeout: float) -> str:
    """Why a call that neither moved nor declined disqualifies: the signal, the timeout, the
    exit code."""
    if exit.timed_out:
        return f"timed out after {timeout:g} s"
    if exit.signal in LIMIT_SIGNALS:
        return f"sandbox limit: {LIMIT_SIGNALS[exit.signal]} (killed by {exit.signal})"
    if exit.signal is not None:
        return f"crashed: killed by {exit.signal}"
    if exit.code == 127 and "failed to execute" in exit.stderr:
        return "the program could not be executed (exit code 127)"
    limit = limit_in_output(exit.stderr)
    if limit is not None:
        return f"sandbox limit: {limit[0]} (exit code {exit.code}, its output says {limit[1]})"
    kind = "bad input" if exit.code == 2 else "error"
    return f"exit code {exit.code} ({kind})"


class Referee:
    """A game of ``entrants`` (named, some maybe disqualified already) on ``board``, with
    ``penguins`` each to place, ``timeout`` seconds a call and a board file of at most
    ``max_file_bytes`` (the master's bound); at most ``max_rounds`` rounds a phase."""

    def __init__(
        self,
        entrants: Sequence[Entrant],
        board: BoardFile,
        penguins: int,
        *,
        timeout: float,
        max_file_bytes: int,
        max_rounds: int = 10_000,
    ) -> None:
        self.entrants = entrants
        self.board = board
        self.penguins = penguins
        self.timeout = timeout
        self.max_file_bytes = max_file_bytes
        self.max_rounds = max_rounds
        self._phases = deque((Phase.PLACEMENT, Phase.MOVEMENT))
        self._rounds = 0
        self._queue: deque[int] = deque()
        self._calling: tuple[int, Call] | None = None
        self._begin_phase()

    @property
    def phase(self) -> Phase | None:
        """The phase being played (None: the game is over)."""
        return self._phases[0] if self._phases else None

    def start(self) -> list[Effect]:
        return self._next()

    def apply(self, event: Answer | Unprepared) -> list[Effect]:
        if self._calling is None or self._calling[0] != event.seat:
            raise ValueError(f"seat {event.seat} answers a call it was not given")
        seat, call = self._calling
        self._calling = None
        entrant = self.entrants[seat]
        argv = [*entrant.command, *call.arguments]
        if isinstance(event, Unprepared):
            # What a program left in its own folder is its fault, not a reason for the game
            # master to stop (a sandboxed program cannot leave anything the master cannot remove).
            reason = f"its folder cannot be prepared afresh: {event.error}"
            self._disqualify(entrant, reason, Fault.PROTOCOL)
            return [Record(UnpreparedRecord(entrant.name, call.phase, argv, reason)), *self._next()]
        record = self._judge(entrant, call, argv, event)
        return [Record(record), *self._next()]

    # ----- inside
    def _judge(self, entrant: Entrant, call: Call, argv: list[str], answer: Answer) -> CallRecord:
        exit, board, phase = answer.exit, self.board, call.phase
        verdict, reason, move, kind = Verdict.DISQUALIFIED, "", "", Fault.PROTOCOL
        new_board = board
        after = answer.board if exit.code in (0, 1) and not exit.timed_out else None
        if exit.timed_out or exit.code not in (0, 1):
            reason, kind = failure(exit, self.timeout), failure_kind(exit)
        elif exit.code == 1:
            if after is None and answer.board_left:
                reason = (
                    "exit 1 (cannot move) but it left a board file that is not a regular file "
                    f"of at most {self.max_file_bytes} bytes"
                )
            elif after is not None and after != call.board:
                reason = changed_on_exit_1(board, after)
                kind = Fault.PROTOCOL if "malformed" in reason else Fault.ILLEGAL
            if not reason and legal_action_exists(board, entrant.name, phase, self.penguins):
                reason, kind = "exit 1 (cannot move) while a legal move existed", Fault.ILLEGAL
            if not reason:
                verdict = Verdict.CANNOT_MOVE
                entrant.finished = True
        elif after is None:
            reason = "exit 0 but the board file is missing, a link, not a regular file or too big"
        else:
            judged, description = judge(board, after, entrant.name, phase, self.penguins)
            if judged is None:
                reason = description
                prefixes = ("malformed", "exit 0")
                kind = Fault.PROTOCOL if description.startswith(prefixes) else Fault.ILLEGAL
            else:
                verdict, new_board, move = Verdict.MOVED, judged, description
        if answer.folder_over:
            # A sandbox limit comes first among the reasons (spec tournament.md): whatever else
            # the call did, its folder outgrew its bound.
            reason, kind = answer.folder_over, Fault.LIMIT
        if reason:
            verdict, new_board = Verdict.DISQUALIFIED, board
            self._disqualify(entrant, reason, kind)
        self.board = new_board
        return CallRecord(
            entrant.name, phase, argv, exit.code, exit.signal, exit.seconds, exit.stderr, move,
            reason, verdict, new_board.render() if verdict is Verdict.MOVED else "",
        )  # fmt: skip

    @staticmethod
    def _disqualify(entrant: Entrant, reason: str, kind: Fault) -> None:
        entrant.disqualified, entrant.kind, entrant.finished = reason, kind, True

    def _begin_phase(self) -> None:
        self._rounds = 0
        for entrant in self.entrants:
            entrant.finished = False

    def _next(self) -> list[Effect]:
        """The next call, or the end: a phase ends when a round's every program returned 1 (or
        none is left, or after ``max_rounds`` rounds)."""
        while self._phases:
            if self._queue:
                return self._call(self._queue.popleft(), self._phases[0])
            active = [s for s, e in enumerate(self.entrants) if e.disqualified is None]
            done = all(self.entrants[s].finished for s in active)
            if not active or done or self._rounds >= self.max_rounds:
                self._phases.popleft()
                self._begin_phase()
                continue
            self._rounds += 1
            self._queue.extend(active)
        firsts = [id(e) for place, e, _ in ranking(self.entrants, self.board) if place == 1]
        winners = tuple(s for s, e in enumerate(self.entrants) if id(e) in firsts)
        return [Deadline(None), Over(winners, "no program can move")]

    def _call(self, seat: int, phase: Phase) -> list[Effect]:
        entrant = self.entrants[seat]
        entrant.finished = False
        arguments = [f"phase={phase}"]
        if phase is Phase.PLACEMENT:
            arguments.append(f"penguins={self.penguins}")
        arguments += [BOARD, BOARD]
        call = Call(phase, tuple(arguments), self.board.render())
        self._calling = (seat, call)
        return [Deadline(seat, self.timeout), Send(seat, call)]


E = TypeVar("E", bound=Entrant)


def ranking(entrants: Sequence[E], board: BoardFile) -> list[tuple[int | None, E, int]]:
    """(place, entrant, fish): the most fish first (equal fish, equal place), then the
    disqualified entrants, with no place."""
    scores = {p.ident: p.score for p in board.players}
    fair = sorted(
        (p for p in entrants if p.disqualified is None), key=lambda p: -scores.get(p.name, 0)
    )
    out: list[tuple[int | None, E, int]] = []
    for entrant in fair:
        fish = scores.get(entrant.name, 0)
        place = next((rank for rank, q, f in out if f == fish), len(out) + 1)
        out.append((place, entrant, fish))
    out += [(None, p, scores.get(p.name, 0)) for p in entrants if p.disqualified]
    return out
