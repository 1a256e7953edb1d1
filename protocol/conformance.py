"""What `arena check-client` checks of a team program, and the verdicts: pure data, no I/O.

The scripted server (:mod:`server.probe`) plays one match against a team program and writes
down what it saw in :class:`Observations`; :func:`evaluate` turns those facts into one
:class:`Verdict` per :data:`CHECKS` entry, each naming the spec section a failure breaks and a
hint for fixing it. Kept apart from the server so the rules of the report read on one page and
are tested without sockets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

__all__ = ["CHECKS", "Check", "Observations", "Verdict", "evaluate"]


@dataclass(frozen=True)
class Check:
    name: str
    title: str
    section: str
    hint: str


CHECKS: Final = (
    Check(
        "six_sockets",
        "connects six sockets",
        "dungeon.md 4 (one socket per agent)",
        "open one TCP connection per agent (0-5) right away, before waiting for anything",
    ),
    Check(
        "start",
        "each socket sends a correct start within the start timeout",
        "dungeon.md 4 (start)",
        'the first line of each socket: {"type":"start","team":T,"agent":A,"match":M,'
        '"token":K} with the team, match and token the program was given, agents 0-5 once each',
    ),
    Check(
        "split_dungeon",
        "reads a dungeon line that arrives split over many reads",
        "dungeon.md 4 (one JSON object per line)",
        "buffer input until '\\n' and parse whole lines; the dungeon line is 60-93 KB",
    ),
    Check(
        "solutions",
        "answers every sat with one solution of the right length",
        "dungeon.md 2 (solution)",
        "send exactly `switches` bools (element i is switch i+1), once per sat",
    ),
    Check(
        "legal_moves",
        "moves only to adjacent nodes, never to the enemy's start or shrine",
        "dungeon.md 2 (move)",
        "track each agent's node from `moved` (an attacked or trapped agent is back at its "
        "start) and move along edges; start/shrine are indexed by team",
    ),
    Check(
        "one_commitment",
        "never sends a second move while committed",
        "dungeon.md 2 (move)",
        "after a move, wait for its sat (or error) and send the solution before the next move",
    ),
    Check(
        "keeps_reading",
        "keeps reading every socket (a flood of sightings does not fill its outbox)",
        "dungeon.md 5 (bounded memory) and docs/protocol.md 6",
        "read all six sockets all the time, also those of agents that stand still",
    ),
    Check(
        "survives_enemy",
        "survives enemy sightings of agents and NPCs (agent -1)",
        "dungeon.md 3",
        "handle enemy with agent -1 (an NPC) and seen false for things you never saw",
    ),
    Check(
        "survives_kill",
        "survives a kill while committed and plays on",
        "dungeon.md 2 (combat)",
        "a moved with reason attacked ends the commitment: forget the sat, you are at start",
    ),
    Check(
        "survives_error",
        "survives an error answer and plays on",
        "dungeon.md 4 (error)",
        "an error means the request changed nothing: free the agent and choose again",
    ),
    Check(
        "game_over",
        "ends after game_over",
        "dungeon.md 4 (game_over)",
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
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Verdict:
    check: Check
    passed: bool
    detail: str

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.check.name,
            "title": self.check.title,
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


def evaluate(seen: Observations) -> list[Verdict]:
    """One verdict per check, in the order of :data:`CHECKS`."""
    results: dict[str, tuple[bool, str]] = {}
    results["six_sockets"] = (
        seen.sockets >= 6,
        f"{seen.sockets} socket(s) connected",
    )
    missing = sorted(set(range(6)) - seen.started)
    results["start"] = (
        not seen.start_faults and not missing,
        _first(seen.start_faults)
        or (f"no accepted start for agent(s) {missing}" if missing else "six good starts"),
    )
    silent = sorted(seen.started - seen.active_after_dungeon)
    results["split_dungeon"] = (
        bool(seen.started) and not silent and seen.dungeon_reads > 1,
        (
            f"agent(s) {silent} sent nothing after a dungeon written in {seen.dungeon_reads} pieces"
            if silent
            else f"every agent played after a dungeon written in {seen.dungeon_reads} pieces"
        ),
    )
    results["solutions"] = (
        not seen.solution_faults,
        _first(seen.solution_faults) or "every sat answered",
    )
    results["legal_moves"] = (not seen.move_faults, _first(seen.move_faults) or "all legal")
    results["one_commitment"] = (
        not seen.commitment_faults,
        _first(seen.commitment_faults) or "one move at a time",
    )
    results["keeps_reading"] = (
        seen.flood_sent and not seen.flood_stuck,
        (
            f"agent(s) {sorted(seen.flood_stuck)} stopped reading: the sightings could not be "
            "written"
            if seen.flood_stuck
            else ("every socket read its flood" if seen.flood_sent else "no flood was sent")
        ),
    )
    # Lost after its flood began and before it showed it had read past it (the kill and the
    # error probes judge their own agents): by what the program did, not by when the loss was
    # noticed, which depends on timing.
    probed = {seen.killed_agent, seen.errored_agent}
    lost_early = {
        a: why
        for a, why in seen.lost.items()
        if a in seen.flooded_agents and a not in seen.read_past_flood and a not in probed
    }
    results["survives_enemy"] = (
        seen.flood_sent and not lost_early and not seen.flood_stuck,
        _first([f"agent {a}: {why}" for a, why in sorted(lost_early.items())]) or "still connected",
    )
    if seen.killed_agent is None:
        results["survives_kill"] = (False, "no agent moved after the flood: nobody to kill")
    else:
        agent = seen.killed_agent
        ok = seen.killed_then_moved and agent not in seen.lost
        results["survives_kill"] = (
            ok,
            f"agent {agent} killed while committed "
            + ("then moved again" if ok else "never moved again" + _lost(seen, agent)),
        )
    if seen.errored_agent is None:
        results["survives_error"] = (False, "no second agent moved: no error could be sent")
    else:
        agent = seen.errored_agent
        ok = seen.errored_then_moved and agent not in seen.lost
        results["survives_error"] = (
            ok,
            f"agent {agent} got an error "
            + ("then moved again" if ok else "and never moved again" + _lost(seen, agent)),
        )
    if not seen.game_over_sent:
        results["game_over"] = (False, "the match never reached game_over")
    else:
        ok = seen.exited_after_game_over and seen.exit_status == 0
        results["game_over"] = (
            ok,
            "exited with status 0"
            if ok
            else (
                f"exited with status {seen.exit_status}"
                if seen.exited_after_game_over
                else "still running 10 s after game_over"
            ),
        )
    return [Verdict(check, *results[check.name]) for check in CHECKS]


def _lost(seen: Observations, agent: int) -> str:
    why = seen.lost.get(agent)
    return f" ({why})" if why else ""
