"""Fish game logs in the shared format (:mod:`replay.chainlog`): written by the server, re-run
on the referee when read.

What a Fish game cannot recompute: the board and the players (the header), and each player's
answer in order: ``reply`` (the value, ``seconds`` it took) or ``failure`` (timeout, disconnect,
bad bytes). The referee derives the rest: the call each answer replies to (as sent on the wire)
and its verdict, logged as their digest ``out``; the result is on the close line. Reading
regenerates the records of the old format (``call``, ``reply``/``failure``, ``verdict``,
``result``: fish/gamelog.py), so every tool reads either.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from fish.loglines import action_json, as_dict, log_record
from fish.referee import Effect, Failure, Referee, Reply, Verdict
from floes.effects import Record
from replay.chainlog import GameLogWriter, records_digest
from replay.gamerecord import GameRecord, read_one

__all__ = [
    "FishGameLog",
    "action_json",
    "read_fish",
    "regenerate",
    "verify_records",
]

#: What the old format's header holds beyond the players.
_CONFIG_KEYS = ("round", "game", "colors", "rows", "cols", "board")


def _verdict_record(verdict: Verdict, cols: int) -> dict[str, Any]:
    lines: list[dict[str, Any]] = []
    log_record(lambda event, **fields: lines.append(as_dict(event, **fields)), verdict, cols, ())
    return lines[0]


def _verdict(effects: list[Effect]) -> Verdict:
    """The verdict among the referee's effects of an answer."""
    return next(e.entry for e in effects if isinstance(e, Record) and isinstance(e.entry, Verdict))


def _call(referee: Referee) -> dict[str, Any] | None:
    """The pending call as its log line (``seat``, ``name``, ``args`` as sent), or None."""
    send = referee.pending
    if send is None:
        return None
    wire = send.message.to_json()
    return {"seat": send.seat, "name": wire[0], "args": wire[1]}


def _answer(referee: Referee, event: str, record: dict[str, Any]) -> Verdict:
    """The verdict of the logged answer ``record`` (a ``reply`` or ``failure``) to the pending
    call."""
    send = referee.pending
    assert send is not None
    if event == "reply":
        return _verdict(referee.apply(Reply(send.seat, record.get("value"))))
    return _verdict(referee.apply(Failure(send.seat, str(record.get("reason")))))


def _derived(call: dict[str, Any], verdict: dict[str, Any]) -> list[dict[str, Any]]:
    """The digest's records: the call as sent and the verdict, without times."""
    return [{k: v for k, v in record.items() if k != "t"} for record in (call, verdict)]


class FishGameLog:
    """The server's game log: the same ``write(event, **fields)`` calls as the old format's
    :class:`fish.gamelog.JsonlLog` (``game``, ``call``, ``reply``/``failure``, ``verdict``,
    ``result``), written as the shared format: a ``reply`` or ``failure`` line with the digest of
    its call and verdict, the result on the close line. ``path`` None: no log."""

    def __init__(
        self,
        path: Path | None,
        now: Callable[[], float],
        key: bytes | None = None,
        *,
        version: str = "",
        seed: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.path = path
        self._version, self._seed = version, seed
        self._extra = extra or {}
        self._file: IO[bytes] | None = None
        self._writer: GameLogWriter | None = None
        self._call: dict[str, Any] | None = None
        self._answer: tuple[str, dict[str, Any]] | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("wb")
            self._writer = GameLogWriter(self._file, clock=now, key=key)

    def write(self, event: str, **fields: Any) -> None:
        writer = self._writer
        if writer is None or writer.closed:
            return
        if event == "game":
            config = {key: fields[key] for key in _CONFIG_KEYS}
            writer.header(
                game="fish", seed=self._seed, config=config, players=fields["players"],
                version=self._version, source="server", **self._extra,
            )  # fmt: skip
        elif event == "call":
            self._call = {"event": "call", **fields}
        elif event in ("reply", "failure"):
            self._answer = (event, fields)
        elif event == "verdict" and self._call is not None and self._answer is not None:
            kind, answer = self._answer
            writer.record(kind, answer, derived=_derived(self._call, {"event": event, **fields}))
            self._call = self._answer = None
        elif event == "result":
            writer.close(reason="over", result=fields)

    def close(self) -> None:
        if self._writer is not None and self._writer.started and not self._writer.closed:
            self._writer.close(reason="shutdown")  # the game stopped before its result
        if self._file is not None:
            self._file.close()
            self._file = None


def regenerate(
    header: dict[str, Any], lines: list[tuple[int, dict[str, Any]]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The old format's records of a shared-format Fish log (its header first), the referee
    re-run over its answers; and where the re-run differs from a logged digest."""
    config = header["config"]
    players = list(header["players"])
    old_header = {"t": 0.0, "event": "game", "log": "fish-game", "players": players}
    old_header |= {key: config[key] for key in _CONFIG_KEYS}
    records = [old_header]
    problems: list[str] = []
    referee = Referee(config["rows"], config["cols"], list(config["board"]), len(players))
    referee.start()
    for number, data in lines:
        event, t = data["event"], data.get("t", 0.0)
        if event in ("reply", "failure"):
            call = _call(referee)
            if call is None:
                problems.append(f"line {number}: an answer after the game ended")
                break
            seat = call["seat"]
            if data.get("seat") != seat:
                problems.append(f"line {number}: seat {data.get('seat')} answered, the "
                                f"referee called seat {seat}")  # fmt: skip
                break
            call_record = {"t": t, "event": "call", **call}
            verdict = _answer(referee, event, data)
            if event == "reply":
                answer = {"seat": seat, "value": data.get("value")}
            else:
                answer = {"seat": seat, "reason": data.get("reason")}
            answer["seconds"] = data.get("seconds")
            verdict_record = {"t": t, **_verdict_record(verdict, config["cols"])}
            # JSON round trip: the call's arguments as a reader of the log sees them
            derived = _derived(call_record, verdict_record)
            if records_digest(derived) != data.get("out"):
                problems.append(f"line {number}: the referee's call or verdict differs from "
                                f"the logged digest (out {data.get('out')})")  # fmt: skip
                break
            records += [call_record, {"t": t, "event": event, **answer}, verdict_record]
        elif event == "close":
            result = data.get("result")
            if isinstance(result, dict):
                records.append({"t": t, "event": "result", **result})
                problems += _result_problems(referee, players, result, number)
        else:
            problems.append(f"line {number}: unknown line kind {event!r}")
            break
    return records, problems


def _result_problems(
    referee: Referee, players: list[str], found: dict[str, Any], number: int
) -> list[str]:
    """What is wrong with a logged result, the referee's game being where the log ends."""
    if referee.pending is not None:
        return [f"line {number}: a result before the referee ended the game"]
    result = referee.result()
    expected = {
        "winners": [players[s] for s in result.winners],
        "failed": [players[s] for s in result.failed],
        "cheaters": [players[s] for s in result.cheaters],
        "scores": list(result.scores),
    }
    if {key: found.get(key) for key in expected} != expected:
        return [f"line {number}: the result is not the referee's ({expected})"]
    return []


def verify_records(records: list[dict[str, Any]]) -> tuple[list[str], int]:
    """Re-run the referee over an old-format Fish game log's records (its header first): each
    call and verdict and the result must be the referee's. The differences, and the answers
    re-run."""
    header = records[0]
    players = header["players"]
    cols = header["cols"]
    referee = Referee(header["rows"], cols, list(header["board"]), len(players))
    referee.start()
    problems: list[str] = []
    call = None
    answers = 0
    for number, record in enumerate(records[1:], start=2):
        event = record.get("event")
        if event == "call":
            call = expected = _call(referee)
            found = {k: record.get(k) for k in ("seat", "name", "args")}
            if expected is None or _plain(expected) != _plain(found):
                problems.append(f"line {number}: the call is not the referee's ({expected})")
                break
        elif event in ("reply", "failure"):
            if call is None:
                problems.append(f"line {number}: an answer without its call")
                break
            answers += 1
            verdict = _answer(referee, event, record)
            call = None
        elif event == "verdict":
            expected_verdict = _verdict_record(verdict, cols)
            found_verdict = {"event": "verdict", **{k: record.get(k) for k in
                             ("seat", "kind", "reason", "action")}}  # fmt: skip
            if _plain(expected_verdict) != _plain(found_verdict):
                problems.append(f"line {number}: the verdict is not the referee's "
                                f"({expected_verdict})")  # fmt: skip
                break
        elif event == "result":
            problems += _result_problems(referee, players, record, number)
    return problems, answers


def _plain(value: Any) -> Any:
    """Tuples as lists: a record as read back from JSON."""
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def read_fish(path: str | Path, *, key: bytes | None = None) -> GameRecord:
    """A Fish game log of either format, its records regenerated (replay/gamerecord.py)."""
    return read_one(path, "fish", regenerate, key=key)
