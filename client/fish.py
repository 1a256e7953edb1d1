"""Remote Fish players: AI clients of a Fish server, in trio, one connection each.

A client sends its name as a JSON string, then answers the calls (spec fish.md, "Wire format",
and the interop facts): ``"void"`` to ``start``, ``playing-as``, ``playing-with`` (which may come
right before the first ``setup`` of a game) and ``end``; a Position to ``setup``; an Action to
``take-turn``, whatever its action list holds. The engine's strategies
(:mod:`fish.strategies`) choose from the State alone. ``end(false)`` may come mid-tournament
(a server that drops a loser early); the client acknowledges it and closes. The end of the
stream before ``start`` means no tournament took place (too few signed up).

:func:`play` may also misbehave in one of the kit's ways (:mod:`fish.misbehave`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import trio

from fish.data import MalformedInput, parse_state
from fish.game import FishState
from fish.misbehave import misbehave
from fish.rules import FISH_RULES
from fish.strategies import make_bot
from floes import PLACEMENT, Floes
from protocol.fish import NEED_DATA, RemoteProtocolError, StreamCodec, encode

__all__ = ["ClientResult", "choose", "names_for", "play"]


@dataclass(frozen=True)
class ClientResult:
    """How a client's session ended: ``won`` (end(true)), ``lost`` (end(false)),
    ``no-tournament`` (closed before start), ``closed`` (closed by the server mid-way),
    ``error`` (the server broke the protocol), or ``misbehaved``."""

    name: str
    outcome: str
    games: int = 0
    calls: int = 0
    detail: str = ""


def names_for(count: int) -> list[str]:
    """Letters-only default names: fisha, fishb, ..., fishz, fishba, ..."""
    names = []
    for index in range(count):
        suffix, value = "", index
        while True:
            suffix = chr(97 + value % 26) + suffix
            value //= 26
            if value == 0:
                break
        names.append("fish" + suffix)
    return names


def choose(bot_name: str, call: str, args: list[Any], rng: random.Random) -> Any:
    """The reply of a player using strategy ``bot_name`` to a ``setup`` or ``take-turn``."""
    floes = parse_state(args[0]).floes
    bot = make_bot(bot_name)
    if call == "setup":
        placing = Floes(
            FISH_RULES,
            floes.layout.rows,
            floes.layout.cols,
            floes.fish,
            [1] + [0] * (floes.seats - 1),
            penguins=floes.penguins,
            scores=floes.scores,
            phase=PLACEMENT,
        )
        if placing.current != 0:
            raise MalformedInput("setup: no free tile to place a penguin on")
        tile = bot.step(FishState(placing), rng)
        return list(divmod(tile, floes.layout.cols))
    if floes.current != 0:
        moves = floes.moves(0)
        if not moves:
            raise MalformedInput("take-turn: the first player cannot move")
        src, dst = moves[0]
    else:
        src, dst = bot.step(FishState(floes), rng)
    cols = floes.layout.cols
    return [list(divmod(src, cols)), list(divmod(dst, cols))]


async def _next_value(stream: trio.abc.Stream, codec: StreamCodec) -> Any:
    """The next value from the server, or NEED_DATA at the end of the stream."""
    while (value := codec.next_value()) is NEED_DATA:
        if codec.eof:
            return NEED_DATA
        codec.receive_data(await stream.receive_some(4096))
    return value


async def play(
    stream: trio.abc.Stream,
    name: str,
    strategy: str = "minimax1",
    seed: int = 0,
    misbehaviour: str | None = None,
) -> ClientResult:
    """Sign up as ``name`` and play until the server ends the session; closes the stream."""
    rng = random.Random(seed)
    codec = StreamCodec()
    games = calls = 0
    started = False
    async with stream:
        try:
            if misbehaviour == "number-name":
                await stream.send_all(b"42")
            elif misbehaviour == "garbage-name":
                await stream.send_all(b"{{{")
            elif misbehaviour == "bad-name":
                await stream.send_all(encode("OCaml-AI-3"))
            elif misbehaviour != "no-name":
                await stream.send_all(encode(name))
            while True:
                value = await _next_value(stream, codec)
                if value is NEED_DATA:
                    outcome = "closed" if started else "no-tournament"
                    return ClientResult(name, outcome, games, calls)
                if not (isinstance(value, list) and len(value) == 2 and isinstance(value[1], list)):
                    return ClientResult(name, "error", games, calls, f"not a call: {value!r:.60}")
                call, args = value
                calls += 1
                started = started or call == "start"
                games += call == "playing-as"
                if call in ("setup", "take-turn"):
                    good = choose(strategy, call, args, rng)
                elif call in ("start", "playing-as", "playing-with", "end"):
                    good = "void"
                else:
                    return ClientResult(name, "error", games, calls, f"unknown call {call!r}")
                act, done = (
                    misbehave(misbehaviour, call, args, good) if misbehaviour else (None, False)
                )
                if act is None:
                    await stream.send_all(encode(good))
                else:
                    if act.silent:  # read on, never answer, until the server hangs up
                        while await _next_value(stream, codec) is not NEED_DATA:
                            pass
                        return ClientResult(name, "misbehaved", games, calls, misbehaviour or "")
                    if act.raw:
                        await stream.send_all(act.raw)
                    elif not act.close:
                        await stream.send_all(encode(act.value))
                    if act.extra is not None:
                        await stream.send_all(encode(act.extra))
                    if act.close:
                        return ClientResult(name, "misbehaved", games, calls, misbehaviour or "")
                    if done:
                        misbehaviour = None  # once is enough: the server must have seen it
                if call == "end":
                    return ClientResult(name, "won" if args == [True] else "lost", games, calls)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return ClientResult(name, "closed", games, calls)
        except (RemoteProtocolError, MalformedInput) as error:
            return ClientResult(name, "error", games, calls, str(error))
