"""The game-neutral competition of ``arena tournament``: the games of a plan played batch by
batch, at most ``concurrency`` at once, each finished game journaled before the next batch is
planned (``--resume`` loses none), the standings and the live board updated as games end.

A game's adapter subclasses :class:`Competition` and plays one game in :meth:`_play`, returning
its journal record (docs/tournament.md): the dungeon's :class:`~server.competition.dungeon.
TournamentRun`, :class:`~server.competition.penguins.PenguinsRun`,
:class:`~server.competition.labyrinth.LabyrinthRun`. :meth:`run` holds what the adapter needs
while the games are played (its server) and calls :meth:`_play_all`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from replay.journal import Journal, JournalError, journal_path
from server.competition.board import Board, BoardMatch
from server.competition.pairings import Game, Plan, Points
from server.competition.standings import standings
from server.competition.teams import Players, Team, Tournament
from server.sandbox import Limits

__all__ = [
    "EXIT_GRACE",
    "HOST",
    "POLL_SECONDS",
    "Competition",
    "RunOptions",
    "builtin_program",
    "fish_result",
]


@dataclass
class RunOptions:
    out: Path
    concurrency: int = 2
    resume: bool = False
    sandbox: str = "bwrap"
    #: Called with one line per finished match (status lines when not on a terminal).
    status: Callable[[str], None] | None = None
    #: Called with (done, total) as matches finish (the progress bar).
    progress: Callable[[int, int], None] | None = None
    #: ``--add TEAM``: a team of the file the journal does not know yet, played in late.
    add: str | None = None
    #: ``--rerun MATCH``: play that journaled match again, replacing its result, and why.
    rerun: str | None = None
    rerun_why: str = "re-run at the teacher's request"
    #: Pre-flight: "keep" (check every program first, report, keep the failing ones in),
    #: "drop" (leave them out), "off"; ``preflight_only``: check and stop.
    preflight: str = "keep"
    preflight_only: bool = False
    #: The built-in players (the command line's); a dungeon built-in team needs them.
    players: Players | None = None
    #: The dungeon's ``--time``: "cpu" orders a match's requests by the CPU each team's
    #: program used (fair time, docs/fair-time.md), "wall" by arrival; ``cpu_budget``: each
    #: team's CPU seconds per match (a time bank; past it: reason time_limit), None: none.
    time: str = "cpu"
    cpu_budget: float | None = None


#: The built-in player a program meets in its pre-flight game.
#: Where a run's own servers listen: loopback only.
HOST = "127.0.0.1"
#: Seconds a team whose sockets all closed has to end by itself before it is stopped.
EXIT_GRACE = 3.0
#: How often a match that is filling is looked at, once one of its programs has ended.
POLL_SECONDS = 0.05
HOUSE = {"dungeon": "reference", "penguins": "greedy", "labyrinth": "astar", "fish": "greedy"}
HOUSE_TEAM = "preflight-house"


def builtin_program(team: Team, scratch: Path | None, client: tuple[str, ...]) -> Team:
    """A built-in team as the program it is: our own client (``python -m arena`` and
    ``client``) with that strategy, in a folder of its own under ``scratch``."""
    if team.external:
        return team
    assert scratch is not None
    folder = scratch / f"builtin-{team.name}"
    folder.mkdir(exist_ok=True)
    command = (sys.executable, "-m", "arena", *client, "--strategy", str(team.builtin))
    return Team(name=team.name, dir=folder, command=command)


def fish_result(
    seats: Sequence[str], winners: list[int], best: int | None, failures: list[dict[str, Any]]
) -> str:
    """A Fish or Penguins game's result: "ann wins (14 fish); fay lost: crashed" (the reason
    says who failed, never the winner); ``best`` is the winners' catch."""
    if not winners:
        text = "nobody wins"
    elif len(winners) == 1:
        text = f"{seats[winners[0]]} wins ({best} fish)"
    else:
        text = f"{', '.join(seats[s] for s in winners)} share first ({best} fish)"
    lost = [f"{f['team']} lost: {f['reason']}" for f in failures]
    return "; ".join([text, *lost])


class Competition:
    """One run of a tournament into ``options.out``; subclasses play one game (:meth:`_play`)."""

    def __init__(self, tournament: Tournament, options: RunOptions, board: Board | None = None):
        self.t = tournament
        self.options = options
        self.out = options.out
        self.board = board if board is not None else Board(tournament.name)
        self.teams = {team.name: team for team in tournament.teams}
        self.plan = Plan(
            tournament.names, format=tournament.format, games_per_pair=tournament.games_per_pair,
            seed=tournament.seed, rounds=tournament.rounds, seeding=tournament.seeding,
            seats=tournament.players_per_game,
        )  # fmt: skip
        self.records: dict[int, dict[str, Any]] = {}
        self.results: dict[int, Points] = {}
        self.journal: Journal | None = None
        #: Each external team's pre-flight: passed, reason, detail, output, result.
        self.preflight: dict[str, dict[str, Any]] = {}
        #: ``--rerun``: the journaled record each re-played match replaces, by index.
        self._replaced: dict[int, dict[str, Any]] = {}
        self._done = 0
        self._total = 0
        #: One game to play instead of the plan (:func:`server.competition.match.play_match`).
        self.single: Game | None = None

    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        """Play every game not yet journaled (reports 0: no server of its own)."""
        journal = self.journal if self.journal is not None else self.open_journal()
        task_status.started(0)
        try:
            await self._play_all(journal)
        finally:
            journal.close()

    async def _play(self, game: Game) -> dict[str, Any]:
        """Play one game; its journal record."""
        raise NotImplementedError

    def _sandbox_limits(self, seconds: float) -> Limits:
        """A program's sandbox limits for a game of ``seconds`` wall time: the tournament's
        ``cpu_seconds`` (else the wall time, rounded up) and ``memory_mb``."""
        return Limits(
            cpu_seconds=self.t.cpu_seconds or int(seconds) + 1,
            memory_bytes=self.t.memory_mb << 20,
            wall_seconds=seconds,
        )

    def header(self) -> dict[str, Any]:
        return {
            "tournament": self.t.name,
            "settings": {k: v for k, v in sorted(self.t.raw.items()) if k != "name"},
            "teams": self.t.names,
        }

    def open_journal(self) -> Journal:
        """Create (or, resuming, reopen) the journal; raises JournalError for another run's.
        Its teams (the header's, then those added with ``--add``) must be the file's, or the
        file's but for the one ``--add`` names (then it is journaled as added)."""
        path = journal_path(self.out / "results.json")
        header = self.header()
        fresh = not (self.options.resume or self.options.add or self.options.rerun)
        if self.options.rerun is not None and not path.exists():
            raise JournalError(f"--rerun {self.options.rerun}: {path} does not exist")
        if fresh or not path.exists():
            # (a journal is always started with its teams, which --add checks later)
            self.journal = Journal.create(path, header)
            return self.journal
        teams = header.pop("teams")
        journal = Journal.resume(path, header)
        first = json.loads(path.read_text(encoding="utf-8").split("\n", 1)[0])
        known = list(first.get("teams", teams))
        late = [r["added"] for _, r in sorted(journal.done.items()) if r["index"] < 0]
        known_all = known + late
        add = self.options.add
        wanted = known_all + ([add] if add is not None and add not in known_all else [])
        if self.options.add is not None and self.options.add not in teams:
            journal.close()
            raise JournalError(f"--add {self.options.add}: no such team in the teams file")
        if sorted(wanted) != sorted(teams):
            journal.close()
            raise JournalError(
                f"{path}: its teams are {', '.join(known_all)} but the file has "
                f"{', '.join(teams)}; add one late team with --add NAME"
            )
        joined = {r["added"]: r.get("round", 0) for r in journal.done.values() if r["index"] < 0}
        if self.options.add is not None and self.options.add not in known_all:
            played = [r for r in journal.done.values() if r["index"] >= 0]
            refused = self._refuse_add(played)
            if refused is not None:
                journal.close()
                raise JournalError(f"--add {self.options.add}: {refused}")
            # Swiss: it plays from the round after the last one begun.
            begun = max((r["round"] for r in played), default=0)
            journal.append({"index": -1 - len(late), "added": self.options.add, "round": begun})
            late.append(self.options.add)
            joined[self.options.add] = begun
        if self.options.rerun is not None and not any(
            r.get("name") == self.options.rerun for r in journal.done.values()
        ):
            journal.close()
            raise JournalError(f"--rerun {self.options.rerun}: no such finished match")
        if late:
            try:
                self.plan = Plan(
                    known, format=self.t.format, games_per_pair=self.t.games_per_pair,
                    seed=self.t.seed, rounds=self.t.rounds, seeding=self.t.seeding,
                    seats=self.t.players_per_game, late=late, joined=joined,
                )  # fmt: skip
            except ValueError as error:
                journal.close()
                raise JournalError(f"--add {late[-1]}: {error}") from None
        self.journal = journal
        return journal

    def _refuse_add(self, played: list[dict[str, Any]]) -> str | None:
        """Why a team cannot join now (None: it can): a knockout whose bracket has begun (the
        draw would change under the games played), the course's knockout manager once run."""
        if self.t.format == "fish-knockout" and played:
            return "the knockout manager has run; a team joins it before the first game only"
        begun = max((r["round"] for r in played), default=0)
        if self.t.format == "swiss" and begun >= self.plan.rounds:
            return (
                f"all {self.plan.rounds} swiss rounds have begun; a team joins a swiss before "
                "its last round (it plays from the next one)"
            )
        if self.t.format != "knockout":
            return None
        bracket = [r for r in played if r.get("stage") == "knockout"]
        if bracket or (played and self.t.seeding != "round-robin"):
            return (
                f"the knockout bracket has begun ({len(bracket or played)} matches played); "
                "a team joins a knockout only before its first knockout match"
            )
        return None

    async def check_programs(self) -> None:
        """The pre-flight (docs/tournament.md): each external team's program plays one short
        game against :data:`HOUSE` through the game's own adapter, sandboxed as in the
        tournament; a failure there is the team's pre-flight failure. Kept in
        ``preflight.json`` (a resumed run reuses it: the same teams are left out)."""
        path = self.out / "preflight.json"
        if self.options.preflight == "off":
            return
        if path.is_file() and not self.options.preflight_only:
            self.preflight = json.loads(path.read_text(encoding="utf-8"))
        else:
            self.teams[HOUSE_TEAM] = Team(name=HOUSE_TEAM, builtin=HOUSE[self.t.game])
            checks: dict[str, dict[str, Any]] = {}
            limiter = trio.CapacityLimiter(self.options.concurrency)

            async def check(number: int, team: Team) -> None:
                async with limiter:
                    done = checks[team.name] = await self._check_program(number, team)
                if self.options.status is not None:
                    verdict = "passed" if done["passed"] else f"FAILED: {done['reason']}"
                    self.options.status(f"pre-flight {team.name}: {verdict}")

            try:
                # (as many at once as matches: each is one program against the house)
                async with trio.open_nursery() as nursery:
                    for number, team in enumerate(t for t in self.t.teams if t.external):
                        nursery.start_soon(check, number, team)
            finally:
                del self.teams[HOUSE_TEAM]
            self.preflight = {t.name: checks[t.name] for t in self.t.teams if t.name in checks}
            self.out.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(self.preflight, indent=1) + "\n", encoding="utf-8")
        failing = [name for name, check in self.preflight.items() if not check["passed"]]
        if failing and self.options.preflight == "drop" and not self.plan.games:
            names = [name for name in self.plan.names if name not in failing]
            late = [name for name in self.plan.late if name not in failing]
            first = [name for name in names if name not in late]
            self.plan = Plan(
                first, format=self.t.format, games_per_pair=self.t.games_per_pair,
                seed=self.t.seed, rounds=self.t.rounds, seeding=self.t.seeding,
                seats=min(self.t.players_per_game, len(names)), late=late,
                joined=self.plan.joined,
            )  # fmt: skip

    async def _check_program(self, number: int, team: Team) -> dict[str, Any]:
        """One program's pre-flight: by default one short game against :data:`HOUSE` through
        the game's adapter (the dungeon's adapter runs ``arena check-client``'s probe)."""
        game = Game(100_000 + number, 0, (team.name, HOUSE_TEAM), self.t.seed, "preflight")
        name = game.name(self.t.name)
        self.board.matches[name] = BoardMatch(name, game.seats, preflight=True)
        record = await self._play(game)
        self.board.finish(name, record["result"], record.get("replay"))
        mine = [f for f in record["failures"] if f["team"] == team.name]
        outputs = record.get("outputs") or [
            f"programs/{record['name']}-{name}.txt" for name in record["seats"]
        ]
        return {
            "passed": not mine,
            "reason": mine[0]["reason"] if mine else None,
            "detail": mine[0]["detail"] if mine else None,
            "output": outputs[0],
            "result": record["result"],
            "replay": record.get("replay"),
        }

    async def _play_all(self, journal: Journal) -> None:
        if self.single is not None:
            record = await self._play(self.single)
            journal.append(record)
            self.records[self.single.index] = record
            return
        await self.check_programs()
        if self.options.preflight_only:
            return
        for record in journal.done.values():
            if record["index"] < 0:  # (a team added late: metadata, not a match)
                continue
            self.records[record["index"]] = record
            self.results[record["index"]] = tuple(record["points"])
        for old in [r for r in self.records.values() if r["name"] == self.options.rerun]:
            self._replaced[old["index"]] = old
            del self.records[old["index"]], self.results[old["index"]]
        limiter = trio.CapacityLimiter(self.options.concurrency)
        self._update_standings()  # the live page's table from the start (a resumed run's too)
        while (batch := self.plan.next_games(self.results)) is not None:
            self._total = len(self.plan.games)
            self._done = sum(1 for g in self.plan.games if g.index in self.results)
            for game in batch:
                seats = game.seats
                name = game.name(self.t.name)
                if game.index in self.records:
                    self._show_finished(self.records[game.index])
                else:
                    self.board.matches[name] = BoardMatch(name, seats)
            self.board.touch()
            if self.options.progress is not None:
                self.options.progress(self._done, self._total)
            async with trio.open_nursery() as nursery:
                for game in batch:  # started in order, at most ``concurrency`` at once
                    if game.index not in self.results:
                        await limiter.acquire_on_behalf_of(game)
                        nursery.start_soon(self._play_one, game, limiter, journal)
        self._update_standings()

    def _show_finished(self, record: dict[str, Any]) -> None:
        match = BoardMatch(record["name"], tuple(record["seats"]))
        match.status, match.result, match.replay = "finished", record["result"], record["replay"]
        match.seconds = record.get("seconds")
        self.board.matches[record["name"]] = match

    async def _play_one(self, game: Game, limiter: trio.CapacityLimiter, journal: Journal) -> None:
        try:
            record = await self._play(game)
        finally:
            limiter.release_on_behalf_of(game)
        old = self._replaced.get(game.index)
        if old is not None:
            # The old result stays in the journal (an earlier line); the page shows both.
            record["replaces"] = {
                "result": old["result"], "reason": old["reason"], "failures": old["failures"],
                "why": self.options.rerun_why,
            }  # fmt: skip
        # Files first, then the journal line: a journaled match has its log and replay page.
        journal.append(record)
        self.records[game.index] = record
        self.results[game.index] = tuple(record["points"])
        self._done += 1
        # (a dungeon match's counts were read with its replay page: a digest log is read by
        # re-running its match, so the board does not read it a second time)
        counts = (record["crossings"], record["deaths"]) if "deaths" in record else None
        self.board.finish(record["name"], record["result"], record["replay"], counts)
        self._update_standings()
        if self.options.progress is not None:
            self.options.progress(self._done, self._total)
        if self.options.status is not None:
            self.options.status(
                f"match {self._done}/{self._total} {record['name']}: "
                f"{' vs '.join(record['seats'])}: {record['result']}"
                f" ({record['seconds']:.1f} s)"
            )

    def _update_standings(self) -> None:
        table = standings(self.t.names, list(self.records.values()), self.plan.byes)
        self.board.standings = table["teams"]
        self.board.touch()
