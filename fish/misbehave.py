"""A kit of misbehaving Fish clients, to check that a server (ours or anyone's) survives them.

Each kind is one way to break the rules or the wire at one moment, with the verdict the spec
asks of a server: ``failed`` (timeout, disconnect, bad bytes, wrong shape of reply),
``cheated`` (an illegal placement or move), ``refused`` (the sign-up closes the connection) or
``plays`` (allowed: the player takes part like any other). A kind whose chance has not come yet
(no penguin to land on, no hole to jump) plays well and tries again at its next turn.

Pure: :func:`misbehave` maps a call and the good reply to what the client does instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from fish.data import parse_state
from floes import Floes

__all__ = ["KINDS", "Act", "Kind", "misbehave"]

Verdict = Literal["failed", "cheated", "refused", "plays"]


@dataclass(frozen=True)
class Kind:
    description: str
    verdict: Verdict


KINDS: dict[str, Kind] = {
    "double-place": Kind("place a penguin on a tile that has one", "cheated"),
    "place-hole": Kind("place a penguin on a hole", "cheated"),
    "place-off": Kind("place a penguin off the board", "cheated"),
    "move-hole": Kind("move a penguin onto a hole", "cheated"),
    "move-penguin": Kind("move a penguin onto another penguin", "cheated"),
    "move-off": Kind("move a penguin off the board", "cheated"),
    "jump-hole": Kind("move a penguin over a hole", "cheated"),
    "wrong-shape": Kind('answer setup with "void"', "failed"),
    "garbage": Kind("answer setup with bytes that are not JSON", "failed"),
    "truncated": Kind("answer setup with half a value, then hang up", "failed"),
    "huge": Kind("answer setup with a 2 MiB string", "failed"),
    "silent": Kind("never answer setup", "failed"),
    "disconnect": Kind("hang up instead of answering setup", "failed"),
    "unasked": Kind('send a second "void" after start', "failed"),
    "silent-start": Kind("never acknowledge start", "failed"),
    "number-name": Kind("sign up with 42, not a string", "refused"),
    "garbage-name": Kind("sign up with {{{ (never a whole value)", "refused"),
    "no-name": Kind("never send a name", "refused"),
    "bad-name": Kind("sign up as OCaml-AI-3 (refused unless --names lenient)", "refused"),
    "duplicate-name": Kind("sign up with another client's name (allowed)", "plays"),
}


@dataclass(frozen=True)
class Act:
    """What the client does: send ``value`` (as JSON), or ``raw`` bytes, then maybe ``extra``
    (another value), ``close`` the connection, or stay ``silent``."""

    value: Any = None
    raw: bytes = b""
    extra: Any = None
    close: bool = False
    silent: bool = False


def _position(floes: Floes, tile: int) -> list[int]:
    return list(divmod(tile, floes.layout.cols))


def _holes(floes: Floes) -> list[int]:
    return [tile for tile in range(floes.layout.size) if floes.fish[tile] == 0]


def _others(floes: Floes) -> list[int]:
    return [tile for seat in range(1, floes.seats) for tile in floes.penguins[seat]]


def _jump(floes: Floes) -> list[list[int]] | None:
    for src in floes.penguins[0]:
        for line in floes.layout.rays[src]:
            passed = False
            for tile in line:
                if floes.fish[tile] == 0 and floes.owner[tile] < 0:
                    passed = True
                elif floes.is_free(tile) and passed:
                    return [_position(floes, src), _position(floes, tile)]
                elif not floes.is_free(tile):
                    break
    return None


def _cheat(kind: str, name: str, args: list[Any]) -> Any:
    """The illegal reply of a cheating kind, or None when the chance has not come."""
    floes = parse_state(args[0]).floes
    rows = floes.layout.rows
    mine = [_position(floes, tile) for tile in floes.penguins[0]]
    if name == "setup":
        if kind == "place-off":
            return [rows, 0]
        if kind == "double-place" and (taken := _others(floes) or floes.penguins[0]):
            return _position(floes, taken[0])
        if kind == "place-hole" and (holes := _holes(floes)):
            return _position(floes, holes[0])
        return None
    if not mine:
        return None
    if kind == "move-off":
        return [mine[0], [rows, 0]]
    if kind == "move-penguin" and (others := _others(floes)):
        return [mine[0], _position(floes, others[0])]
    if kind == "move-hole" and (holes := _holes(floes)):
        return [mine[0], _position(floes, holes[0])]
    if kind == "jump-hole":
        return _jump(floes)
    return None


def misbehave(kind: str, name: str, args: list[Any], good: Any) -> tuple[Act, bool]:
    """What a client of ``kind`` does on call ``name`` instead of replying ``good``; the flag
    says the misbehaviour happened (a client misbehaves once: it is out of the game then)."""
    if kind == "unasked" and name == "start":
        return Act(value=good, extra="void"), True
    if kind == "silent-start" and name == "start":
        return Act(silent=True), True
    if name == "setup":
        if kind == "wrong-shape":
            return Act(value="void"), True
        if kind == "garbage":
            return Act(raw=b"@#!garbage"), True
        if kind == "truncated":
            return Act(raw=b"[0,", close=True), True
        if kind == "huge":
            return Act(raw=b'"' + b"x" * (2 << 20) + b'"'), True
        if kind == "silent":
            return Act(silent=True), True
        if kind == "disconnect":
            return Act(close=True), True
    if name in ("setup", "take-turn") and kind in KINDS and KINDS[kind].verdict == "cheated":
        bad = _cheat(kind, name, args)
        if bad is not None:
            return Act(value=bad), True
    return Act(value=good), False
