"""The referee's effects as the lines of a Fish game's log (the events fish/gamelog.py lists):
each :class:`~floes.effects.Send` is a ``call`` line, each record a ``reply``, ``failure``,
``verdict`` or ``result`` line, fields in the order the logs have always had them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fish.calls import FishCall
from fish.referee import Failure, FishRecord, Reply, Verdict
from floes.effects import Send

__all__ = ["Write", "action_json", "as_dict", "log_call", "log_record"]


def action_json(action: int | tuple[int, int], cols: int) -> list[Any]:
    """A placement's tile as ``[r, c]``, a move's tiles as ``[[r, c], [r, c]]``."""
    if isinstance(action, int):
        return list(divmod(action, cols))
    return [list(divmod(action[0], cols)), list(divmod(action[1], cols))]


#: Writes one line of a game log: ``write(event, **fields)`` (replay.fishlog.FishGameLog).
Write = Callable[..., None]


def log_call(write: Write, send: Send[FishCall], wire: list[Any]) -> None:
    """The ``call`` line of ``send``, whose value on the wire is ``wire``."""
    write("call", seat=send.seat, name=wire[0], args=wire[1])


def log_record(write: Write, entry: FishRecord, cols: int, names: Sequence[str]) -> None:
    """The line of a referee's record on a board of ``cols`` columns between players
    ``names``: ``reply``, ``failure``, ``verdict`` or ``result``."""
    if isinstance(entry, Reply):
        write("reply", seat=entry.seat, value=entry.value, seconds=entry.seconds)
    elif isinstance(entry, Failure):
        write("failure", seat=entry.seat, reason=entry.reason, seconds=entry.seconds)
    elif isinstance(entry, Verdict):
        action = None if entry.action is None else action_json(entry.action, cols)
        write("verdict", seat=entry.seat, kind=entry.kind.value, reason=entry.reason,
              action=action)  # fmt: skip
    else:
        write(
            "result",
            winners=[names[s] for s in entry.winners],
            failed=[names[s] for s in entry.failed],
            cheaters=[names[s] for s in entry.cheaters],
            rest=[names[s] for s in entry.rest],
            scores=list(entry.scores),
        )


def as_dict(event: str, /, **fields: Any) -> dict[str, Any]:
    """A line as a dict, ``event`` first (for a caller that compares lines)."""
    return {"event": event, **fields}
