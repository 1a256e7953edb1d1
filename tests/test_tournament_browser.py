"""What a tournament leaves for the teacher, as headless Chromium shows it: the results page
(index.html), a failing program's output reached from it, a replay page naming the teams with
its way back, and a team's report. Screenshots in the test's folder (TOURNAMENT_SHOTS=DIR keeps
them, to look at)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from cdp import CHROMIUM, Browser
from tournament_kit import CRASHING, arena_team, sandbox_mode, write_teams

from arena.tournament.cli import main

TEAMS = [
    {"name": "house", "builtin": "reference"},
    {"name": "ext", "dir": "ext", "command": arena_team("rusher")},
    {"name": "crashy", "dir": "crashy", "command": ["python3", "client.py", "{team}", "{token}"]},
]


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (make browser)")
def test_the_results_pages_read_right_in_a_browser(tmp_path: Path) -> None:
    teams = write_teams(tmp_path, TEAMS, {"ext": "", "crashy": CRASHING})
    out = tmp_path / "out"
    assert main([str(teams), "--out", str(out), "--sandbox", sandbox_mode()]) == 0
    shots = tmp_path / "shots"
    shots.mkdir()
    index = (out / "index.html").as_uri()
    browser = Browser(tmp_path / "profile")
    try:
        page = browser.open(index)
        # Standings: every team, the loser of every match last; the interval is explained.
        rows = "[...document.querySelectorAll('#standings tr')].slice(1)"
        assert page.wait_for(f"{rows}.length === 3")
        assert page.evaluate(f"{rows}[2].textContent.includes('crashy')")
        assert page.evaluate("document.body.textContent.includes('95% confidence')")
        # The head to head's legend says what yellow means (2 games a pair: not enough).
        legend = "document.body.textContent.includes('yellow: not enough games')"
        assert page.evaluate(legend)
        assert page.evaluate("document.querySelectorAll('#head-to-head td').length") > 0
        assert page.evaluate("document.querySelector('img[src^=\"data:image/png\"]') !== null")
        page.screenshot(shots / "index.png", 1280, 1600)
        # A failure links to the program's own output, which opens.
        output = page.evaluate(
            "[...document.querySelectorAll('a')].find(a => a.textContent === 'its output').href"
        )
        assert "crashy" in output
        # Its pre-flight failure too: every failure links to the program's output.
        links = "[...document.querySelectorAll('li')].filter(li => li.textContent.includes"
        assert page.evaluate(
            f"{links}('crashed')).every(li => li.querySelector('a[href$=\".txt\"]'))"
        )
        assert page.evaluate(f"{links}('preflight')).length") == 1
        page.goto(output)
        assert page.wait_for("document.body.textContent.includes('starting, then failing')")
        # A replay page names the teams and leads back to the standings.
        page.goto(index)
        page.wait_for("document.querySelectorAll('#matches a').length > 0")
        replay = page.evaluate(
            "[...document.querySelectorAll('#matches a')].find(a => a.textContent === 'replay')"
            ".href"
        )
        page.goto(replay)
        assert page.wait_for("document.title.startsWith('Dungeon Arena replay')")
        assert page.wait_for("document.querySelector('#agents g.agent') !== null")
        header = page.evaluate("document.querySelector('header').textContent")
        assert "team 0: " in header
        assert "team 1: " in header
        home = page.evaluate("document.getElementById('home').href")
        assert home == index
        page.screenshot(shots / "replay.png", 1280, 800)
        # A team's report: its failures, with its output inline.
        page.goto((out / "teams" / "crashy" / "report.html").as_uri())
        assert page.wait_for("document.body.textContent.includes('starting, then failing')")
        assert page.evaluate("document.body.textContent.includes('crashed')")
        page.screenshot(shots / "report.png", 1280, 900)
    finally:
        browser.close()
    for name in ("index.png", "replay.png", "report.png"):
        assert (shots / name).stat().st_size > 10_000
    if os.environ.get("TOURNAMENT_SHOTS"):
        for shot in shots.iterdir():
            shutil.copy(shot, Path(os.environ["TOURNAMENT_SHOTS"]) / f"tournament-{shot.name}")
