"""``arena replay fork LOG --at N --strategies A,B``: "what if" from the state after line N.

The fork re-runs the logged match through the engine up to line N (every input on or before it,
each compared with the log as ``verify`` does), with two fresh strategies watching every message
their team's sockets got, then plays on headless in logical steps (spec section 6) with them.
Its own log, when asked for, repeats the original's lines up to N (with the original's
``optimum`` lines in place), so ``replay verify`` checks a fork like any log and its first N
lines carry the same events as the original's.

Seeds: the fork's step order and strategy seeds come from the simulator's own streams
(``sim.dungeon``) of ``seed + seed_offset``: vary ``--seed-offset`` for different futures.
The trap problems and dice continue the match generator exactly where the original left it.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dungeon.events import Crossing, TrapProblem
from replay.matchlog import (
    INPUT,
    OPTIMUM,
    MatchLog,
    MatchLogWriter,
    output_records,
    software_version,
)
from replay.rerun import divergence, engine_input, new_match
from replay.story import who

if TYPE_CHECKING:
    from dungeon.engine import Match, Output

__all__ = ["ForkError", "ForkResult", "fork"]


class ForkError(Exception):
    """The fork cannot start: a line past the log's end or its first bad line, an unknown
    strategy, a match already over, or a log that does not re-run."""


@dataclass(slots=True)
class ForkResult:
    log: str
    at: int
    strategies: tuple[str, str]
    seed_offset: int
    inputs_replayed: int
    heirs: tuple[int, int]
    steps: int = 0
    winner: int | None = None
    reason: str | None = None
    original: str = ""
    output: str | None = None
    lines_written: int = 0
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        result = "a draw" if self.winner is None else f"team {self.winner} wins"
        out = [
            f"forked {self.log} after line {self.at} ({self.inputs_replayed} inputs replayed; "
            f"heirs at {self.heirs[0]} and {self.heirs[1]})",
            f"  strategies: team 0 {self.strategies[0]}, team 1 {self.strategies[1]}; "
            f"seed offset {self.seed_offset}",
            f"  fork:     {result} ({self.reason}) after {self.steps} steps",
            f"  original: {self.original}",
        ]
        out += [f"  {note}" for note in self.notes]
        if self.output is not None:
            out.append(f"  wrote {self.output} ({self.lines_written} lines)")
        return out


def _original_result(log: MatchLog) -> str:
    for line in log.outputs:
        if line.event == "game_over":
            winner = line.data.get("winner")
            result = "a draw" if winner is None else f"team {winner} wins"
            return f"{result} ({line.data.get('reason')}) at line {line.line}"
    return "no result in the log"


def fork(
    log: MatchLog,
    *,
    at: int,
    strategies: tuple[str, str],
    seed_offset: int = 0,
    steps: int | None = None,
    output: str | Path | None = None,
    optimum: bool = False,
) -> ForkResult:
    """Fork ``log`` after line ``at`` and play it out headless; write the fork's log to
    ``output`` if given. Raises ForkError naming the cause."""
    from client.strategies.base import make_strategy
    from sim.dungeon_steps import deliver, play_steps, step_order_generator, strategy_seed
    from sim.plugins import dungeon_strategy

    if not log.events:
        raise ForkError(f"the log breaks at {log.bad}: nothing to fork from")
    last = log.events[-1].line
    if not 1 <= at <= last:
        raise ForkError(f"--at {at}: the log's lines are 1 to {last}")
    if log.bad is not None and at >= log.bad.line:
        raise ForkError(f"--at {at}: the log breaks at {log.bad}; fork before it")
    fork_seed = log.seed + seed_offset
    try:
        teams = [
            make_strategy(name, team, strategy_seed(fork_seed, team), load=dungeon_strategy)
            for team, name in enumerate(strategies)
        ]
    except ValueError as error:
        raise ForkError(str(error)) from None
    try:
        match = new_match(log)
    except ValueError as error:
        raise ForkError(f"the log's rules configuration: {error}") from None

    stream = None if output is None else open(output, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
    try:
        writer = None if stream is None else MatchLogWriter(stream, clock=time.monotonic)
        if writer is not None:
            writer.header(
                seed=log.seed,
                config=log.config,
                version=software_version(),
                match=log.header.get("match"),
                source="sim",
                forked_from={
                    "log": Path(log.path).name,
                    "at": at,
                    "strategies": list(strategies),
                    "seed_offset": seed_offset,
                },
            )
        replayed = _replay_prefix(log, at, match, writer, lambda out: deliver(out, teams))
        if match.is_over:
            raise ForkError(f"--at {at}: the match is already over there; fork earlier")
        heirs = (match.location(_heir(0)), match.location(_heir(1)))
        result = ForkResult(
            log=log.path, at=at, strategies=strategies, seed_offset=seed_offset,
            inputs_replayed=replayed, heirs=heirs, original=_original_result(log),
            output=None if output is None else str(output),
        )  # fmt: skip
        for team in (0, 1):
            committed = [a for a in range(6) if match.committed(_agent(team, a)) is not None]
            if committed:
                names = ", ".join(who(team, a) for a in committed)
                result.notes.append(f"committed at the fork, answering first: {names}")
        problems: dict[int, Any] = {}

        def after(out: Output) -> None:
            if writer is None:
                return
            writer.output(out)
            if optimum:
                _log_optima(out, problems, log.config, writer)

        result.steps = play_steps(
            match,
            teams,
            step_order_generator(fork_seed),
            steps if steps is not None else int(log.config.get("draw_steps", 2000)),
            before=None if writer is None else writer.input,
            after=after,
        )
        result.winner = match.winner
        result.reason = match.end_reason
        if writer is not None:
            writer.close(reason="game_over")
            result.lines_written = writer.lines_written
        return result
    finally:
        if stream is not None:
            stream.close()


def _heir(team: int) -> Any:
    return _agent(team, 0)


def _agent(team: int, agent: int) -> Any:
    from dungeon.engine import AgentId

    return AgentId(team, agent)


def _replay_prefix(
    log: MatchLog,
    at: int,
    match: Match,
    writer: MatchLogWriter | None,
    deliver: Any,
) -> int:
    """Apply every input on or before line ``at``, checking each output against the log and
    copying it (and the original's optimum lines) to ``writer``. Returns the inputs applied."""
    expected: deque[dict[str, Any]] = deque()

    def emit(out: Output) -> None:
        if writer is not None:
            writer.output(out)
        deliver(out)
        expected.extend(output_records(out))

    emit(match.begin())
    inputs = 0
    for line in log.events[1:]:
        if line.event == INPUT:
            if line.line > at:
                break
            event = engine_input(line)
            if writer is not None:
                writer.input(event)
            emit(match.apply(event))
            inputs += 1
        elif line.event == OPTIMUM:
            if line.line > at:
                break
            if writer is not None:
                writer.optimum(int(line.data["crossing"]), line.data.get("value"))
        elif expected:
            found = {k: v for k, v in line.data.items() if k not in ("seq", "t")}
            want = expected.popleft()
            if want != found:
                raise ForkError(
                    f"line {line.line}: the log does not re-run ({divergence(want, found)}); "
                    f"see arena replay verify"
                )
    return inputs


def _log_optima(
    out: Output, problems: dict[int, Any], config: dict[str, Any], writer: MatchLogWriter
) -> None:
    from dungeon.traps import optimum

    for fact in out.events:
        if isinstance(fact, TrapProblem):
            problems[fact.crossing] = fact
        elif isinstance(fact, Crossing):
            problem = problems.pop(fact.crossing, None)
            if problem is not None:
                value = optimum(problem.traps, problem.switches) if fact.active else 0
                writer.optimum(fact.crossing, value)
