"""Match logs and replays: what writing a log costs a match, and how long each replay tool takes.

One full-size headless match (1000 nodes, reference against rusher) is logged once; then the
writer re-writes its lines to memory, and read_log, verify, the timeline, the HTML and the PNG
run on it.
"""

from __future__ import annotations

import io
import tempfile
import time
from pathlib import Path

from bench.common import median_seconds, print_table


def main() -> None:
    from replay.html import render_html
    from replay.matchlog import MatchLogWriter, read_log, software_version
    from replay.rerun import replay_until, verify_log
    from replay.still import render_png
    from replay.timeline import build_timeline
    from sim.dungeon import DungeonGame

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "match.jsonl"
        DungeonGame(optimum=False).play_logged(1, ["reference", "rusher"], path)
        log = read_log(path)
        lines = len(log.events)
        size_bytes = path.stat().st_size
        inputs = len(log.inputs)
        _, outputs = replay_until(log, lines)

        def write() -> None:
            writer = MatchLogWriter(io.StringIO(), clock=time.monotonic)
            writer.header(seed=1, config=log.config, version=software_version(), match=None,
                          source="sim")  # fmt: skip
            for line, output in outputs[1:]:
                writer.input(_input(line))
                writer.output(output)
            writer.output(outputs[0][1])

        from replay.rerun import engine_input as _input

        timeline = build_timeline(log)
        size = len(render_html(log, timeline).encode())
        rows = []
        for name, run, repeat in [
            ("write every line (MatchLogWriter)", write, 5),
            ("read_log (parse + hash chain)", lambda: read_log(path), 5),
            ("verify (re-run + compare)", lambda: verify_log(log), 3),
            ("timeline", lambda: build_timeline(log), 5),
            ("render HTML", lambda: render_html(log, timeline), 5),
            (
                "render PNG",
                lambda: render_png(timeline, len(timeline.frames) - 1, Path(directory) / "x.png"),
                3,
            ),
        ]:
            seconds = median_seconds(run, repeat=repeat, warmup=1)
            rows.append([name, f"{seconds * 1000:.0f} ms", f"{seconds / lines * 1e6:.1f} us/line"])
    print_table(
        f"match logs: one 1000-node match, {lines} lines, {inputs} inputs, "
        f"{size_bytes // 1024} KiB; HTML {size // 1024} KiB",
        ["step", "median", "per log line"],
        rows,
    )
