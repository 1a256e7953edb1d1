"""A submission becomes a version: the one path for the command line and the web form.

    result = await submit(ladder, token, Path("bot.zip"), players=PLAYERS)

1. :func:`server.ladder.receive.receive_version` (blocking; run in a thread): the token checked,
   the upload unpacked and stored, a new version recorded as ``checking``.
2. :func:`server.ladder.check.check_version`: the build in the sandbox, then the competition's
   pre-flight game.
3. :func:`server.ladder.check.record_check`: the version ``active`` or ``failed`` with its
   one-line reason, in one transaction.
"""

from __future__ import annotations

from pathlib import Path

import trio

from server.competition.teams import Players
from server.ladder.auth import authenticate
from server.ladder.check import Submitted, check_version, record_check
from server.ladder.db import LadderError
from server.ladder.ladder import Ladder
from server.ladder.receive import receive_version, stale_versions

__all__ = ["recheck", "submit"]


async def recheck(
    ladder: Ladder, token: str, *, older_than: float, players: Players | None,
    sandbox: str = "bwrap", address: str = "cli",
) -> list[Submitted]:  # fmt: skip
    """The teacher's recovery after a crash: check and record every version left
    ``checking`` for more than ``older_than`` seconds (admin token)."""
    who = await trio.to_thread.run_sync(
        lambda: authenticate(ladder.engine, token, address, ladder.clock())
    )
    if who.role != "admin":
        raise LadderError("recheck needs the admin token")
    stale = await trio.to_thread.run_sync(stale_versions, ladder, ladder.clock() - older_than)
    done = []
    for received in stale:
        check = await check_version(ladder, received, players=players, sandbox=sandbox)
        done.append(await trio.to_thread.run_sync(record_check, ladder, received, check))
    return done


async def submit(
    ladder: Ladder,
    token: str,
    source: Path,
    *,
    players: Players | None,
    sandbox: str = "bwrap",
    origin: str = "cli",
    address: str = "cli",
) -> Submitted:
    """Receive, check and record one submission (the three steps above)."""
    received = await trio.to_thread.run_sync(
        lambda: receive_version(ladder, token, source, origin=origin, address=address)
    )
    check = await check_version(ladder, received, players=players, sandbox=sandbox)
    return await trio.to_thread.run_sync(record_check, ladder, received, check)
