"""The referee's effects as the lines of a Fish game's log (the events fish/gamelog.py lists):
each :class:`~floes.effects.Send` is a ``call`` line, each record a ``reply``, ``failure``,
``verdict`` or ``result`` line, fields in the order the logs have always had them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fish.calls import FishCall
from fish.referee import Failure, FishRecord, GameResult, Reply, Verdict
from floes.effects import Send

__all__ = ["action_json", "call_line", "game_line"]


def action_json(action: int | tuple[int, int], cols: int) -> list[Any]:
    """A placement's tile as ``[r, c]``, a move's tiles as ``[[r, c], [r, c]]``."""
    if isinstance(action, int):
        return list(divmod(action, cols))
    return [list(divmod(action[0], cols)), list(divmod(action[1], cols))]


def call_line(send: Send[FishCall], wire: list[Any]) -> tuple[str, dict[str, Any]]:
    """A game log's ``call`` line: the call ``send`` whose value on the wire is ``wire``."""
    return "call", {"seat": send.seat, "name": wire[0], "args": wire[1]}


def game_line(entry: FishRecord, cols: int, names: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """A game log's line (its event and fields) for a record of the referee on a board of
    ``cols`` columns between players ``names``: ``reply``, ``failure``, ``verdict``, ``result``."""
    if isinstance(entry, Reply):
        return "reply", {"seat": entry.seat, "value": entry.value, "seconds": entry.seconds}
    if isinstance(entry, Failure):
        return "failure", {"seat": entry.seat, "reason": entry.reason, "seconds": entry.seconds}
    if isinstance(entry, Verdict):
        action = None if entry.action is None else action_json(entry.action, cols)
        fields = {"seat": entry.seat, "kind": entry.kind.value, "reason": entry.reason}
        return "verdict", fields | {"action": action}
    assert isinstance(entry, GameResult)
    return "result", {
        "winners": [names[s] for s in entry.winners],
        "failed": [names[s] for s in entry.failed],
        "cheaters": [names[s] for s in entry.cheaters],
        "rest": [names[s] for s in entry.rest],
        "scores": list(entry.scores),
    }
