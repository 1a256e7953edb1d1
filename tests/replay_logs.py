"""Real match logs for the replay tests: written by the server, the simulator, and a bare engine.

Small dungeons (300 nodes, wider corridors) keep each match well under a second.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from replay.matchlog import seal

SMALL: dict[str, Any] = {"nodes": 300, "radius": 0.11}


def server_log(
    directory: Path, seed: int = 3, log_maps: str = "each", log_key: bytes | None = None
) -> Path:
    """One real match over loopback TCP (``arena.match.play_match`` through ``server.serve``),
    with trap optimum checks, logged by the server (a full log unless ``log_maps`` says)."""
    import trio

    from arena.match import play_match
    from dungeon.config import RulesConfig
    from dungeon.traps import optimum

    async def play() -> Path | None:
        report = await play_match(
            ("reference", "rusher"),
            seed=seed,
            config=RulesConfig(**SMALL),
            log_dir=directory,
            log_maps=log_maps,  # type: ignore[arg-type]
            log_key=log_key,
            checker=optimum,
        )
        return report.log_path

    path = trio.run(play)
    assert path is not None, "the server wrote no log"
    return path


def sim_log(
    path: Path,
    seed: int = 5,
    seats: tuple[str, str] = ("reference", "rusher"),
    maps: str = "each",
) -> Path:
    """One headless match of the simulator's dungeon driver, logged on request (a full log
    unless ``maps`` says: ``digest`` writes ``path`` + ``.gz``, returned)."""
    from sim.dungeon import DungeonGame

    DungeonGame(optimum=True, maps=maps, **SMALL).play_logged(seed, list(seats), path)
    return path.with_name(path.name + ".gz") if maps == "digest" else path


def engine_log(path: Path, seed: int = 7, steps: int = 40) -> Path:
    """The engine driven directly (no server, no simulator) through the writer: random walkers,
    which die often, so the log has trap deaths and a draw by TimeUp."""
    import numpy as np

    from client.strategies.base import make_strategy
    from dungeon.config import RulesConfig
    from dungeon.engine import Match
    from replay.matchlog import MatchLogWriter, software_version
    from sim.dungeon_steps import deliver, play_steps

    config = RulesConfig(**SMALL)
    with path.open("w", encoding="utf-8") as stream:
        writer = MatchLogWriter(stream, clock=time.monotonic)
        writer.header(
            seed=seed, config=config.to_dict(), version=software_version(), match="bare",
            source="sim",
        )  # fmt: skip
        match = Match(seed, config)
        teams = [make_strategy("random", 0, seed), make_strategy("random", 1, seed + 1)]
        output = match.begin()
        writer.output(output)
        deliver(output, teams)
        play_steps(
            match, teams, np.random.default_rng(seed), steps, before=writer.input,
            after=writer.output,
        )  # fmt: skip
        writer.close(reason=match.end_reason or "over")
    return path


def rechain(lines: list[dict[str, Any]]) -> str:
    """Lines (parsed) re-sealed into a valid chain: what a forger who knows the format writes."""
    out, previous = [], ""
    for line in lines:
        body = json.dumps({key: value for key, value in line.items() if key != "hash"})
        text, previous = seal(previous, body)
        out.append(text + "\n")
    return "".join(out)
