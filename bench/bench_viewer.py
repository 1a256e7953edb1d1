"""The viewer on a long match: how long until a page shows its first step in headless Chromium.

A random-vs-random dungeon match of the simulator (``BENCH_VIEWER_STEPS`` logical steps,
default 2000: 24 000 crossings, the viewer's frames) is logged as a digest log, then:

* ``arena replay render``'s work (read the log, build the timeline, write the page) and the
  page's size;
* the rendered file opened in Chromium, from navigation to the first step drawn (the page's own
  ``performance.now()`` when it is ready) and, wall time from the request, until the page has
  read every step (a long file's later steps are read after the first is drawn), the median of
  ``BENCH_VIEWER_REPEATS`` fresh tabs; ``BENCH_VIEWER_PAGES`` (comma-separated files): pages of
  the same match rendered otherwise (another version of ``arena``: the match is the same for the
  same ``BENCH_VIEWER_STEPS``), opened in turn with this one in the same browser;
* the live page of ``arena serve --web`` (``/live/NAME``, the match still running) opened the
  same way, after the log was written in ``BENCH_VIEWER_CHUNKS`` pieces at the pace of a real
  match (``BENCH_VIEWER_RATE`` crossings a second) while the server followed it (wall time
  from the request).

``BENCH_VIEWER_LIVE=0`` leaves the live page out (it takes the match's real time).

The goal is 2 s for a 10-minute random match (docs/replay.md). Needs Debian's ``chromium``.
"""

from __future__ import annotations

import os
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
LIVE = env_number("BENCH_VIEWER_LIVE", 1, minimum=0)
PAGES = [Path(p) for p in os.environ.get("BENCH_VIEWER_PAGES", "").split(",") if p]
GOAL_MS = 2000


def _browser(profile: Path):  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from cdp import CHROMIUM, Browser

    if CHROMIUM is None:
        raise SystemExit("python -m bench viewer: needs headless Chromium (Debian's chromium)")
    return Browser(profile)


def _open_ms(browser, url: str) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(the page's own ms to its first step, wall ms from the request until it holds every
    step it will read)."""
    began = time.perf_counter()
    page = browser.open(url)
    ready = float(page.wait_for("document.documentElement.dataset.readyMs", 600))
    page.wait_for("document.documentElement.dataset.history !== 'loading'", 600)
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
            # A fresh browser's first tab of a file also pays for starting its renderer: a
            # small page takes that, so each page's first open is its own.
            blank = root / "blank.html"
            blank.write_text("<!DOCTYPE html><title>blank</title>", encoding="utf-8")
            browser.open(blank.as_uri()).close()
            files = [page, *PAGES]
            opened: dict[Path, list[tuple[float, float]]] = {file: [] for file in files}
            for _ in range(REPEATS):
                for file in files:
                    url = file.resolve().as_uri() + "?step=0"
                    opened[file].append(_open_ms(browser, url))

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

            served = trio.run(live) if LIVE else []
        finally:
            browser.close()

    def row(what: str, figures: list[tuple[float, float]]) -> list[object]:
        if not figures:
            return [what, "-", "-", "-"]
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
            "wall ms to every step",
            f"<= {GOAL_MS} ms",
        ],
        [
            row("rendered file, first open", opened[page][:1]),
            row("rendered file, again", opened[page][1:] or opened[page]),
            *[
                row(f"{file.name} ({file.stat().st_size / 1e6:.1f} MB), {when}", figures)
                for file in PAGES
                for when, figures in (
                    ("first open", opened[file][:1]),
                    ("again", opened[file][1:] or opened[file]),
                )
            ],
            row("/live/NAME, first open (the server followed the log)", served[:1]),
            row("/live/NAME, again", served[1:] or served),
        ],
        width=110,
    )
