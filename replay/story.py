"""A match told as a story: the values a timeline is made of (its entries with their notes, the
frames of where everyone stands, the summary) and how an agent is named and indexed in them.
:mod:`replay.timeline` builds them from a log."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from dungeon.engine import TEAM_SIZE

__all__ = ["TEAMS", "Entry", "Frame", "Note", "Summary", "Timeline", "slot", "who"]

TEAMS = 2


def slot(team: int, agent: int) -> int:
    """Index of an agent in a frame's ``positions``: team 0's six, then team 1's."""
    return team * TEAM_SIZE + agent


def who(team: int, agent: int) -> str:
    return f"T{team} {'heir' if agent == 0 else f'a{agent}'}"


@dataclass(frozen=True, slots=True)
class Note:
    """One fact of an entry, with the agents it concerns (for ``--team``/``--agent`` filters)."""

    text: str
    kind: str  # move, crossed, trap, kill, npc, seen, error, game_over, input
    agents: tuple[tuple[int, int], ...] = ()


@dataclass(slots=True)
class Entry:
    """What one input (or the match's beginning) did."""

    line: int
    t: float
    actor: tuple[int, int] | None
    title: str
    notes: list[Note] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Frame:
    """Where everything stands after an entry that changed something (frame 0: the start)."""

    index: int
    entry: int  # index into Timeline.entries
    line: int
    positions: tuple[int, ...]  # slot(team, agent) -> node
    npcs: frozenset[int]
    #: agents that moved in this frame: (slot, from, to, reason, aim) with reason crossed, trap
    #: or attacked, and aim the node it was crossing to (for a trap death: where it never got)
    moves: tuple[tuple[int, int, int, str, int], ...]
    kills: tuple[tuple[int, int], ...]  # (slot of the killer, slot killed or -1 for an NPC)


@dataclass(slots=True)
class Summary:
    winner: int | None = None
    reason: str | None = None
    over: bool = False
    inputs: int = 0
    crossings: Counter[int] = field(default_factory=Counter)
    trap_deaths: Counter[int] = field(default_factory=Counter)
    kills: Counter[int] = field(default_factory=Counter)
    npc_kills: Counter[int] = field(default_factory=Counter)
    errors: Counter[int] = field(default_factory=Counter)
    #: per team: (traps left active, optimum) of each crossing whose optimum is known
    trap_scores: dict[int, list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))
    duration: float = 0.0

    def lines(self) -> list[str]:
        """The summary as a few readable lines."""
        if not self.over:
            result = "no result (the log ends before the match does)"
        elif self.winner is None:
            result = f"draw ({self.reason})" if self.reason else "draw"
        else:
            result = f"team {self.winner} wins" + (f" ({self.reason})" if self.reason else "")
        out = [f"{result}; {self.inputs} inputs over {self.duration:.1f} s"]
        for team in range(TEAMS):
            scores = self.trap_scores.get(team, [])
            traps = ""
            if scores:
                active = sum(a for a, _ in scores) / len(scores)
                best = sum(o for _, o in scores) / len(scores)
                traps = f", traps active {active:.2f} vs optimum {best:.2f} per crossing"
            out.append(
                f"team {team}: {self.crossings[team]} crossings, {self.trap_deaths[team]} trap "
                f"deaths, {self.kills[team]} kills, {self.npc_kills[team]} NPCs killed, "
                f"{self.errors[team]} errors{traps}"
            )
        return out


@dataclass(slots=True)
class Timeline:
    header: dict[str, Any]
    nodes: list[tuple[float, float]]
    edges: list[tuple[int, int]]
    start: tuple[int, int]
    shrine: tuple[int, int]
    entries: list[Entry]
    frames: list[Frame]
    summary: Summary
    complete: bool
    #: The NPCs at the start (frame 0's, also when it is no longer held).
    start_npcs: frozenset[int] = frozenset()
    #: A followed log's timeline holds only its newest frames and entries: ``frames[i]`` is
    #: frame ``frame_base + i``, ``entries[j]`` entry ``entry_base + j`` (``Frame.entry`` counts
    #: from the start).
    frame_base: int = 0
    entry_base: int = 0

    def heir_trails(self, team: int, upto: int | None = None) -> list[list[int]]:
        """The nodes the team's heir stood on up to frame ``upto``, without repeats, as one
        trail per life: a death or a kill sends the heir back to its start and begins a new one."""
        heir = slot(team, 0)
        trails: list[list[int]] = []
        for frame in self.frames[: None if upto is None else upto + 1]:
            node = frame.positions[heir]
            sent_home = any(m[0] == heir and m[3] != "crossed" for m in frame.moves)
            if not trails or sent_home:
                trails.append([node])
            elif trails[-1][-1] != node:
                trails[-1].append(node)
        return trails
