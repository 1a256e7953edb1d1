"""``arena replay fork`` of a Fish, Labyrinth or Penguins game log: "what if" from the state
after line N.

The game is re-run on its rules up to line N of the log (every answer, move or call on or before
it, as logged), then played on in memory by the strategies given, one a seat: Fish's players
answer the referee's calls as ``arena fish clients`` do (``client.fish.choose``), Labyrinth's are
the training players (astar, random), Penguins' make each call's placement or move on the board
file as the player program does with that strategy (``penguins.strategies``; the programs'
names stay the game's). Its log, when asked for, is of the shared format: the original's inputs
up to N, then the new ones, so ``arena replay verify`` checks a fork like any log; its header
names the original (``forked_from``).
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
    # territory stops its search on the wall clock: a fork would not repeat
    "penguins": ("random", "greedy", "alphabeta", "minimax2"),
}


class GameForkError(ValueError):
    """A fork that cannot be made (the message names what is wrong, in one line)."""


def _inputs_through(record: GameRecord, at: int) -> int:
    """How many of the log's inputs stand on or before line ``at``."""
    kinds = ("reply", "failure", "move", "call")
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
    if record.game == "penguins":
        return _penguins(record, keep, strategies, rng, output, forked)
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


@dataclasses.dataclass(frozen=True)
class _Exit:
    """How a call ended, as the log says or a strategy's turn makes it (penguins.referee.Exit)."""

    code: int | None
    signal: str | None = None
    timed_out: bool = False
    stderr: str = ""
    seconds: float = 0.0


def _penguins(
    record: GameRecord,
    keep: int,
    strategies: tuple[str, ...],
    rng: random.Random,
    output: str | None,
    forked: dict[str, Any],
) -> list[str]:
    import shlex

    from floes.effects import Record, Send
    from penguins.referee import Answer, Call, CallRecord, Entrant, Fault, Referee, ranking
    from protocol.penguins import parse
    from replay.penguinslog import PenguinsGameLog

    header = record.header
    players, penguins = list(header["players"]), int(header["penguins"])
    if len(strategies) != len(players):
        raise GameForkError(f"--strategies: give {len(players)} names, one a seat")
    names = [r for r in record.records if r.get("event") == "name"]
    if len(names) != len(players):
        raise GameForkError("the log does not name every program: it cannot be forked")
    entrants = [
        Entrant(shlex.split(str(command)), str(n.get("player", "")), n.get("reason"))
        for command, n in zip(players, names, strict=True)
    ]
    for entrant in entrants:
        if entrant.disqualified is not None:
            entrant.kind, entrant.finished = Fault.PROTOCOL, True
    referee = Referee(entrants, parse(str(header["board"])), penguins, timeout=2.0,
                      max_file_bytes=1 << 20)  # fmt: skip
    stream = open(output, "wb") if output is not None else None  # noqa: SIM115 - closed below
    log = None
    if stream is not None:
        seed = record.shared_header.get("seed") if record.shared_header else None
        log = PenguinsGameLog(stream, clock=time.monotonic, version=_version(), seed=seed,
                              extra={"forked_from": forked})  # fmt: skip
        log({k: v for k, v in header.items() if k != "t"})
        for entry in names:
            log({k: v for k, v in entry.items() if k != "t"})
    calls = [r for r in record.records if r.get("event") == "call"][:keep]
    played = 0
    effects = referee.start()
    try:
        while True:
            sent = [e for e in effects if isinstance(e, Send) and isinstance(e.message, Call)]
            if not sent:
                break
            seat, call = sent[0].seat, sent[0].message
            assert isinstance(call, Call)
            if calls:
                logged = calls.pop(0)
                answer = _logged_answer(seat, call, logged, entrants[seat].name, Answer)
                effects = referee.apply(answer)
                done = next(e.entry for e in effects if isinstance(e, Record))
                assert isinstance(done, CallRecord)
                if done.verdict != logged.get("verdict") or (
                    done.verdict == "moved" and done.board != logged.get("board")
                ):
                    raise GameForkError(
                        f"the call of {logged.get('player')} ({logged.get('phase')}) cannot be "
                        "re-played from the log: fork at an earlier line"
                    )
                entry = {k: v for k, v in logged.items() if k != "t"}
            else:
                played += 1
                answer = _strategy_answer(seat, call, entrants[seat].name, penguins,
                                          strategies[seat], rng, Answer)  # fmt: skip
                effects = referee.apply(answer)
                entry = next(e.entry for e in effects if isinstance(e, Record)).to_json()
            if log is not None:
                log(entry)
        table = ranking(entrants, referee.board)
        places = [
            {"place": place, "player": e.name, "fish": got, "disqualified": e.disqualified,
             "kind": e.kind}
            for place, e, got in table
        ]  # fmt: skip
        if log is not None:
            log({"event": "end", "ranking": places})
    finally:
        if log is not None:
            log.close()
        if stream is not None:
            stream.close()
    ranked = ", ".join(f"{p['place'] or '-'}. {p['player']} {p['fish']} fish" for p in places)
    lines = [
        f"fork of {forked['log']} after line {forked['at']}: {keep} calls as logged, "
        f"{played} played by {', '.join(strategies)}",
        f"  ranking: {ranked}",
    ]
    if output is not None:
        lines.append(f"  wrote {output}")
    return lines


def _logged_answer(seat: int, call: Any, logged: dict[str, Any], name: str, answer: Any) -> Any:
    """An answer the referee judges as the log says this call was judged: the board left when
    it moved, unchanged when it could not move, and for a disqualification what the log keeps
    of its exit (its reason is the log's)."""
    if logged.get("player") != name or logged.get("phase") != call.phase:
        raise GameForkError(
            f"the log's calls do not follow the game's order at {logged.get('player')}'s call"
        )
    seconds = float(logged.get("seconds", 0.0))
    code, signal = logged.get("exit"), logged.get("signal")
    reason = str(logged.get("reason", ""))
    exit = _Exit(code, signal, "time" in reason, str(logged.get("stderr", "")), seconds)
    verdict = logged.get("verdict")
    if verdict == "moved":
        return answer(seat, exit, str(logged.get("board")), True)
    if verdict == "cannot_move":
        return answer(seat, exit, call.board, True)
    if code in (0, 1) and not exit.timed_out:
        return answer(seat, _Exit(0, seconds=seconds), None, False)  # disqualified all the same
    return answer(seat, exit, None, False)


def _strategy_answer(
    seat: int, call: Any, name: str, penguins: int, strategy: str, rng: random.Random, answer: Any
) -> Any:
    """The call played by ``strategy`` as the player program plays it (client/penguins.py):
    exit 0 with the board after its placement or move, or exit 1 when it cannot."""
    from floes import PLACEMENT
    from penguins.rules import from_board, to_board
    from penguins.strategies import make_strategy
    from protocol.penguins import parse

    board = parse(call.board)
    me = board.player(name)
    number = me.number if me is not None else board.next_free_number()
    chooser = make_strategy(strategy)
    cannot = answer(seat, _Exit(1), call.board, True)
    if number is None or (me is None and call.phase != PLACEMENT):
        return cannot
    if call.phase == PLACEMENT:
        placed = board.owner.count(number)
        state = from_board(board, PLACEMENT, number, penguins - placed)
        if placed >= penguins or state.phase != PLACEMENT or state.current != number - 1:
            return cannot
        tile = chooser.place(state, number - 1, rng)
        if tile is None:
            return cannot
        state.place(tile)
        gained = 1
    else:
        state = from_board(board, "movement", number)
        if state.phase != "movement" or state.current != number - 1:
            return cannot
        choice = chooser.move(state, number - 1, rng)
        if choice is None:
            return cannot
        gained = state.move(*choice)
    to_board(state, board)
    if me is None:
        me = board.add_player(name, number)
    me.score += gained
    return answer(seat, _Exit(0), board.render(), True)


def _version() -> str:
    from replay.chainlog import software_version

    return software_version()
