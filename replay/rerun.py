"""Re-run the rules engine from a match log and compare every line it should have written.

A log is a sequence: header, the output of ``Match.begin()``, then for each input its ``input``
line followed by the lines of its output; ``optimum`` lines may fall anywhere (the server writes
them when a check finishes); ``close`` ends a complete log. Re-running the engine from the seed
and configuration with the logged inputs must reproduce every engine event and every message,
in order; the first line that differs is the verdict.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from replay.reader import LogLine, MatchLog
from replay.records import CLOSE, HEADER, INPUT, OPTIMUM, output_records, software_version

if TYPE_CHECKING:
    from dungeon.engine import Disconnect, Match, Request, TimeUp

    EngineInput = Request | Disconnect | TimeUp

__all__ = ["Difference", "Verdict", "engine_input", "new_match", "replay_until", "verify_log"]


@dataclass(frozen=True, slots=True)
class Difference:
    """The first line where the log and the re-run disagree."""

    line: int
    expected: str
    found: str
    #: where inside the event they first differ (a field path), when both are events
    where: str | None = None


@dataclass(slots=True)
class Verdict:
    """The outcome of re-running a log."""

    difference: Difference | None = None
    #: the last line that was checked (all of them unless a difference stopped the run)
    verified_through: int = 0
    inputs: int = 0
    #: optimum lines whose value was recomputed and matched (``check_optimum``)
    optima_checked: int = 0
    warnings: list[str] = field(default_factory=list)
    #: what the re-run expects on the line after the last one checked: the next output line,
    #: or None when an input, optimum or close line may come (shown beside a broken chain)
    pending: str | None = None

    @property
    def ok(self) -> bool:
        return self.difference is None


def new_match(log: MatchLog) -> Match:
    """A fresh engine with the log's seed and rules configuration."""
    from dungeon.config import RulesConfig
    from dungeon.engine import Match

    return Match(log.seed, RulesConfig.from_dict(log.config))


def engine_input(line: LogLine) -> EngineInput:
    """The engine input an ``input`` line records. Raises ValueError naming what is wrong."""
    from dungeon.engine import AgentId, Disconnect, Request, TimeUp
    from protocol.messages import ClientMessage

    data = line.data
    kind = data.get("kind")
    try:
        if kind == "request":
            message = msgspec.convert(data["message"], ClientMessage)
            return Request(AgentId(int(data["team"]), int(data["agent"])), message)
        if kind == "disconnect":
            return Disconnect(AgentId(int(data["team"]), int(data["agent"])))
        if kind == "time_up":
            return TimeUp()
    except (KeyError, TypeError, ValueError, msgspec.ValidationError) as error:
        raise ValueError(f"line {line.line}: unreadable {kind} input: {error}") from error
    raise ValueError(f"line {line.line}: unknown input kind {kind!r}")


def _show(record: Any, limit: int = 400) -> str:
    if record is None:
        return "(nothing)"
    text = json.dumps(record, separators=(", ", ": "))
    return text if len(text) <= limit else text[: limit - 3] + "..."


_MISSING = object()


def _as_logged_then(want: dict[str, Any], found: dict[str, Any]) -> dict[str, Any]:
    """``want`` without the ``code`` of an error when the logged error has none: logs written
    before errors carried codes verify unchanged (the text still has to match)."""
    message = want.get("message")
    if (
        want.get("event") == "send"
        and isinstance(message, dict)
        and message.get("type") == "error"
        and "code" not in (found.get("message") or {})
    ):
        return {**want, "message": {k: v for k, v in message.items() if k != "code"}}
    return want


def divergence(expected: Any, found: Any, path: str = "") -> str | None:
    """Where two plain-data values first differ, e.g. ``traps[23][1]: 5 != -5``; None if equal."""
    if isinstance(expected, dict) and isinstance(found, dict):
        for key in [*expected, *(k for k in found if k not in expected)]:
            want, got = expected.get(key, _MISSING), found.get(key, _MISSING)
            where = f"{path}.{key}" if path else str(key)
            if want is _MISSING or got is _MISSING:
                side = "the re-run" if want is _MISSING else "the log"
                return f"{where}: missing from {side}"
            inner = divergence(want, got, where)
            if inner is not None:
                return inner
        return None
    if isinstance(expected, list) and isinstance(found, list):
        for index, (want, got) in enumerate(zip(expected, found, strict=False)):
            inner = divergence(want, got, f"{path}[{index}]")
            if inner is not None:
                return inner
        if len(expected) != len(found):
            return f"{path}: {len(expected)} items expected, {len(found)} found"
        return None
    if expected != found or type(expected) is not type(found):
        return f"{path or 'value'}: expected {_show(expected, 80)}, found {_show(found, 80)}"
    return None


def _logged(line: LogLine) -> dict[str, Any]:
    return {key: value for key, value in line.data.items() if key not in ("seq", "t")}


def verify_log(log: MatchLog, *, check_optimum: bool = False) -> Verdict:
    """Re-run ``log`` through the engine and report the first line that differs.

    A log cut short is verified up to its last line (the missing output of its last input is
    not a difference). A broken hash chain is reported by the caller from ``log.bad``; this
    checks the lines before it. ``check_optimum`` recomputes each logged optimum (slow: a SAT
    or MaxSAT call per crossing).
    """
    verdict = Verdict()
    logged_version = log.header.get("version")
    if logged_version != software_version():
        verdict.warnings.append(
            f"the log was written by dungeon-arena {logged_version}, this is "
            f"{software_version()}: an exact replay needs the same rules"
        )
    if log.digest:
        return _verify_digest_log(log, verdict, check_optimum)
    try:
        match = new_match(log)
    except ValueError as error:
        verdict.difference = Difference(1, "a rules configuration this version accepts", str(error))
        return verdict
    problems: dict[int, Any] = {}
    expected: deque[dict[str, Any]] = deque(output_records(match.begin()))
    for line in log.events:
        verdict.verified_through = line.line
        if line.event == HEADER:
            continue
        if line.event == OPTIMUM:
            if check_optimum:
                difference = _check_optimum(line, problems)
                if difference is not None:
                    verdict.difference = difference
                    return verdict
                verdict.optima_checked += 1 if line.data.get("value") is not None else 0
            continue
        if line.event in (INPUT, CLOSE) and expected:
            verdict.difference = Difference(line.line, _show(expected[0]), _show(_logged(line)))
            return verdict
        if line.event == CLOSE:
            continue
        if line.event == INPUT:
            try:
                event = engine_input(line)
                expected.extend(output_records(match.apply(event)))
            except Exception as error:  # any engine failure is the verdict
                verdict.difference = Difference(
                    line.line, "an input the engine accepts", f"{_show(_logged(line))}: {error!r}"
                )
                return verdict
            verdict.inputs += 1
            continue
        found = _logged(line)
        want = _as_logged_then(expected.popleft(), found) if expected else None
        if want != found:
            where = None if want is None else divergence(want, found)
            verdict.difference = Difference(line.line, _show(want), _show(found), where)
            return verdict
        if found["event"] == "trap_problem":
            problems[found.get("crossing", -1)] = found
    if expected and log.complete:
        last = log.events[-1].line
        verdict.difference = Difference(last, _show(expected[0]), "(the log ends)")
    verdict.pending = _show(expected[0]) if expected else None
    return verdict


def _verify_digest_log(log: MatchLog, verdict: Verdict, check_optimum: bool) -> Verdict:
    """A digest log was re-run as it was read (its outputs are the re-run's, each checked
    against the logged digest): the verdict is the reader's, plus the optima if asked."""
    verdict.inputs = log.regenerated_inputs
    if log.digest_difference is not None:
        line, recomputed, logged = log.digest_difference
        verdict.difference = Difference(
            line, f"output digest {recomputed} (the re-run's)", f"output digest {logged}"
        )
    problems: dict[int, Any] = {}
    for entry in log.events:
        verdict.verified_through = entry.line
        if entry.event == "trap_problem":
            problems[entry.data.get("crossing", -1)] = entry.data
        elif entry.event == OPTIMUM and check_optimum and verdict.difference is None:
            difference = _check_optimum(entry, problems)
            if difference is not None:
                verdict.difference = difference
                return verdict
            verdict.optima_checked += 1 if entry.data.get("value") is not None else 0
    return verdict


def _check_optimum(line: LogLine, problems: dict[int, Any]) -> Difference | None:
    from dungeon.traps import optimum

    value = line.data.get("value")
    crossing = line.data.get("crossing")
    problem = problems.get(crossing)  # type: ignore[arg-type]
    if problem is None:
        return Difference(line.line, f"an earlier trap_problem for crossing {crossing}", "none")
    if value is None:
        return None  # the check timed out when the log was written: nothing to compare
    best = optimum(problem["traps"], int(problem["switches"]))
    if best != value:
        return Difference(line.line, f"optimum {best} for crossing {crossing}", f"{value}")
    return None


def replay_until(log: MatchLog, last_line: int) -> tuple[Match, list[tuple[LogLine, Any]]]:
    """The engine after every input on or before ``last_line``, with each (input line, output),
    the output of ``begin()`` first (paired with the header line)."""
    match = new_match(log)
    outputs: list[tuple[LogLine, Any]] = [(log.events[0], match.begin())]
    for line in log.inputs:
        if line.line > last_line:
            break
        outputs.append((line, match.apply(engine_input(line))))
    return match, outputs
