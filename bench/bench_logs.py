"""Match log formats side by side: bytes a crossing, write cost, verify and render time.

Two dungeon matches are played once each: reference against rusher over loopback TCP (the
server writes its log) and random against random headless. Each match's engine inputs and
outputs are then written again, in memory, by every format's writer (full and compact JSON
Lines: schema 1; digest: schema 2, gzip), flushed once per input as the server does, so the
three logs hold the same match. Each is then read back, verified and rendered. Then the same
table for a Fish, a Labyrinth and a Penguins game (bench/bench_game_logs.py).
``BENCH_LOGS_NODES`` (default 1000) sets the dungeon's size.
"""

from __future__ import annotations

import io
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import env_number, median_seconds, print_table

FORMATS = ("full", "compact", "digest")
#: The random match's length in steps (a draw: random walkers seldom reach a shrine).
RANDOM_STEPS = 300


def _loopback_log(directory: Path, nodes: int) -> Path:
    import trio

    from arena.match import play_match
    from dungeon.config import RulesConfig

    async def play() -> Path | None:
        report = await play_match(
            ("reference", "rusher"), seed=11, config=RulesConfig(nodes=nodes),
            log_dir=directory, log_maps="each", checker=None,
        )  # fmt: skip
        return report.log_path

    path = trio.run(play)
    assert path is not None
    return path


def _random_log(directory: Path, nodes: int) -> Path:
    from sim.dungeon import DungeonGame

    path = directory / "random.jsonl"
    game = DungeonGame(optimum=False, nodes=nodes, draw_steps=RANDOM_STEPS)
    game.play_logged(12, ["random", "random"], path)
    return path


def _prepared(log: Any) -> list[tuple[Any, Any]]:
    """Each engine input of the log with its output (the begin output first, input None)."""
    from replay.rerun import engine_input, replay_until

    _, outputs = replay_until(log, log.events[-1].line)
    return [(None, outputs[0][1])] + [(engine_input(line), out) for line, out in outputs[1:]]


def _rewrite(log: Any, outputs: list[tuple[Any, Any]], fmt: str) -> bytes:
    """The log's match written again by ``fmt``'s writer: the same inputs, outputs, optima."""
    from replay.digestlog import DigestLogWriter
    from replay.matchlog import MatchLogWriter

    stream = io.BytesIO()
    writer: Any = (
        DigestLogWriter(stream, clock=time.monotonic, flush_each_line=False, key=b"k" * 64)
        if fmt == "digest"
        else MatchLogWriter(
            stream, clock=time.monotonic, flush_each_line=False,
            maps="once" if fmt == "compact" else "each",
        )
    )  # fmt: skip
    header = log.header
    writer.header(seed=header["seed"], config=header["config"], version=header["version"],
                  match=header.get("match"), source=header["source"])  # fmt: skip
    writer.output(outputs[0][1])
    writer.flush()
    for event, output in outputs[1:]:
        writer.input(event)
        writer.output(output)
        writer.flush()
    for optimum in log.optima:
        writer.optimum(optimum.data["crossing"], optimum.data["value"])
    writer.close(reason=log.close.data["reason"] if log.close else "over")
    return stream.getvalue()


def _crossings(log: Any) -> int:
    return sum(1 for line in log.outputs if line.event == "crossing")


def main() -> None:
    from arena.logs import configure_logging
    from replay.html import render_html
    from replay.matchlog import read_log
    from replay.rerun import verify_log
    from replay.timeline import build_timeline

    configure_logging(level="warning")
    nodes = env_number("BENCH_LOGS_NODES", 1000, minimum=50)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        matches = [
            ("reference-rusher, loopback", _loopback_log(directory / "server", nodes)),
            ("random-random, headless", _random_log(directory, nodes)),
        ]
        for name, source in matches:
            original = read_log(source)
            crossings = max(1, _crossings(original))
            outputs = _prepared(original)
            sizes = {fmt: len(_rewrite(original, outputs, fmt)) for fmt in FORMATS}
            for fmt in FORMATS:
                data = _rewrite(original, outputs, fmt)
                path = directory / f"{fmt}.log"
                path.write_bytes(data)
                write = median_seconds(
                    lambda f=fmt, o=original, w=outputs: _rewrite(o, w, f), repeat=3, warmup=1
                )
                log = read_log(path)
                if not (verify_log(log).ok and log.complete):
                    raise AssertionError(f"{fmt}: the rewritten log does not verify")
                verify = median_seconds(lambda p=path: verify_log(read_log(p)), repeat=3, warmup=0)
                render = median_seconds(
                    lambda p=path: render_html(log := read_log(p), build_timeline(log)),
                    repeat=3, warmup=0,
                )  # fmt: skip
                rows.append([
                    name if fmt == "full" else "", f"{crossings}", fmt,
                    f"{len(data) / crossings:,.0f}", f"{sizes['compact'] / len(data):.1f}x",
                    f"{write / crossings * 1e6:,.0f}",
                    f"{verify * 1000:,.0f}", f"{render * 1000:,.0f}",
                ])  # fmt: skip
    print_table(
        f"match logs by format ({nodes}-node dungeon; write: the writer's calls for the whole "
        "match, flushed per input, the engine's outputs computed beforehand; verify and "
        "read+render: from the file, a digest log re-running the engine to read)",
        ["match", "crossings", "format", "B/crossing", "compact/this", "write us/crossing",
         "verify ms", "read+render ms"],
        rows,
        width=140,
    )  # fmt: skip
    from bench import bench_game_logs

    print_table(bench_game_logs.TITLE, bench_game_logs.HEADERS, bench_game_logs.rows(), width=140)
