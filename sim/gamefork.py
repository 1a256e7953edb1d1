"""``arena replay fork`` of a Fish or Labyrinth game log: "what if" from the state after line N.

The game is re-run on its rules up to line N of the log (every answer or move on or before it, as
logged), then played on in memory by the strategies given, one a seat: Fish's players answer the
referee's calls as ``arena fish clients`` do (``client.fish.choose``), Labyrinth's are the
training players (astar, random). Its log, when asked for, is of the shared format: the
original's inputs up to N, then the new ones, so ``arena replay verify`` checks a fork like any
log; its header names the original (``forked_from``). Penguins games are played by programs, not
strategies here: they are not forked.
"""

from __future__ import annotations

import dataclasses
import random
import time
from pathlib import Path
from typing import Any

from replay.gamerecord import GameRecord

__all__ = ["GameForkError", "fork_game"]

#: Each game's strategies a fork can play.
STRATEGIES = {
    "fish": ("random", "greedy", "minimax1", "minimax2", "paranoid"),
    "labyrinth": ("astar", "random"),
}


class GameForkError(ValueError):
    """A fork that cannot be made (the message names what is wrong, in one line)."""


def _inputs_through(record: GameRecord, at: int) -> int:
    """How many of the log's inputs stand on or before line ``at``."""
    kinds = ("reply", "failure", "move")
    if record.chain is not None:
        lines = [data for number, data in record.chain.lines if number <= at]
        return sum(1 for data in lines if data.get("event") in kinds)
    records = record.records[: max(0, at - 1)]
    return sum(1 for r in records if r.get("event", r.get("type")) in kinds)


def fork_game(
    record: GameRecord,
    *,
    at: int,
    strategies: tuple[str, ...],
    seed_offset: int = 0,
    output: str | None = None,
) -> list[str]:
    """Play ``record``'s game on from line ``at`` with ``strategies``; the lines to print."""
    known = STRATEGIES.get(record.game)
    if known is None:
        raise GameForkError(f"a {record.game} game is played by programs: it is not forked")
    wrong = [name for name in strategies if name not in known]
    if wrong:
        raise GameForkError(f"--strategies: {wrong[0]!r} is not one of {', '.join(known)}")
    if at < 1:
        raise GameForkError(f"--at {at}: the log's lines start at 1")
    keep = _inputs_through(record, at)
    rng = random.Random(seed_offset)
    forked = {"log": Path(record.path).name, "at": at, "strategies": list(strategies),
              "seed_offset": seed_offset}  # fmt: skip
    if record.game == "fish":
        return _fish(record, keep, strategies, rng, output, forked)
    return _labyrinth(record, keep, strategies, rng, output, forked)


def _fish(
    record: GameRecord,
    keep: int,
    strategies: tuple[str, ...],
    rng: random.Random,
    output: str | None,
    forked: dict[str, Any],
) -> list[str]:
    from client.fish import choose
    from fish.loglines import log_call, log_record
    from fish.referee import Failure, GameResult, Referee, Reply
    from floes.effects import Record, Send
    from replay.fishlog import FishGameLog

    header = record.header
    players, cols = list(header["players"]), header["cols"]
    if len(strategies) != len(players):
        raise GameForkError(f"--strategies: give {len(players)} names, one a seat")
    referee = Referee(header["rows"], cols, list(header["board"]), len(players))
    log = FishGameLog(
        None if output is None else Path(output), time.monotonic, version=_version(),
        extra={"forked_from": forked},
    )  # fmt: skip
    log.write("game", **{k: v for k, v in header.items() if k not in ("t", "event")})
    answers = [r for r in record.records if r.get("event") in ("reply", "failure")][:keep]
    played = 0
    effects = referee.start()
    result: GameResult | None = None
    while result is None:
        call = None
        for effect in effects:
            if isinstance(effect, Send):
                call = (effect.seat, effect.message.to_json())
                log_call(log.write, effect, call[1])
            elif isinstance(effect, Record):
                log_record(log.write, effect.entry, cols, players)
                if isinstance(effect.entry, GameResult):
                    result = effect.entry
        if call is None:
            break
        seat, (name, args) = call
        if answers:
            answer = answers.pop(0)
            seconds = answer.get("seconds", 0.0)
            if answer["event"] == "reply":
                effects = referee.apply(Reply(seat, answer.get("value"), seconds))
            else:
                effects = referee.apply(Failure(seat, str(answer.get("reason")), seconds))
        else:
            played += 1
            value: Any = "void"
            if name in ("setup", "take-turn"):
                value = choose(strategies[seat], name, args, rng)
            effects = referee.apply(Reply(seat, value))
    log.close()
    assert result is not None
    winners = [players[s] for s in result.winners]
    lines = [
        f"fork of {forked['log']} after line {forked['at']}: {keep} answers as logged, "
        f"{played} played by {', '.join(strategies)}",
        f"  winners: {', '.join(winners) or 'none'}; scores {list(result.scores)}",
    ]
    if output is not None:
        lines.append(f"  wrote {output}")
    return lines


def _labyrinth(
    record: GameRecord,
    keep: int,
    strategies: tuple[str, ...],
    rng: random.Random,
    output: str | None,
    forked: dict[str, Any],
) -> list[str]:
    from labyrinth.players import astar_move, random_move
    from labyrinth.rules import PROFILES, Labyrinth, Move
    from replay.labyrinthlog import LabyrinthGameLog

    header = record.header
    if len(strategies) != 2:
        raise GameForkError("--strategies: give 2 names, seat A's and seat B's")
    profile = dataclasses.replace(PROFILES[header["rules"]], max_turns=int(header["max_turns"]))
    lab = Labyrinth.from_maze_text(header["width"], header["height"], header["maze"], profile)
    moves = [r for r in record.records if r.get("type") == "move"][:keep]
    writer = None
    if output is not None:
        writer = LabyrinthGameLog(
            Path(output), {k: v for k, v in header.items() if k != "t"},
            clock=time.monotonic, version=_version(), extra={"forked_from": forked},
        )  # fmt: skip
    played = 0
    while not lab.over:
        seat = lab.to_move
        if moves:
            move = Move(*moves.pop(0)["move"])
        else:
            played += 1
            move = astar_move(lab) if strategies[seat] == "astar" else random_move(lab, rng, True)
        code = lab.play(move)
        if writer is not None:
            writer.write({"type": "move", "turn": lab.turn, "player": seat,
                          "move": [int(move[0]), int(move[1])], "code": int(code),
                          "energies": list(lab.energies)})  # fmt: skip
    if writer is not None:
        writer.write({"type": "end", "turn": lab.turn, "winner": lab.winner,
                      "reason": lab.end_reason})  # fmt: skip
        writer.close()
    names = header["players"]
    who = "draw" if lab.winner is None else f"{names[lab.winner]} wins"
    lines = [
        f"fork of {forked['log']} after line {forked['at']}: {keep} moves as logged, "
        f"{played} played by {', '.join(strategies)}",
        f"  {who} ({lab.end_reason}) after {lab.turn} turns",
    ]
    if output is not None:
        lines.append(f"  wrote {output}")
    return lines


def _version() -> str:
    from replay.chainlog import software_version

    return software_version()
