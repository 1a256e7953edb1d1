"""What `arena check-client` checks of a team program, and the verdicts: pure data, no I/O.

The scripted server (:mod:`server.probe`) plays one match against a team program and writes
down what it saw in :class:`Observations`; :func:`evaluate` turns those facts into one
:class:`Verdict` per :data:`CHECKS` entry, each naming the spec section a failure breaks and a
hint for fixing it. Kept apart from the server so the rules of the report read on one page and
are tested without sockets.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "CHECKS",
    "FAILED",
    "NOT_RUN",
    "PASSED",
    "Check",
    "Observations",
    "Verdict",
    "evaluate",
    "exit_text",
]


@dataclass(frozen=True)
class Check:
    name: str
    title: str
    section: str
    hint: str


CHECKS: Final = (
    Check(
        "runs",
        "starts, connects and keeps running until game_over",
        "docs/protocol.md 4 (Joining a match)",
        "run the program by hand with the five arguments (host port team match token) and read "
        "its error output: it must connect at once and exit only after game_over",
    ),
    Check(
        "six_sockets",
        "connects six sockets",
        "docs/protocol.md 4 (Joining a match)",
        "open one TCP connection per agent (0-5) right away, before waiting for anything",
    ),
    Check(
        "start",
        "each socket sends a correct start within the start timeout",
        "docs/protocol.md 4 (Joining a match)",
        'the first line of each socket: {"type":"start","team":T,"agent":A,"match":M,'
        '"token":K} with the team, match and token the program was given, agents 0-5 once each',
    ),
    Check(
        "split_dungeon",
        "reads a dungeon line that arrives split over many reads",
        "docs/protocol.md 1 (Transport)",
        "after the dungeon line each agent must send a move; if yours does, it did not read the "
        "line whole: buffer input until '\\n' and parse whole lines (the line is 60-93 KB)",
    ),
    Check(
        "solutions",
        "answers every sat with one solution of the right length",
        "docs/protocol.md 5 (Playing)",
        "send exactly `switches` bools (element i is switch i+1), once per sat",
    ),
    Check(
        "legal_moves",
        "moves only to adjacent nodes, never to the enemy's start or shrine",
        "docs/protocol.md 5 (Playing)",
        "track each agent's node from `moved` (an attacked or trapped agent is back at its "
        "start) and move along edges; start/shrine are indexed by team",
    ),
    Check(
        "one_commitment",
        "never sends a second move while committed",
        "docs/protocol.md 5 (Playing)",
        "after a move, wait for its sat (or error) and send the solution before the next move",
    ),
    Check(
        "keeps_reading",
        "keeps reading every socket (a flood of sightings does not fill its outbox)",
        "docs/protocol.md 6 (The end, and what closes a socket)",
        "read all six sockets all the time, also those of agents that stand still",
    ),
    Check(
        "survives_enemy",
        "survives enemy sightings of agents and NPCs (agent -1)",
        "docs/protocol.md 3 (Messages)",
        "handle enemy with agent -1 (an NPC) and seen false for things you never saw",
    ),
    Check(
        "survives_kill",
        "survives a kill while committed and plays on",
        "docs/protocol.md 5 (Playing)",
        "a moved with reason attacked ends the commitment: forget the sat, you are at start",
    ),
    Check(
        "survives_error",
        "survives an error answer and plays on",
        "docs/protocol.md 7 (Errors)",
        "an error means the request changed nothing: free the agent and choose again",
    ),
    Check(
        "game_over",
        "ends after game_over",
        "docs/protocol.md 6 (The end, and what closes a socket)",
        "after game_over the server closes every socket: stop and exit with status 0",
    ),
)


@dataclass
class Observations:
    """What the scripted server saw of one program (filled by :mod:`server.probe`)."""

    team: int
    sockets: int = 0
    #: agent -> problem with its start line, for each socket that did not send a good one
    start_faults: list[str] = field(default_factory=list)
    #: agents whose start was accepted
    started: set[int] = field(default_factory=set)
    #: agents that sent at least one request after their dungeon had been written
    active_after_dungeon: set[int] = field(default_factory=set)
    dungeon_reads: int = 0  # the pieces the dungeon line was written in
    solution_faults: list[str] = field(default_factory=list)
    move_faults: list[str] = field(default_factory=list)
    commitment_faults: list[str] = field(default_factory=list)
    #: agents whose flood of sightings could not be written in time
    flood_stuck: set[int] = field(default_factory=set)
    flood_sent: bool = False
    #: agents whose flood was started, and those that then answered a sat written after it
    flooded_agents: set[int] = field(default_factory=set)
    read_past_flood: set[int] = field(default_factory=set)
    #: agents whose socket (or the program) ended before game_over, and why
    lost: dict[int, str] = field(default_factory=dict)
    killed_agent: int | None = None
    killed_then_moved: bool = False
    errored_agent: int | None = None
    errored_then_moved: bool = False
    game_over_sent: bool = False
    exited_after_game_over: bool = False
    exit_status: int | None = None
    #: the program ended before game_over was sent (a crash, or it gave up)
    exited_early: bool = False
    #: moves the program sent, and sats the probe wrote back
    moves_received: int = 0
    sats_sent: int = 0
    #: the last lines the program wrote to its standard error
    stderr_tail: list[str] = field(default_factory=list)
    #: seconds the probe waited for the first socket (the start timeout)
    start_timeout: float = 10.0
    notes: list[str] = field(default_factory=list)


#: A check's outcome: it held, it broke, or what it needs never happened, so it was not made.
PASSED, FAILED, NOT_RUN = "passed", "failed", "not run"


@dataclass(frozen=True)
class Verdict:
    check: Check
    status: str
    detail: str

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.check.name,
            "title": self.check.title,
            "status": self.status,
            "passed": self.passed,
            "section": self.check.section,
            "hint": self.check.hint,
            "detail": self.detail,
        }


def _first(items: list[str], more: str = "") -> str:
    if not items:
        return ""
    extra = f" (and {len(items) - 1} more)" if len(items) > 1 else ""
    return items[0] + extra + more


def exit_text(status: int | None) -> str:
    """How a program ended, as a person reads it: "exited with status 3", "killed by SIGSEGV"."""
    if status is None:
        return "still running"
    if status < 0:
        try:
            return f"killed by {signal_name(-status)}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exited with status {status}"


def signal_name(number: int) -> str:
    return signal.Signals(number).name


def _runs(seen: Observations) -> tuple[str, str]:
    tail = (
        f"; its last error output: {' | '.join(seen.stderr_tail[-5:])}" if seen.stderr_tail else ""
    )
    if seen.sockets == 0:
        if seen.exit_status is not None:
            return FAILED, f"{exit_text(seen.exit_status)} before connecting a socket{tail}"
        return FAILED, f"connected no socket within {seen.start_timeout:g} s{tail}"
    if seen.exited_early:
        return FAILED, f"{exit_text(seen.exit_status)} before game_over{tail}"
    return PASSED, "ran until game_over" if seen.game_over_sent else "still running at the end"


def evaluate(seen: Observations) -> list[Verdict]:
    """One verdict per check, in the order of :data:`CHECKS`: a check whose occasion never came
    (no socket, no dungeon, no move, no flood...) is "not run", never passed."""
    results: dict[str, tuple[str, str]] = {}

    def judge(name: str, ok: bool, detail: str) -> None:
        results[name] = (PASSED if ok else FAILED, detail)

    def not_run(name: str, why: str) -> None:
        results[name] = (NOT_RUN, why)

    ended = f"; then the program {exit_text(seen.exit_status)}" if seen.exited_early else ""
    results["runs"] = _runs(seen)
    judge("six_sockets", seen.sockets >= 6, f"{seen.sockets} socket(s) connected")
    missing = sorted(set(range(6)) - seen.started)
    if seen.sockets == 0:
        not_run("start", "no socket connected")
    else:
        judge(
            "start",
            not seen.start_faults and not missing,
            _first(seen.start_faults)
            or (f"no accepted start for agent(s) {missing}" if missing else "six good starts"),
        )
    silent = sorted(seen.started - seen.active_after_dungeon)
    if not seen.started:
        not_run("split_dungeon", "no start was accepted, so no dungeon was sent")
    elif not seen.active_after_dungeon:
        judge(
            "split_dungeon",
            False,
            f"no agent sent anything after its dungeon (written in {seen.dungeon_reads} pieces)"
            + ended,
        )
    else:
        judge(
            "split_dungeon",
            not silent and seen.dungeon_reads > 1,
            f"agent(s) {silent} sent nothing after a dungeon written in {seen.dungeon_reads} pieces"
            if silent
            else f"every agent played after a dungeon written in {seen.dungeon_reads} pieces",
        )
    if seen.sats_sent == 0 and not seen.solution_faults:
        not_run("solutions", "no sat was sent: the program made no legal move")
    else:
        judge(
            "solutions",
            not seen.solution_faults,
            _first(seen.solution_faults) or "every sat answered",
        )
    if seen.moves_received == 0:
        not_run("legal_moves", "the program sent no move")
        not_run("one_commitment", "the program sent no move")
    else:
        judge("legal_moves", not seen.move_faults, _first(seen.move_faults) or "all legal")
        judge(
            "one_commitment",
            not seen.commitment_faults,
            _first(seen.commitment_faults) or "one move at a time",
        )
    if not seen.flood_sent:
        not_run("keeps_reading", "no flood was sent: no agent got its dungeon")
        not_run("survives_enemy", "no sighting was sent: no agent got its dungeon")
    else:
        judge(
            "keeps_reading",
            not seen.flood_stuck,
            f"agent(s) {sorted(seen.flood_stuck)} stopped reading: the sightings could not be "
            "written"
            if seen.flood_stuck
            else "every socket read its flood",
        )
        # Lost after its flood began and before it showed it had read past it (the kill and
        # the error probes judge their own agents): by what the program did, not by when the
        # loss was noticed, which depends on timing.
        probed = {seen.killed_agent, seen.errored_agent}
        lost_early = {
            a: why
            for a, why in seen.lost.items()
            if a in seen.flooded_agents and a not in seen.read_past_flood and a not in probed
        }
        judge(
            "survives_enemy",
            not lost_early and not seen.flood_stuck,
            _first([f"agent {a}: {why}" for a, why in sorted(lost_early.items())])
            or "still connected",
        )
    if seen.killed_agent is None:
        not_run("survives_kill", "no agent moved after its flood: nobody to kill" + ended)
    else:
        agent = seen.killed_agent
        ok = seen.killed_then_moved and agent not in seen.lost
        judge(
            "survives_kill",
            ok,
            f"agent {agent} killed while committed "
            + ("then moved again" if ok else "never moved again" + (ended or _lost(seen, agent))),
        )
    if seen.errored_agent is None:
        not_run("survives_error", "no second agent moved: no error could be sent" + ended)
    else:
        agent = seen.errored_agent
        ok = seen.errored_then_moved and agent not in seen.lost
        judge(
            "survives_error",
            ok,
            f"agent {agent} got an error "
            + (
                "then moved again"
                if ok
                else "and never moved again" + (ended or _lost(seen, agent))
            ),
        )
    if not seen.game_over_sent:
        not_run("game_over", "the match never reached game_over" + ended)
    else:
        ok = seen.exited_after_game_over and seen.exit_status == 0
        judge(
            "game_over",
            ok,
            "exited with status 0"
            if ok
            else (
                exit_text(seen.exit_status)
                if seen.exited_after_game_over
                else "still running 10 s after game_over"
            ),
        )
    return [Verdict(check, *results[check.name]) for check in CHECKS]


def _lost(seen: Observations, agent: int) -> str:
    why = seen.lost.get(agent)
    return f" ({why})" if why else ""
