"""The viewer on a long match: how long until a page shows its first step in headless Chromium.

A random-vs-random dungeon match of the simulator (``BENCH_VIEWER_STEPS`` logical steps,
default 2000: 24 000 crossings, the viewer's frames) is logged as a digest log, then:

* ``arena replay render``'s work (read the log, build the timeline, write the page) and the
  page's size;
* the rendered file opened in Chromium, from navigation to the first step drawn (the page's own
  ``performance.now()`` when it is ready), the median of ``BENCH_VIEWER_REPEATS`` fresh tabs;
* the live page of ``arena serve --web`` (``/live/NAME``, the match still running) opened the
  same way, after the log was written in ``BENCH_VIEWER_CHUNKS`` pieces at the pace of a real
  match (``BENCH_VIEWER_RATE`` crossings a second) while the server followed it (wall time
  from the request).

The goal is 2 s for a 10-minute random match (docs/replay.md). Needs Debian's ``chromium``.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.common import env_number, print_table

STEPS = env_number("BENCH_VIEWER_STEPS", 2000, minimum=10)
REPEATS = env_number("BENCH_VIEWER_REPEATS", 3, minimum=1)
#: The pieces the live match's log is written in, at the pace of a real match:
CHUNKS = env_number("BENCH_VIEWER_CHUNKS", 40, minimum=1)
#: crossings a second of a random-vs-random match on ``arena serve`` (32 000 in 90 s, issue 27).
RATE = env_number("BENCH_VIEWER_RATE", 355, minimum=1)
GOAL_MS = 2000


def _browser(profile: Path):  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from cdp import CHROMIUM, Browser

    if CHROMIUM is None:
        raise SystemExit("python -m bench viewer: needs headless Chromium (Debian's chromium)")
    return Browser(profile)


def _open_ms(browser, url: str) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(the page's own ms to its first step, wall ms from the request)."""
    began = time.perf_counter()
    page = browser.open(url)
    ready = float(page.wait_for("document.documentElement.dataset.readyMs", 600))
    wall = (time.perf_counter() - began) * 1000
    page.close()
    return ready, wall


def main() -> None:
    import trio

    from replay.html import render_html
    from replay.matchlog import read_log
    from replay.timeline import build_timeline
    from server.competition.board import Board
    from server.competition.web import serve_board
    from sim.dungeon import DungeonGame

    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        game = DungeonGame(optimum=False, maps="digest", draw_steps=STEPS, log_budget=1 << 40)
        game.play_logged(1, ["random", "random"], root / "long.jsonl")
        log_path = root / "long.jsonl.gz"
        began = time.perf_counter()
        log = read_log(log_path)
        timeline = build_timeline(log)
        text = render_html(log, timeline)
        render_s = time.perf_counter() - began
        page = root / "long.html"
        page.write_text(text, encoding="utf-8")
        frames = len(timeline.frames) - 1
        browser = _browser(root / "profile")
        try:
            opened = [_open_ms(browser, page.as_uri() + "?step=0") for _ in range(REPEATS)]

            async def live() -> list[tuple[float, float]]:
                # The match "is played": its log grows in CHUNKS pieces at RATE crossings a
                # second while the server follows it; the page is opened once it is written.
                raw = log_path.read_bytes()
                growing = root / "growing.jsonl.gz"
                growing.write_bytes(b"")
                board = Board("bench")
                board.start("long", growing)  # still running: the live view
                async with trio.open_nursery() as nursery:
                    port = await nursery.start(serve_board, board, "127.0.0.1", 0)
                    for piece in range(1, CHUNKS + 1):
                        growing.write_bytes(raw[: len(raw) * piece // CHUNKS])
                        await trio.sleep(frames / RATE / CHUNKS)
                    url = f"http://127.0.0.1:{port}/live/long"
                    out = [
                        await trio.to_thread.run_sync(_open_ms, browser, url)
                        for _ in range(REPEATS)
                    ]
                    nursery.cancel_scope.cancel()
                return out

            served = trio.run(live)
        finally:
            browser.close()

    def row(what: str, figures: list[tuple[float, float]]) -> list[object]:
        ready = statistics.median(f[0] for f in figures)
        wall = statistics.median(f[1] for f in figures)
        verdict = "yes" if wall <= GOAL_MS else "NO"
        return [what, f"{ready:.0f}", f"{wall:.0f}", verdict]

    print_table(
        f"the viewer on a long match: random vs random, {STEPS} steps, {frames} frames, "
        f"page {len(text) / 1e6:.1f} MB, rendered in {render_s:.1f} s; live: written over "
        f"{frames / RATE:.0f} s",
        [
            "page (first open; then the median of the others)",
            "page ms to 1st step",
            "wall ms",
            f"<= {GOAL_MS} ms",
        ],
        [
            row("rendered file, first open", opened[:1]),
            row("rendered file, again", opened[1:] or opened),
            row("/live/NAME, first open (the server followed the log)", served[:1]),
            row("/live/NAME, again", served[1:] or served),
        ],
        width=110,
    )
