"""The HTML viewer in a real headless Chromium (Debian's ``chromium``; ``make browser``).

Chromium loads the rendered file (no network: every fetch is blocked by the page having none to
make) and dumps the DOM after the script ran. The agents' ``data-node`` at a step must be where
the rules engine, re-run from the log, put them after that step's log line; moving the step
slider must move them; a file of another schema version must be refused on screen.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from replay_logs import sim_log

from dungeon.engine import AgentId
from replay.html import render_html
from replay.matchlog import read_log
from replay.rerun import replay_until
from replay.timeline import build_timeline

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="headless Chromium is not installed (Debian package 'chromium'; run make browser)",
    ),
]

AGENT_TAG = re.compile(r"<g [^>]*class=\"agent[^\"]*\"[^>]*>")
ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')


def dump_dom(page: Path, query: str, profile: Path, size: str = "1024,768") -> tuple[str, str]:
    """The DOM of ``page?query`` after its scripts ran (in a window of ``size`` pixels), and
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


def agents_in(dom: str) -> dict[int, dict[str, str]]:
    """Each agent's SVG group attributes, by slot (team * 6 + agent)."""
    found = {}
    for tag in AGENT_TAG.findall(dom):
        attributes = dict(ATTRIBUTE.findall(tag))
        found[int(attributes["data-slot"])] = attributes
    return found


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    directory = tmp_path_factory.mktemp("viewer")
    log_path = sim_log(directory / "match.jsonl", seed=11)
    log = read_log(log_path)
    page = directory / "match.html"
    page.write_text(render_html(log, build_timeline(log)), encoding="utf-8")
    return log_path, page


def test_the_step_slider_moves_the_agents_to_where_the_engine_put_them(
    rendered: tuple[Path, Path], tmp_path: Path
) -> None:
    """At step 0 and after sliding to step N, every agent stands where the engine re-run says."""
    log_path, page = rendered
    log = read_log(log_path)
    timeline = build_timeline(log)
    step = len(timeline.frames) // 2
    start_dom, console = dump_dom(page, "step=0", tmp_path / "a")
    slid_dom, _ = dump_dom(page, f"step=0&slide={step}", tmp_path / "b")
    assert "Uncaught" not in console
    assert 'data-step="0"' in start_dom
    assert f'data-step="{step}"' in slid_dom
    engine, _ = replay_until(log, timeline.frames[step].line)
    begin, _ = replay_until(log, 1)
    before, after = agents_in(start_dom), agents_in(slid_dom)
    assert sorted(before) == sorted(after) == list(range(12))
    for slot in range(12):
        agent = AgentId(*divmod(slot, 6))
        assert int(before[slot]["data-node"]) == begin.location(agent)
        assert int(after[slot]["data-node"]) == engine.location(agent)
    moved = [slot for slot in range(12) if before[slot]["data-node"] != after[slot]["data-node"]]
    assert moved, "by the middle of the match some agent has left its start"
    for slot in moved:
        assert before[slot]["transform"] != after[slot]["transform"]


def test_every_agent_is_drawn_whole_inside_the_map_from_the_first_frame(
    rendered: tuple[Path, Path], tmp_path: Path
) -> None:
    """At step 0 the agents stand in a ring around their start; a start near the map's edge
    keeps its ring's markers inside the map's frame (the viewBox, -30 to 1030: a marker is
    12.5 screen pixels, at most 24 map units at 1024x768), and the first frame is placed, not
    animated in from the corner."""
    _, page = rendered
    dom, _ = dump_dom(page, "step=0", tmp_path / "edge")
    svg = re.search(r'<svg id="map"[^>]*>', dom)
    assert svg is not None
    assert "instant" not in svg.group(0)
    for slot, attributes in agents_in(dom).items():
        found = re.fullmatch(r"translate\((-?[\d.]+) (-?[\d.]+)\)", attributes["transform"])
        assert found is not None, attributes["transform"]
        for value in map(float, found.groups()):
            assert -30 + 20 <= value <= 1030 - 20, (slot, attributes["transform"])


def test_the_page_draws_the_dungeon_and_the_event_at_the_cursor(
    rendered: tuple[Path, Path], tmp_path: Path
) -> None:
    """The page draws corridors, both shrines, the NPCs, and lists the step's events."""
    log_path, page = rendered
    timeline = build_timeline(read_log(log_path))
    last = len(timeline.frames) - 1
    dom, _ = dump_dom(page, f"step={last}", tmp_path / "p")
    assert dom.count('class="shrine team') == 2
    assert dom.count('class="start team') == 2
    assert len(re.findall(r'class="npc[ "]', dom)) == len(timeline.frames[0].npcs)
    assert 'class="corridor"' in dom
    notes = re.search(r'<ul id="notes">(.*?)</ul>', dom, re.S)
    assert notes is not None
    assert "game over" in html.unescape(notes.group(1))
    assert f"{last} / {last}" in dom


def test_a_page_of_another_schema_is_refused_on_screen(
    rendered: tuple[Path, Path], tmp_path: Path
) -> None:
    """Data of another schema version is not drawn: the page says which versions differ."""
    _, page = rendered
    other = tmp_path / "other.html"
    text = page.read_text(encoding="utf-8")
    other.write_text(text.replace('{"schema":1,', '{"schema":99,', 1), encoding="utf-8")
    dom, _ = dump_dom(other, "step=0", tmp_path / "r")
    assert 'data-refused="schema"' in dom
    assert "schema version 1, but this file holds schema version 99" in dom
    assert not agents_in(dom)


SEED = 5751233590719982727  # over 2**53: a JavaScript number would round it


@pytest.fixture(scope="module")
def big_seed_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    directory = tmp_path_factory.mktemp("seed")
    log = read_log(sim_log(directory / "match.jsonl", seed=SEED))
    page = directory / "match.html"
    page.write_text(render_html(log, build_timeline(log)), encoding="utf-8")
    return page, len(build_timeline(log).frames) - 1


def result_of(dom: str) -> tuple[str, bool]:
    """The page's result mark (shown or hidden) and whether the result element is hidden."""
    mark = re.search(r'<html[^>]*data-result="(\w+)"', dom)
    element = re.search(r'<span id="result"([^>]*)>', dom)
    assert mark is not None
    assert element is not None
    return mark.group(1), "hidden" in element.group(1)


def test_the_viewer_shows_the_exact_seed(big_seed_page: tuple[Path, int], tmp_path: Path) -> None:
    page, _ = big_seed_page
    dom, console = dump_dom(page, "step=0", tmp_path / "s")
    assert "Uncaught" not in console
    assert f"seed <b>{SEED}</b>" in dom


@pytest.mark.parametrize("size", ["1024,768", "1920,1080"])
def test_the_result_stays_hidden_until_the_last_step(
    big_seed_page: tuple[Path, int], tmp_path: Path, size: str
) -> None:
    """At step 0 and in the middle the result is hidden (the legend fits the window); at the
    last step it shows; ?result (the toggle's state) shows it from the start."""
    page, last = big_seed_page
    first, _ = dump_dom(page, "step=0", tmp_path / "a", size)
    assert result_of(first) == ("hidden", True)
    assert 'data-legend="visible"' in first
    middle, _ = dump_dom(page, f"step=0&slide={last // 2}", tmp_path / "b", size)
    assert result_of(middle) == ("hidden", True)
    end, _ = dump_dom(page, f"step={last}", tmp_path / "c", size)
    assert result_of(end) == ("shown", False)
    asked, _ = dump_dom(page, "step=0&result", tmp_path / "d", size)
    assert result_of(asked) == ("shown", False)
    assert 'id="reveal"' in asked
    assert "hide result" in asked
