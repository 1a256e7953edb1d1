"""A dungeon program's pre-flight is ``arena check-client``'s: the scripted server
(:func:`server.probe.run_probe`) plays the other team and probes it, and
:func:`protocol.conformance.evaluate` judges what it saw; the program runs sandboxed, started as
in a match. The first check that did not pass is its reason.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from protocol.conformance import PASSED, Observations, evaluate
from server.competition.board import Board, BoardMatch
from server.competition.competition import RunOptions
from server.competition.programs import Entrant
from server.competition.teams import MatchTicket, Team, Tournament
from server.probe import run_probe
from server.probe_checks import ProbeConfig
from server.sandbox import Limits

__all__ = ["check_program"]


async def check_program(
    team: Team,
    *,
    tournament: Tournament,
    options: RunOptions,
    board: Board,
    out: Path,
    scratch: Path,
    limits: Callable[[float], Limits],
    host: str,
    grace: float,
) -> dict[str, Any]:
    """Pre-flight one team's program (its output file in ``out``, its folder in ``scratch``,
    ``limits`` for a run of so many seconds, ``grace`` seconds to end after the probe); the
    pre-flight's record: passed, reason, detail, output, result, checks."""
    name = f"{tournament.name}-preflight-{team.name}"[:64]
    output = f"programs/{name}-{team.name}.txt"
    token = secrets.token_hex(16)
    config = ProbeConfig(
        match=name, token=token, seed=tournament.seed, rules=tournament.config,
        start_timeout=tournament.connect_seconds,
    )  # fmt: skip
    seen = Observations(team=0, start_timeout=config.start_timeout)
    exited = trio.Event()
    listeners = await trio.open_tcp_listeners(0, host=host)
    port = listeners[0].socket.getsockname()[1]
    seconds = config.start_timeout + config.flood_timeout + config.play_seconds + grace
    entrant = Entrant(
        team, MatchTicket(host, port, 0, name, token), scratch=scratch / name,
        output=out / output, limits=limits(seconds),
        sandbox=options.sandbox, seed=tournament.seed, players=options.players,
    )  # fmt: skip
    board.matches[name] = BoardMatch(name, (team.name, "check-client"), preflight=True)
    board.start(name, None)
    stopping = False
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(entrant.run)

            async def watch() -> None:
                await entrant.ended.wait()
                if stopping:
                    return
                # Judged as it exits (as arena check-client judges it).
                seen.exited_after_game_over = seen.game_over_sent
                seen.exited_early = not seen.game_over_sent
                seen.exit_status = entrant.status
                exited.set()

            nursery.start_soon(watch)
            await run_probe(listeners, config, seen, exited)
            with trio.move_on_after(grace if seen.sockets else 0):
                await exited.wait()
            stopping = True
            entrant.stop()
            nursery.cancel_scope.cancel()
    finally:
        for listener in listeners:
            await listener.aclose()
    seen.stderr_tail = await trio.to_thread.run_sync(_tail, out / output)
    verdicts = evaluate(seen)
    passed = sum(v.status == PASSED for v in verdicts)
    result = f"{passed} of {len(verdicts)} checks of arena check-client passed"
    board.finish(name, result, None)
    first = next((v for v in verdicts if v.status != PASSED), None)
    reason = detail = None
    if first is not None:
        detail = f"{first.check.name}: {first.detail} (see {first.check.section})"
        reason = "protocol_error"
        if first.check.name == "runs" and seen.exit_status is not None:
            reason, detail = "crashed", f"{entrant.exit}; {detail}"
        elif first.check.name == "runs" and seen.sockets == 0:
            reason = "never_connected"
    return {
        "passed": first is None, "reason": reason, "detail": detail, "output": output,
        "result": result, "replay": None,
        "checks": [v.as_dict() for v in verdicts],
    }  # fmt: skip


def _tail(path: Path, lines: int = 5) -> list[str]:
    """The last lines a program wrote (its output file's last 4 KiB)."""
    try:
        with path.open("rb") as file:
            file.seek(max(0, path.stat().st_size - 4096))
            text = file.read().decode("utf-8", "replace")
    except OSError:
        return []
    return [line for line in text.splitlines() if line.strip()][-lines:]
