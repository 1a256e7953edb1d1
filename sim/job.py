"""One job of a run: playing one match (in a worker process, or a Dask worker thread) and
returning its journal record, within the run's per-match wall-time limit; a match that raises
becomes a record with an ``error`` field.
"""

from __future__ import annotations

import signal
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from types import FrameType
from typing import Any

from sim.game import Game, logged
from sim.games import load_game

__all__ = ["MatchTimeout", "load_game_cached", "play_job"]

_GAMES: dict[tuple[str, tuple[tuple[str, Any], ...]], Game] = {}


def load_game_cached(name: str, options: Mapping[str, Any]) -> Game:
    key = (name, tuple(sorted(options.items())))
    if key not in _GAMES:
        _GAMES[key] = load_game(name, **options)
    return _GAMES[key]


class MatchTimeout(Exception):
    """A match ran past the run's per-match wall-time limit."""


def play_job(
    game_name: str,
    options: Mapping[str, Any],
    index: int,
    seed: int,
    seats: tuple[str, ...],
    timeout: float | None = None,
    logs: str | None = None,
) -> dict[str, Any]:
    """Play one match and return its journal record; an exception becomes an ``error`` field."""
    record: dict[str, Any] = {"index": index, "seed": seed, "seats": list(seats)}
    started = time.perf_counter()
    try:
        game = load_game_cached(game_name, options)
        if logs is not None:
            # Games that write match logs (the dungeon) declare it in their GameInfo.
            path = Path(logs) / f"{game_name}-{seed}-{'-'.join(seats)}.jsonl"
            result = _with_timeout(partial(logged(game).play_logged, seed, seats, path), timeout)
        else:
            result = _with_timeout(partial(game.play, seed, seats), timeout)
    except Exception as exc:
        record["error"] = _describe(exc)
    else:
        record.update(
            returns=list(result.returns),
            length=result.length,
            winner=result.winner,
            stats=[dict(figures) for figures in result.stats],
        )
        if result.think:
            record["think"] = [list(seat) for seat in result.think]
    record["seconds"] = round(time.perf_counter() - started, 4)
    return record


def _with_timeout(play: Callable[[], Any], timeout: float | None) -> Any:
    """Run ``play`` under SIGALRM when allowed (a main thread, as in pool workers)."""
    if timeout is None or threading.current_thread() is not threading.main_thread():
        return play()

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        raise MatchTimeout(f"match ran past {timeout:g} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return play()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _describe(exc: BaseException) -> str:
    """Exception type, message and the innermost frame: enough to find the bug, and stable."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"
