"""The batch runner: which matches a run plays, playing one, and folding results in seed order.

Schedule (documented in docs/simulator.md):

* Seeds: match seed ``i`` of a run is a hash of ``(--seed, i)``, so the seed list depends only on
  ``--seed`` and its length, and a longer run starts with the seeds of a shorter one.
* Lineups: in a two-seat game, every pair of entered strategies (round robin). In a game with
  ``n > 2`` seats, the strategies cycled over the seats when there are at most ``n`` of them,
  else every combination of ``n`` strategies.
* Seatings: each seed is played once per distinct cyclic rotation of the lineup: twice, seats
  swapped, for a two-seat game; four times for four different strategies at a four-seat table.
  ``--matches`` counts games per lineup and is rounded up to whole seeds.
* Job order: seed-major (seed, then lineup, then seating); job ``index`` encodes the triple and
  does not depend on ``--matches``, so a journal stays valid when a run is extended.

Jobs are generated lazily, as the backend asks for them (a few per worker ahead), and each match
seed is computed when its job is made: what the runner holds before the first result does not
grow with ``--matches`` (the records of finished matches do, for the statistics).

Results are folded strictly in job order whatever order the workers finish in; the SPRT is
checked after each complete seed group, and a decision cuts the run at that group. Hence the
output is the same for any number of workers and any backend.
"""

from __future__ import annotations

import hashlib
import math
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from pathlib import Path
from types import FrameType
from typing import Any

from replay import stats
from replay.journal import Journal
from sim.backends import Backend, Task
from sim.game import Game, GameInfo, logged
from sim.games import load_game

__all__ = [
    "RunSpec",
    "Schedule",
    "load_game_cached",
    "match_seed",
    "match_seeds",
    "play_job",
    "run",
]

SEED_BITS = 48


def match_seed(seed: int, index: int) -> int:
    """Match seed ``index`` of a run started with ``--seed seed``."""
    digest = hashlib.blake2b(f"{seed}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - SEED_BITS)


def match_seeds(seed: int, count: int) -> list[int]:
    """The first ``count`` match seeds of a run started with ``--seed seed``."""
    return [match_seed(seed, i) for i in range(count)]


@dataclass(frozen=True)
class RunSpec:
    """Everything that decides a run's results (not how fast or where it runs)."""

    game: str
    strategies: tuple[str, ...]
    matches: int
    seed: int = 0
    #: Rules options given to the game's factory (``--config KEY=VALUE``).
    options: Mapping[str, Any] = field(default_factory=dict)
    #: SPRT parameters (elo0, elo1, alpha, beta) or None.
    sprt: Mapping[str, float] | None = None
    #: Per-match wall-time limit in seconds (local backend only), None for none.
    timeout: float | None = None
    #: Directory for one match log per match, for games that write them.
    logs: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The distinct strategies, in the order entered: a table such as
        ``minimax2,greedy,random,random`` seats one strategy twice but compares three."""
        return tuple(dict.fromkeys(self.strategies))

    def journal_header(self) -> dict[str, Any]:
        """The fields a resumed run must share with the journal it continues."""
        return {
            "game": self.game,
            "strategies": list(self.strategies),
            "seed": self.seed,
            "options": dict(sorted(self.options.items())),
        }


class Schedule:
    """The lineups, seatings and seeds of a run, and the job index of each match."""

    def __init__(self, info: GameInfo, strategies: Sequence[str], matches: int, seed: int):
        seats = info.num_players
        if seats < 2:
            raise ValueError(f"{info.name} has {seats} seat: the runner compares strategies")
        if len(set(strategies)) < 2:
            raise ValueError("enter at least two different strategies to compare")
        if len(set(strategies)) != len(strategies) and len(strategies) > seats:
            # A table (at most one strategy per seat) may seat a strategy twice; a round robin
            # over more strategies than seats may not: its lineups would repeat.
            raise ValueError(
                f"a strategy entered twice must be part of one table of {seats} seats, "
                f"not a round robin of {len(strategies)}"
            )
        if matches < 1:
            raise ValueError(f"--matches must be at least 1, got {matches}")
        if len(strategies) > seats:
            self.lineups = [tuple(c) for c in combinations(strategies, seats)]
        else:
            self.lineups = [tuple(strategies[i % len(strategies)] for i in range(seats))]
        self.seatings = [_rotations(lineup) for lineup in self.lineups]
        self.rotations = max(len(s) for s in self.seatings)
        self.seed_count = math.ceil(matches / self.rotations)
        self.run_seed = seed
        #: How many matches the run plays.
        self.total = self.seed_count * sum(len(s) for s in self.seatings)

    def seed(self, seed_index: int) -> int:
        """The match seed of seed group ``seed_index`` (computed, never stored: a run of 100M
        matches keeps no list of them)."""
        return match_seed(self.run_seed, seed_index)

    def jobs(self) -> Iterator[tuple[int, int, tuple[str, ...]]]:
        """(index, seed index, seats) of every match, in job order: a generator, whose memory
        does not depend on the number of matches."""
        for seed_index in range(self.seed_count):
            for lineup, seatings in enumerate(self.seatings):
                for rotation, seats in enumerate(seatings):
                    yield self.index(seed_index, lineup, rotation), seed_index, seats

    def index(self, seed_index: int, lineup: int, rotation: int) -> int:
        return (seed_index * len(self.lineups) + lineup) * self.rotations + rotation

    def seed_index(self, index: int) -> int:
        """The seed group of job ``index``."""
        return index // (len(self.lineups) * self.rotations)

    def is_job(self, index: int) -> bool:
        """Whether ``index`` is the index of a match of this run."""
        if not index >= 0 or self.seed_index(index) >= self.seed_count:
            return False
        lineup, rotation = divmod(index % (len(self.lineups) * self.rotations), self.rotations)
        return rotation < len(self.seatings[lineup])

    def group_end(self, index: int) -> bool:
        """True when ``index`` is the last job of its seed group (for the SPRT)."""
        lineup, rotation = divmod(index % (len(self.lineups) * self.rotations), self.rotations)
        return rotation == len(self.seatings[lineup]) - 1


def _rotations(lineup: tuple[str, ...]) -> list[tuple[str, ...]]:
    distinct: list[tuple[str, ...]] = []
    for shift in range(len(lineup)):
        seating = lineup[-shift:] + lineup[:-shift] if shift else lineup
        if seating not in distinct:
            distinct.append(seating)
    return distinct


# -- playing one match (runs in a worker process, or a Dask worker thread) --------------------

_GAMES: dict[tuple[str, tuple[tuple[str, Any], ...]], Game] = {}


def load_game_cached(name: str, options: Mapping[str, Any]) -> Game:
    key = (name, tuple(sorted(options.items())))
    if key not in _GAMES:
        _GAMES[key] = load_game(name, **options)
    return _GAMES[key]


class MatchTimeout(Exception):
    """A match ran past the run's per-match wall-time limit."""


def play_job(
    game_name: str,
    options: Mapping[str, Any],
    index: int,
    seed: int,
    seats: tuple[str, ...],
    timeout: float | None = None,
    logs: str | None = None,
) -> dict[str, Any]:
    """Play one match and return its journal record; an exception becomes an ``error`` field."""
    record: dict[str, Any] = {"index": index, "seed": seed, "seats": list(seats)}
    started = time.perf_counter()
    try:
        game = load_game_cached(game_name, options)
        if logs is not None:
            # Games that write match logs (the dungeon) declare it in their GameInfo.
            path = Path(logs) / f"{game_name}-{seed}-{'-'.join(seats)}.jsonl"
            result = _with_timeout(partial(logged(game).play_logged, seed, seats, path), timeout)
        else:
            result = _with_timeout(partial(game.play, seed, seats), timeout)
    except Exception as exc:
        record["error"] = _describe(exc)
    else:
        record.update(
            returns=list(result.returns),
            length=result.length,
            winner=result.winner,
            stats=[dict(figures) for figures in result.stats],
        )
        if result.think:
            record["think"] = [list(seat) for seat in result.think]
    record["seconds"] = round(time.perf_counter() - started, 4)
    return record


def _with_timeout(play: Callable[[], Any], timeout: float | None) -> Any:
    """Run ``play`` under SIGALRM when allowed (a main thread, as in pool workers)."""
    if timeout is None or threading.current_thread() is not threading.main_thread():
        return play()

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        raise MatchTimeout(f"match ran past {timeout:g} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return play()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _describe(exc: BaseException) -> str:
    """Exception type, message and the innermost frame: enough to find the bug, and stable."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


# -- the run ---------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What :func:`run` hands back: the report (JSON-ready) and how the run ended."""

    report: dict[str, Any]
    #: Matches played by this invocation (not read back from a journal).
    played: int
    #: Matches taken from the journal of an earlier, interrupted run.
    resumed: int


def run(
    spec: RunSpec,
    backend: Backend,
    journal: Journal | None = None,
    on_match: Callable[[int, int], None] | None = None,
) -> Outcome:
    """Play the run's matches (skipping those in ``journal``) and summarise them.

    ``on_match(done, total)`` is called after each match is folded in (the progress bar). A
    KeyboardInterrupt leaves every finished match in the journal.
    """
    started = time.perf_counter()
    game = load_game_cached(spec.game, spec.options)
    schedule = Schedule(game.info, spec.strategies, spec.matches, spec.seed)
    sprt = _make_sprt(spec, schedule)
    done: dict[int, dict[str, Any]] = dict(journal.done) if journal is not None else {}
    resumed = sum(1 for index in done if schedule.is_job(index))
    total = schedule.total
    options = dict(spec.options)
    # Generated as the backend asks for them (a few per worker ahead), never listed.
    tasks: Iterator[Task] = (
        (
            index,
            play_job,
            (spec.game, options, index, schedule.seed(seed_index), seats, spec.timeout, spec.logs),
        )
        for index, seed_index, seats in schedule.jobs()
        if index not in done
    )
    kept: list[dict[str, Any]] = []
    order = schedule.jobs()  # the next job to fold, in job order
    waiting: int | None = next(order)[0]
    played = 0

    def fold() -> bool:
        """Fold finished jobs in job order; True once the SPRT has decided."""
        nonlocal waiting
        while waiting is not None and waiting in done:
            index = waiting
            kept.append(done[index])
            waiting = next(order, (None,))[0]
            if sprt is not None and schedule.group_end(index):
                group = [r for r in kept[-len(schedule.seatings[0]) :] if "error" not in r]
                if group:
                    a, b = spec.strategies
                    scores = [stats.pairwise_score(_as_game(r, 0), a, b) for r in group]
                    if sprt.add(sum(scores) / len(scores)) is not None:
                        return True
        return False

    if on_match is not None:
        on_match(resumed, total)
    decided = fold()
    if not decided:
        results = backend.run(tasks)
        try:
            for index, record in results:
                played += 1
                if journal is not None:
                    journal.append(record)
                done[index] = record
                if on_match is not None:
                    on_match(resumed + played, total)
                if fold():
                    break
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()
    report = summarize(spec, schedule, kept, sprt)
    report["timing"] = {
        "seconds": round(time.perf_counter() - started, 3),
        "played": played,
        "resumed": resumed,
        "backend": backend.describe(),
        "match_seconds": round(sum(r.get("seconds", 0.0) for r in kept), 3),
    }
    think = think_per_request(kept)
    if think:
        report["timing"]["think_us"] = think
    return Outcome(report, played, resumed)


def think_per_request(records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Strategy -> mean microseconds of thinking per request, over the records that measured
    it (the dungeon's timed schedule): this machine's cost, beside the schedule's model."""
    seconds: dict[str, float] = {}
    requests: dict[str, int] = {}
    for record in records:
        for name, (spent, made) in zip(record["seats"], record.get("think") or (), strict=False):
            seconds[name] = seconds.get(name, 0.0) + spent
            requests[name] = requests.get(name, 0) + made
    return {
        name: round(1e6 * seconds[name] / requests[name], 1)
        for name in sorted(seconds)
        if requests[name]
    }


def _make_sprt(spec: RunSpec, schedule: Schedule) -> stats.Sprt | None:
    if spec.sprt is None:
        return None
    if len(spec.names) != 2:
        raise ValueError("--sprt compares exactly two strategies")
    return stats.Sprt(**spec.sprt, games_per_group=len(schedule.seatings[0]))


def _as_game(record: Mapping[str, Any], group: int) -> stats.GameRecord:
    return stats.GameRecord(
        group=group,
        seats=tuple(record["seats"]),
        returns=tuple(record["returns"]),
        length=record["length"],
        stats=tuple(record.get("stats") or ()),
    )


def summarize(
    spec: RunSpec, schedule: Schedule, records: Sequence[Mapping[str, Any]], sprt: stats.Sprt | None
) -> dict[str, Any]:
    """The JSON report of a run from its records in job order. No timings: see ``run``."""
    games = [_as_game(r, schedule.seed_index(r["index"])) for r in records if "error" not in r]
    pairings = [
        stats.pairing_summary(a, b, [g for g in games if a in g.seats and b in g.seats])
        for a, b in combinations(spec.names, 2)
    ]
    report: dict[str, Any] = {
        "game": spec.game,
        "seed": spec.seed,
        "matches": spec.matches,
        "strategies": list(spec.strategies),
        "options": dict(sorted(spec.options.items())),
        "seeds": len({g.group for g in games}),
        "games": len(games),
        "failed": [
            {"seed": r["seed"], "seats": r["seats"], "error": r["error"]}
            for r in records
            if "error" in r
        ],
        "pairings": pairings,
        "teams": [
            {
                "strategy": name,
                "games": sum(1 for g in games if name in g.seats),
                "stats": stats.mean_stats(games, name),
            }
            for name in spec.names
        ],
    }
    if len(spec.names) > 2:
        report["ratings"] = stats.ratings(games, spec.names)
    if sprt is not None:
        report["sprt"] = sprt.to_json()
    return report
