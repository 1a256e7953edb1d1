"""A match log as a story: one entry per applied input, and frames of where everyone stands.

Built from the log alone (the wire messages say where each agent is: every ``moved`` names its
location), except the NPCs at the start, which no message reveals: they come from regenerating
the dungeon from the log's seed and configuration (spec section 1), which needs no engine run.
``show`` prints the entries, ``render`` animates the frames, ``--png`` draws one frame.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from dungeon.engine import TEAM_SIZE
from replay.matchlog import INPUT, SEND, LogLine, MatchLog
from replay.story import TEAMS, Entry, Frame, Note, Summary, Timeline, slot, who

__all__ = ["TimelineTail", "build_timeline", "initial_npcs"]


def initial_npcs(log: MatchLog) -> frozenset[int]:
    """The NPCs at the start: the dungeon regenerated from the log's seed and configuration."""
    import numpy as np

    from dungeon.config import RulesConfig
    from dungeon.generation import generate

    rng = np.random.Generator(np.random.PCG64(log.seed))
    return generate(rng, RulesConfig.from_dict(log.config)).npcs


def _pair(value: Any) -> tuple[int, int] | None:
    if isinstance(value, list | tuple) and len(value) == 2:
        return int(value[0]), int(value[1])
    return None


class _Builder:
    """Walks the log once, keeping the state the messages imply."""

    def __init__(self, log: MatchLog, npcs: frozenset[int]) -> None:
        self.log = log
        self.start_npcs = frozenset(npcs)
        self.frame_base = 0
        self.entry_base = 0
        self.optima = {line.data.get("crossing"): line.data.get("value") for line in log.optima}
        self.positions: list[int] = [0] * (TEAMS * TEAM_SIZE)
        self.npcs = set(npcs)
        self.summary = Summary()
        self.entries: list[Entry] = []
        self.frames: list[Frame] = []
        self.dungeon: dict[str, Any] | None = None
        self.pending_to: dict[tuple[int, int], int] = {}
        self.crossing_notes: dict[tuple[int, int], str] = {}
        # The entry being walked and what it did so far.
        self.entry = Entry(line=1, t=0.0, actor=None, title="match begins")
        self.entries.append(self.entry)
        self.moves: list[tuple[int, int, int, str, int]] = []
        self.kills: list[tuple[int, int]] = []
        self.sightings: list[dict[str, Any]] = []

    def run(self) -> Timeline:
        self.feed(self.log.events[1:])
        self.close()
        if self.dungeon is None:
            broken = f" (it breaks at {self.log.bad})" if self.log.bad is not None else ""
            raise ValueError(f"the log has no dungeon message{broken}")
        return self.timeline()

    def feed(self, lines: list[LogLine]) -> None:
        """Walk ``lines`` (the log's events after the header, in order, possibly a few at a
        time): each input opens an entry and closes the one before."""
        for line in lines:
            if line.event == INPUT:
                self.close()
                self.entry = self._open_entry(line)
                self.entries.append(self.entry)
            elif line.event == SEND:
                self._send(line, self.entry, self.moves, self.kills, self.sightings)
            elif line.event == "crossing":
                self._crossing(line)
            elif line.event == "game_over":
                self.summary.reason = line.data.get("reason", self.summary.reason)
            self.summary.duration = max(self.summary.duration, float(line.data.get("t", 0.0)))

    def close(self) -> None:
        """End the open entry (its frame, if it changed something)."""
        self._close_entry(self.entry, self.moves, self.kills, self.sightings)
        self.moves, self.kills, self.sightings = [], [], []

    def timeline(self) -> Timeline:
        assert self.dungeon is not None
        return Timeline(
            header=self.log.header,
            nodes=[(float(x), float(y)) for x, y in self.dungeon["nodes"]],
            edges=[(int(u), int(v)) for u, v in self.dungeon["edges"]],
            start=(int(self.dungeon["start"][0]), int(self.dungeon["start"][1])),
            shrine=(int(self.dungeon["shrine"][0]), int(self.dungeon["shrine"][1])),
            entries=self.entries,
            frames=self.frames,
            summary=self.summary,
            complete=self.log.complete,
            start_npcs=self.start_npcs,
            frame_base=self.frame_base,
            entry_base=self.entry_base,
        )

    def forget(self, before: int) -> None:
        """Drop the frames before frame ``before - 1`` (it stays: the next frames are told from
        it) and the entries up to its own."""
        drop = min(before - 1 - self.frame_base, len(self.frames) - 1)
        if drop <= 0:
            return
        del self.frames[:drop]
        self.frame_base += drop
        # the entries after the first frame kept are still to be told (the open one stays)
        entries = min(self.frames[0].entry + 1 - self.entry_base, len(self.entries) - 1)
        if entries > 0:
            del self.entries[:entries]
            self.entry_base += entries

    def _open_entry(self, line: LogLine) -> Entry:
        data = line.data
        kind = data.get("kind")
        self.summary.inputs += 1
        if kind == "request":
            actor = (int(data["team"]), int(data["agent"]))
            message = data.get("message", {})
            if message.get("type") == "move":
                here = self.positions[slot(*actor)]
                title = f"{who(*actor)} asks to move {here} → {message.get('to')}"
            elif message.get("type") == "solution":
                values = message.get("assignment", [])
                title = f"{who(*actor)} submits {len(values)} switches"
            else:
                title = f"{who(*actor)} sends {message.get('type')}"
            return Entry(line.line, line.t, actor, title)
        # A disconnect or the draw limit is news in itself, not just a request: it gets a note.
        if kind == "disconnect":
            actor = (int(data["team"]), int(data["agent"]))
            title = f"team {actor[0]} disconnected (forfeit)"
            notes = [Note(title, "input", tuple((actor[0], a) for a in range(TEAM_SIZE)))]
            return Entry(line.line, line.t, actor, title, notes)
        title = "time is up (draw limit)"
        return Entry(line.line, line.t, None, title, [Note(title, "input")])

    def _crossing(self, line: LogLine) -> None:
        data = line.data
        agent = _pair(data.get("agent"))
        if agent is None:
            return
        team = agent[0]
        active = data.get("active")
        best = self.optima.get(data.get("crossing"))
        self.summary.crossings[team] += 1
        if isinstance(active, int) and isinstance(best, int):
            self.summary.trap_scores[team].append((active, best))
        parts = [f"traps active {active}"]
        if self.optima:
            parts.append(f"optimum {best if best is not None else '?'}")
        if "roll" in data:
            parts.append(f"roll {float(data['roll']):.3f}")
        self.crossing_notes[agent] = ", ".join(parts)

    def _send(
        self,
        line: LogLine,
        entry: Entry,
        moves: list[tuple[int, int, int, str, int]],
        kills: list[tuple[int, int]],
        sightings: list[dict[str, Any]],
    ) -> None:
        to = _pair(line.data.get("to"))
        message = line.data.get("message", {})
        kind = message.get("type")
        if to is None:
            return
        team, agent = to
        if kind == "dungeon":
            if self.dungeon is None:
                self.dungeon = message
                for t in range(TEAMS):
                    for a in range(TEAM_SIZE):
                        self.positions[slot(t, a)] = int(message["start"][t])
        elif kind == "sat":
            # The crossing's target, known once the move is accepted (a refused move has none).
            self.pending_to[to] = int(message["to"])
        elif kind == "moved":
            self._moved(team, agent, message, entry, moves, kills)
        elif kind == "enemy":
            sightings.append({"to": to, **message})
        elif kind == "error":
            self.summary.errors[team] += 1
            entry.notes.append(
                Note(f"{who(team, agent)} error: {message.get('message')}", "error", (to,))
            )
        elif kind == "game_over" and not self.summary.over:
            self.summary.over = True
            self.summary.winner = message.get("winner")
            result = "a draw" if self.summary.winner is None else f"team {self.summary.winner} wins"
            reason = f" ({self.summary.reason})" if self.summary.reason else ""
            entry.notes.append(Note(f"game over: {result}{reason}", "game_over"))

    def _moved(
        self,
        team: int,
        agent: int,
        message: dict[str, Any],
        entry: Entry,
        moves: list[tuple[int, int, int, str, int]],
        kills: list[tuple[int, int]],
    ) -> None:
        index = slot(team, agent)
        before = self.positions[index]
        location = int(message["location"])
        reason = str(message.get("reason"))
        self.positions[index] = location
        aim = self.pending_to.get((team, agent), location) if reason != "attacked" else location
        moves.append((index, before, location, reason, aim))
        traps = self.crossing_notes.pop((team, agent), None)
        detail = f" ({traps})" if traps else ""
        if reason == "crossed":
            text = f"{who(team, agent)} crossed {before} → {location}{detail}"
        elif reason == "trap":
            self.summary.trap_deaths[team] += 1
            target = self.pending_to.get((team, agent), "?")
            text = (
                f"{who(team, agent)} died in a trap on the way to {target}{detail}: "
                f"back to start {location}"
            )
        else:
            text = f"{who(team, agent)} was killed at {before}: back to start {location}"
        self.pending_to.pop((team, agent), None)
        entry.notes.append(Note(text, reason, ((team, agent),)))
        for victim in message.get("killed", []):
            if victim == -1:
                self.npcs.discard(location)
                self.summary.npc_kills[team] += 1
                kills.append((index, -1))
                entry.notes.append(
                    Note(f"{who(team, agent)} killed an NPC at {location}", "npc", ((team, agent),))
                )
            else:
                self.summary.kills[team] += 1
                kills.append((index, slot(1 - team, int(victim))))
                entry.notes.append(
                    Note(
                        f"{who(team, agent)} killed {who(1 - team, int(victim))} at {location}",
                        "kill",
                        ((team, agent), (1 - team, int(victim))),
                    )
                )

    def _close_entry(
        self,
        entry: Entry,
        moves: list[tuple[int, int, int, str, int]],
        kills: list[tuple[int, int]],
        sightings: list[dict[str, Any]],
    ) -> None:
        # Sightings: one note per (team, entity, node, seen), naming every watcher of that team.
        grouped: dict[tuple[int, int, int, bool], list[int]] = defaultdict(list)
        for sight in sightings:
            team, agent = sight["to"]
            grouped[
                (team, int(sight["agent"]), int(sight["location"]), bool(sight["seen"]))
            ].append(agent)
        for (team, entity, node, seen), watchers in grouped.items():
            if not seen:
                continue
            target = "an NPC" if entity == -1 else who(1 - team, entity)
            by = (
                "the whole team"
                if len(watchers) == TEAM_SIZE
                else ", ".join(who(team, w) for w in sorted(watchers))
            )
            # A whole-team sighting is the enemy heir's move (always visible): it concerns the heir.
            concerned = [] if len(watchers) == TEAM_SIZE else [(team, w) for w in watchers]
            if entity >= 0:
                concerned.append((1 - team, entity))
            entry.notes.append(
                Note(f"team {team} sees {target} at {node} ({by})", "seen", tuple(concerned))
            )
        ended = any(note.kind == "game_over" for note in entry.notes)
        changed = bool(moves) or not self.frames or ended
        number = self.entry_base + len(self.entries) - 1
        if changed and (not self.frames or self.frames[-1].entry != number):
            last = self.frames[-1].npcs if self.frames else None
            self.frames.append(
                Frame(
                    index=self.frame_base + len(self.frames),
                    entry=number,
                    line=entry.line,
                    positions=tuple(self.positions),
                    # the same set as the frame before while no NPC died (one set, not one each)
                    npcs=last if last is not None and last == self.npcs else frozenset(self.npcs),
                    moves=tuple(moves),
                    kills=tuple(kills),
                )
            )


class TimelineTail:
    """The timeline of a log being written (a digest log read by ``DigestTail``): each
    :meth:`update` walks the lines added since the last one and ends the open entry (a digest
    log's lines come an input with all its outputs at a time), so the last input has its frame
    at once. Optima logged after their crossing are not noted. :meth:`forget` lets go of the
    frames a follower has passed on, so following a long match holds only what is new."""

    def __init__(self, log: MatchLog, npcs: frozenset[int] | None = None) -> None:
        self._builder = _Builder(log, initial_npcs(log) if npcs is None else npcs)
        self._read = 1

    def update(self, lines: list[LogLine] | None = None) -> Timeline | None:
        """The timeline so far; None before the dungeon is in the log. ``lines``: the lines
        added since the last update (a ``DigestTail`` that keeps none gives them), else the
        log's events after those read."""
        builder = self._builder
        if lines is None:
            lines = builder.log.events[self._read :]
            self._read = len(builder.log.events)
        builder.feed([line for line in lines if line.line > 1])
        builder.close()
        return None if builder.dungeon is None else builder.timeline()

    def forget(self, before: int) -> None:
        """Keep only frame ``before - 1`` on (the next frames are told from it), and the entries
        after its own."""
        self._builder.forget(before)


def build_timeline(log: MatchLog, npcs: frozenset[int] | None = None) -> Timeline:
    """The timeline of ``log``; ``npcs`` overrides the regenerated starting NPCs (tests)."""
    return _Builder(log, initial_npcs(log) if npcs is None else npcs).run()
