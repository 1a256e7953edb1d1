"""One Fish game on the server: the task that carries out its referee's effects (and
:func:`call_all`, the tournament's calls to every player at once).

The referee (:mod:`fish.referee`, pure) says what to do; this task does it, in order: each
``Record`` goes to the game's log, each ``Send`` is logged and becomes a
:class:`~server.fish.switchboard.Call` value to the player's socket task (within its
``Deadline``), each ``Expel`` releases the player with the ending it was put out with (its
connection may close). The answer, a plain value in the game's own inbox, goes back to the
referee (a ``Reply`` or a ``Failure``), until it says the game is over.
"""

from __future__ import annotations

from typing import Any

import structlog

from fish.loglines import log_call, log_record
from fish.referee import Effect, Expel, Failure, GameResult, Referee, Reply
from floes.effects import Deadline, Record, Send
from replay.fishlog import FishGameLog
from server.cycle import Ending, Fault
from server.fish.switchboard import Answer, Answered, Call, SignedUp, Switchboard

__all__ = ["call_all", "play_game"]

log = structlog.get_logger()

#: The call to make: the seat, its value on the wire, the seconds it may take.
Next = tuple[int, list[Any], float]


async def play_game(
    referee: Referee,
    players: list[SignedUp],
    glog: FishGameLog,
    call_timeout: float,
    board: Switchboard,
) -> tuple[GameResult, int]:
    """Play ``referee``'s game with ``players`` (by seat), whose calls go through ``board``,
    logging to ``glog``; its result and the number of calls made."""
    names = [player.name for player in players]
    cols = referee.floes.layout.cols
    results: list[GameResult] = []

    def carry_out(effects: list[Effect]) -> Next | None:
        call: Next | None = None
        for effect in effects:
            if isinstance(effect, Record):
                log_record(glog.write, effect.entry, cols, names)
                if isinstance(effect.entry, GameResult):
                    results.append(effect.entry)
            elif isinstance(effect, Send):
                wire = effect.message.to_json()
                log_call(glog.write, effect, wire)
                call = (effect.seat, wire, call_timeout)
            elif isinstance(effect, Deadline) and call is not None and effect.seconds is not None:
                call = (call[0], call[1], effect.seconds)
            elif isinstance(effect, Expel):
                player = players[effect.seat]
                log.info(
                    "fish_player_removed", name=player.name, kind=effect.kind.value,
                    reason=effect.reason,
                )  # fmt: skip
                board.release(player.player, Ending(Fault.REMOTE, effect.reason))
        return call

    calls = 0
    key, inbox = board.open_inbox(1)  # one call at a time
    try:
        call = carry_out(referee.start())
        while call is not None:
            seat, wire, timeout = call
            calls += 1
            board.call(Call(players[seat].player, wire, timeout, key))
            answer = await inbox.receive()
            assert answer.player == players[seat].player, "an answer of another player"
            if isinstance(answer, Answered):
                call = carry_out(referee.apply(Reply(seat, answer.value, answer.seconds)))
            else:
                call = carry_out(referee.apply(Failure(seat, answer.reason, answer.seconds)))
    finally:
        board.close_inbox(key)
    if not results:
        raise RuntimeError("the referee ended the game without a result")
    return results[0], calls


async def call_all(
    board: Switchboard, calls: list[tuple[int, list[Any]]], timeout: float
) -> list[Answer]:
    """Make every call (player, message) at once through ``board``, each within ``timeout``
    seconds (the tournament's ``start`` and ``end``); their answers, in the same order."""
    key, inbox = board.open_inbox(len(calls))
    answers: dict[int, Answer] = {}
    try:
        for player, message in calls:
            board.call(Call(player, message, timeout, key))
        while len(answers) < len(calls):
            answer = await inbox.receive()
            answers[answer.player] = answer
    finally:
        board.close_inbox(key)
    return [answers[player] for player, _ in calls]
