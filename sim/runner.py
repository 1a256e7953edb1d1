"""The batch runner: a run's matches (their schedule: :mod:`sim.schedule`) handed to a backend
as jobs (:mod:`sim.job`), and the results folded in job order into the run's report.

Jobs are generated lazily, as the backend asks for them (a few per worker ahead), and each match
seed is computed when its job is made: what the runner holds before the first result does not
grow with ``--matches`` (the records of finished matches do, for the statistics).

Results are folded strictly in job order whatever order the workers finish in; the SPRT is
checked after each complete seed group, and a decision cuts the run at that group. Hence the
output is the same for any number of workers and any backend.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from replay import stats
from replay.journal import Journal
from sim.backends import Backend, Task
from sim.job import load_game_cached, play_job
from sim.schedule import Schedule

__all__ = ["Outcome", "RunSpec", "run", "summarize", "think_per_request"]


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
