"""One viewer for every game, in a real headless Chromium (Debian's ``chromium``; ``make
browser``): the page of a real log of each game at 1280x800 and 1920x1080.

Chromium loads the rendered file (no network) and dumps the DOM after the scripts ran. Each page
must draw its board, name its players in the header (escaped: a name is text, never markup),
open at ``?step=N``, keep the result hidden until the last step, and keep its legend on screen.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from viewer_logs import dungeon_log, fish_log, labyrinth_log, penguins_log

from replay.page import render_page

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="headless Chromium is not installed (Debian package 'chromium'; run make browser)",
    ),
]

SIZES = ["1280,800", "1920,1080"]
HOSTILE = ['<img src=x onerror="document.title=1">', "a&b </script><b>bold</b>"]


def dump_dom(page: Path, query: str, profile: Path, size: str) -> tuple[str, str]:
    """The DOM of ``page?query`` after its scripts ran, in a window of ``size`` pixels, and
    Chromium's console log."""
    assert CHROMIUM is not None
    done = subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}",
            "--enable-logging=stderr", "--v=0", f"--window-size={size}",
            "--dump-dom", f"{page.as_uri()}?{query}",
        ],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, done.stderr


def _dungeon(directory: Path) -> dict[str, Any]:
    from replay.html import viewer_data
    from replay.matchlog import read_log
    from replay.timeline import build_timeline

    log = read_log(dungeon_log(directory))
    return viewer_data(log, build_timeline(log))


def _fish(directory: Path) -> dict[str, Any]:
    from fish.gamelog import read_jsonl
    from fish.replay import view_data

    return view_data(read_jsonl(fish_log(directory)))


def _penguins(directory: Path) -> dict[str, Any]:
    from penguins.replay import read_events, view_data

    return view_data(read_events(penguins_log(directory, ("alice", "bob", "carol"))))


def _labyrinth(directory: Path) -> dict[str, Any]:
    from labyrinth.replay import read_game_log, view_data

    return view_data(read_game_log(str(labyrinth_log(directory))))


#: game: (its data from a real log, its drawing, its brand, what its board draws)
GAMES: dict[str, tuple[Callable[[Path], dict[str, Any]], str, str, str]] = {
    "dungeon": (_dungeon, "dungeon", "Dungeon Arena", r'<g class="agent team[01]'),
    "fish": (_fish, "floes", "Fish", r'<g class="floe (fish[123]|hole)"'),
    "penguins": (_penguins, "floes", "Penguins", r'<g class="floe (fish[123]|hole)"'),
    "labyrinth": (_labyrinth, "labyrinth", "Labyrinth", r'<g class="player"'),
}


@pytest.fixture(scope="module", params=sorted(GAMES))
def game(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """(name, data, page of the data, page of the data with hostile players' names)."""
    name: str = request.param
    build, drawing, brand, _ = GAMES[name]
    directory = tmp_path_factory.mktemp(name)
    data = build(directory)
    page = directory / "page.html"
    page.write_text(render_page({**data, "standings": "../index.html"}, drawing, brand))
    hostile = dict(data)
    hostile["players"] = [HOSTILE[seat % 2] for seat in range(len(data["players"]))]
    bad = directory / "hostile.html"
    bad.write_text(render_page(hostile, drawing, brand))
    return name, data, page, bad


def mark(dom: str, name: str) -> str | None:
    found = re.search(rf'<html[^>]*data-{name}="([^"]*)"', dom)
    return found.group(1) if found else None


def header(dom: str) -> str:
    found = re.search(r'<div id="facts">(.*?)</div>', dom, re.S)
    assert found is not None
    return found.group(1)


@pytest.mark.parametrize("size", SIZES)
def test_each_game_draws_its_board_players_and_hidden_result(
    game: Any, size: str, tmp_path: Path
) -> None:
    """At step 0: the board and its pieces, the players by name in the header, the seed when
    the log has one, the legend on screen, the result hidden, the way back to the standings."""
    name, data, page, _ = game
    last = len(data["frames"]) - 1
    assert last > 2, "a real game has moves"
    dom, console = dump_dom(page, "step=0", tmp_path / "p", size)
    assert "Uncaught" not in console
    assert mark(dom, "step") == "0"
    assert mark(dom, "legend") == "visible"
    assert mark(dom, "result") == "hidden"
    assert re.search(r'<span id="result"[^>]*hidden', dom)
    assert re.findall(GAMES[name][3], dom), "the board's pieces are drawn"
    facts = html.unescape(re.sub(r"<[^>]+>", "", header(dom)))
    for player in data["players"]:
        assert player in facts
    if data["seed"] is not None:
        assert f"seed {data['seed']}" in facts
    assert '<a id="home" href="../index.html">' in dom
    assert f"0 / {last}" in dom


@pytest.mark.parametrize("size", SIZES)
def test_each_game_opens_at_step_n_and_shows_the_result_at_the_end(
    game: Any, size: str, tmp_path: Path
) -> None:
    """?step=N opens at N (the step's own note at the cursor); the last step shows the result
    the log records."""
    _, data, page, _ = game
    last = len(data["frames"]) - 1
    middle = last // 2
    dom, _ = dump_dom(page, f"step={middle}", tmp_path / "m", size)
    assert mark(dom, "step") == str(middle)
    assert mark(dom, "result") == "hidden"
    notes = re.search(r'<ul id="notes">(.*?)</ul>', dom, re.S)
    assert notes is not None
    shown = html.unescape(re.sub(r"<[^>]+>", "", notes.group(1)))
    for _, text in data["frames"][middle]["notes"]:
        assert text in shown
    end, _ = dump_dom(page, f"step={last}", tmp_path / "e", size)
    assert mark(end, "result") == "shown"
    result = re.search(r'<span id="result"[^>]*>(.*?)</span>', end)
    assert result is not None
    assert html.unescape(result.group(1)) == data["result"]["text"]


def test_players_names_are_text_never_markup(game: Any, tmp_path: Path) -> None:
    """Names carrying HTML show as the characters they are, in the header, the legend and the
    side cards; none becomes an element."""
    bad = game[3]
    dom, console = dump_dom(bad, "step=1", tmp_path / "h", SIZES[0])
    assert "Uncaught" not in console
    assert "<img" not in dom
    assert "<b>bold</b>" not in dom
    assert "&lt;img src=x onerror=" in header(dom)
    assert "a&amp;b &lt;/script&gt;&lt;b&gt;bold&lt;/b&gt;" in header(dom)
    # the data sits in the page as JSON, "<" escaped: the script element is never cut short
    text = bad.read_text()
    assert "</script><b>" not in text
    payload = text.split('id="match-data">', 1)[1].split("</script>", 1)[0]
    assert json.loads(payload)["players"][1] == HOSTILE[1]


#: Numbers a note may hold that a JavaScript number would not write back as they were.
AWKWARD = "roll 0.700 at 007, 1e5, 12345678901234567890, 3.14159, 0.1, -2, 1.5.6 and 0.000001"


def test_a_long_matchs_file_draws_its_first_step_then_reads_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page holding more frames than FILE_WINDOW (here 5) carries the rest after the script,
    packed and compressed; once read, every step shows exactly what the frames say: its notes
    (awkward numbers too), time, log line, the agents' nodes, its moves, kills and NPCs killed,
    and the score so far at the end."""
    from cdp import Browser

    import replay.page

    monkeypatch.setattr(replay.page, "FILE_WINDOW", 5)
    data = _dungeon(tmp_path)
    frames = data["frames"]
    for index in (6, len(frames) // 2, len(frames) - 1):
        frames[index]["notes"].append(["seen", AWKWARD])
    page = tmp_path / "long.html"
    page.write_text(render_page(data, "dungeon", "Dungeon Arena"))
    assert 'id="more-frames" data-encoding="gzip+base64"' in page.read_text()
    last = len(frames) - 1
    browser = Browser(tmp_path / "profile")
    try:
        tab = browser.open(f"{page.as_uri()}?step={last - 1}")
        assert tab.wait_for("document.documentElement.dataset.history === 'loaded'")
        assert tab.evaluate("document.documentElement.dataset.step") == str(last - 1)
        assert (
            tab.evaluate("document.getElementById('stepno').textContent") == f"{last - 1} / {last}"
        )
        assert tab.evaluate("document.getElementById('more-frames') === null")
        shown = tab.evaluate(
            """(() => {
              const slider = document.getElementById("slider"), out = [];
              for (let step = 0; step <= Number(slider.max); step++) {
                slider.value = String(step);
                slider.dispatchEvent(new Event("input"));
                out.push({
                  notes: [...document.querySelectorAll("#notes li")].map((li) => li.textContent),
                  cursor: document.getElementById("cursor").textContent,
                  nodes: [...document.querySelectorAll("g.agent")]
                    .map((g) => Number(g.dataset.node)),
                  crossed: document.querySelectorAll("#effects .fx-move").length,
                  traps: document.querySelectorAll("#effects .fx-x").length,
                  kills: document.querySelectorAll("#effects .fx-burst").length,
                  dead: document.querySelectorAll("#npcs .npc.dead").length,
                  score: document.getElementById("score").textContent,
                });
              }
              return out;
            })()"""
        )
    finally:
        browser.close()
    assert len(shown) == len(frames)
    dead = 0
    crossings = [0, 0]
    for step, (frame, seen) in enumerate(zip(frames, shown, strict=True)):
        assert seen["notes"] == ([text for _, text in frame["notes"]] or ["nothing moved"]), step
        assert f"t {frame['t']:.3f} s" in seen["cursor"], step
        assert f"log line {frame['l']}" in seen["cursor"], step
        assert seen["nodes"] == frame["p"], step
        assert seen["crossed"] == sum(move[3] == "crossed" for move in frame["m"]), step
        assert seen["traps"] == sum(move[3] == "trap" for move in frame["m"]), step
        assert seen["kills"] == len(frame["k"]), step
        dead += len(frame["n"])
        assert seen["dead"] == dead, step
        for move in frame["m"]:
            crossings[move[0] // 6] += move[3] in ("crossed", "trap")
    assert shown[-1]["score"].startswith(f"team 0team 1crossings{crossings[0]}{crossings[1]}")
    assert sum(AWKWARD in seen["notes"] for seen in shown) == 3
