"""One Fish game on the server: the task that carries out its referee's effects.

The referee (:mod:`fish.referee`, pure) says what to do; this task does it, in order: each
``Record`` goes to the game's log, each ``Send`` is logged and becomes the call made
(:meth:`server.fish.remote.Remote.call`, within its ``Deadline``), each ``Expel`` puts a
player out (its link ends, its connection may close). The answer (a ``Reply`` or a
``Failure``) goes back to the referee, until it says the game is over.
"""

from __future__ import annotations

from typing import Any

import structlog

from fish.loglines import log_call, log_record
from fish.referee import Effect, Expel, Failure, GameResult, Referee, Reply
from floes.effects import Deadline, Record, Send
from replay.fishlog import FishGameLog
from server.cycle import Ending, Fault
from server.fish.remote import Remote

__all__ = ["play_game"]

log = structlog.get_logger()

#: The call to make: the seat, its value on the wire, the seconds it may take.
Call = tuple[int, list[Any], float]


async def play_game(
    referee: Referee, players: list[Remote], glog: FishGameLog, call_timeout: float
) -> tuple[GameResult, int]:
    """Play ``referee``'s game with ``players`` (by seat), logging to ``glog``; its result
    and the number of calls made."""
    names = [player.name for player in players]
    cols = referee.floes.layout.cols
    results: list[GameResult] = []

    def carry_out(effects: list[Effect]) -> Call | None:
        call: Call | None = None
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
                remote = players[effect.seat]
                log.info(
                    "fish_player_removed", name=remote.name, kind=effect.kind.value,
                    reason=effect.reason,
                )  # fmt: skip
                remote.fail(Ending(Fault.REMOTE, effect.reason))
                remote.release()
        return call

    calls = 0
    call = carry_out(referee.start())
    while call is not None:
        seat, wire, timeout = call
        calls += 1
        answer = await players[seat].call(wire, timeout)
        if answer.ok:
            call = carry_out(referee.apply(Reply(seat, answer.value, answer.seconds)))
        else:
            call = carry_out(referee.apply(Failure(seat, answer.reason, answer.seconds)))
    if not results:
        raise RuntimeError("the referee ended the game without a result")
    return results[0], calls
