"""The live page in a real headless Chromium, driven over the DevTools protocol (tests/cdp.py).

The test plays a match itself, one crossing at a time, so it knows where an agent is when it
asks the page: the live view must show it there without a reload; the finished match must link
to its replay; the standings must change on the page when a match ends.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path

import pytest
import trio
from cdp import CHROMIUM, Browser, Page

from dungeon.config import DEFAULT_RULES
from protocol.codec import NEED_DATA, Codec
from protocol.messages import ClientMessage, Dungeon, Message, Move, Moved, Sat, Solution, Start
from server.app import Server, serve
from server.competition.board import Board, BoardMatch, server_observer
from server.competition.web import serve_board

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="headless Chromium is not installed (Debian package 'chromium'; run make browser)",
    ),
]

#: Every crossing survives and nothing stands in the way: the test knows where agents go.
CALM = DEFAULT_RULES.replace(
    nodes=300, radius=0.1, survival=1.0, npc_odds=0.0, npc_near_odds=0.0, npc_close_odds=0.0
)


class Agent:
    """One socket of the test's own team client."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.codec: Codec = Codec(Message)  # type: ignore[arg-type]

    async def send(self, message: ClientMessage) -> None:
        await self.stream.send_all(self.codec.send(message))

    async def expect(self, kind: type) -> object:
        """The next message of type ``kind`` (other messages, sightings, are skipped)."""
        while True:
            message = self.codec.next_message()
            if message is NEED_DATA:
                self.codec.receive_data(await self.stream.receive_some(1 << 20))
                continue
            if isinstance(message, kind):
                return message


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[Browser]:
    opened = await trio.to_thread.run_sync(Browser, tmp_path / "profile")
    try:
        yield opened
    finally:
        await trio.to_thread.run_sync(opened.close)


async def in_page(page: Page, expression: str) -> object:
    return await trio.to_thread.run_sync(page.wait_for, expression)


def agent_node(slot: int) -> str:
    return f"document.querySelector('#agents g.agent[data-slot=\"{slot}\"]')?.dataset.node"


async def test_the_live_view_follows_a_running_match_then_links_its_replay(
    tmp_path: Path, browser: Browser
) -> None:
    """A crossing made while the page is open moves the agent there on the page, twice; once
    the match ends, the match list links to its replay, which opens."""
    board = Board("server")
    server = Server(config=CALM, log_dir=tmp_path / "logs", observer=server_observer(board))
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, port=0, server=server, shutdown=stop))
        web = await nursery.start(serve_board, board, "127.0.0.1", 0)
        agents = []
        for team in (0, 1):
            for number in range(6):
                agent = Agent(await trio.open_tcp_stream("127.0.0.1", port))
                await agent.send(Start(team=team, agent=number, match="live"))
                agents.append(agent)
        walker = agents[1]  # team 0, agent 1: slot 1 on the page
        dungeon = await walker.expect(Dungeon)
        assert isinstance(dungeon, Dungeon)
        neighbours: dict[int, list[int]] = {}
        for u, v in dungeon.edges:
            neighbours.setdefault(u, []).append(v)
            neighbours.setdefault(v, []).append(u)
        forbidden = {dungeon.start[1], dungeon.shrine[1], dungeon.start[0]}
        here = dungeon.start[0]
        page = await trio.to_thread.run_sync(browser.open, f"http://127.0.0.1:{web}/live/live")
        assert await in_page(page, f"{agent_node(1)} === '{here}'")
        for _ in range(2):
            there = min(n for n in neighbours[here] if n not in forbidden)
            forbidden.add(here)
            await walker.send(Move(to=there))
            sat = await walker.expect(Sat)
            assert isinstance(sat, Sat)
            await walker.send(Solution(assignment=[False] * sat.switches))
            moved = await walker.expect(Moved)
            assert isinstance(moved, Moved)
            assert moved.location == there
            # The page was not reloaded: the server fed it the crossing.
            assert await in_page(page, f"{agent_node(1)} === '{there}'")
            here = there
        assert await in_page(page, "document.documentElement.dataset.live === 'running'")
        assert await in_page(page, "document.getElementById('mode').textContent") == "live"
        result = await in_page(page, "document.getElementById('result').textContent")
        assert result == "live: the match is being played"
        assert await in_page(page, "document.documentElement.dataset.result") == "live"
        # Each update extended the one viewer: it alone listens to keys and resizes.
        assert await in_page(page, "Number(document.documentElement.dataset.redraws) >= 2")
        assert await in_page(page, "getEventListeners(document).keydown.length") == 1
        assert await in_page(page, "getEventListeners(window).resize.length") == 1
        step = "Number(document.documentElement.dataset.step)"
        assert await in_page(page, f"{step} > 0")
        await in_page(page, "document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Home'}))"
                      " || true")  # fmt: skip
        assert await in_page(page, f"{step} === 0")
        for agent in agents[6:]:  # team 1 leaves: it forfeits and the match ends
            await agent.stream.aclose()
        assert await in_page(page, "document.documentElement.dataset.live === 'over'")
        assert await in_page(page, "document.getElementById('mode').textContent") == "replay"
        # A viewer looking back stays where it is when frames arrive; the result stays hidden
        # until it reaches the last step.
        assert await in_page(page, f"{step} === 0 && 'stayed'") == "stayed"
        assert await in_page(page, "document.documentElement.dataset.result") == "hidden"
        listing = await trio.to_thread.run_sync(browser.open, f"http://127.0.0.1:{web}/")
        href = await in_page(
            listing, "document.querySelector('tr[data-match=\"live\"] a.replay')?.href"
        )
        assert await in_page(
            listing, "document.querySelector('tr[data-match=\"live\"]').dataset.status"
        ) == "finished"  # fmt: skip
        replay = await trio.to_thread.run_sync(browser.open, str(href))
        title = await in_page(
            replay, "document.title.startsWith('Dungeon Arena replay') && document.title"
        )
        assert "live" in str(title)
        assert await in_page(replay, f"{agent_node(1)} !== undefined")
        home = "document.getElementById('home').getAttribute('href')"
        assert await in_page(replay, home) == "/"
        for agent in agents[:6]:
            await agent.stream.aclose()
        stop.set()
        nursery.cancel_scope.cancel()


async def test_the_standings_on_the_page_change_when_a_match_ends(
    tmp_path: Path, browser: Browser
) -> None:
    """The list shows a running match; when it ends, its row says so and the standings show
    the winner's new points, without a reload."""

    def row(team: str, points: float) -> dict[str, object]:
        return {"team": team, "rank": 1, "played": 1, "wins": 0, "draws": 0, "losses": 0,
                "points": points, "mu": 25.0, "sigma": 8.3}  # fmt: skip

    board = Board("cup")
    board.standings = [row("alpha", 0.0), row("bravo", 0.0)]
    board.start("cup-0000", None)
    async with trio.open_nursery() as nursery:
        web = await nursery.start(serve_board, board, "127.0.0.1", 0)
        page = await trio.to_thread.run_sync(browser.open, f"http://127.0.0.1:{web}/")
        assert await in_page(
            page, "document.querySelector('tr[data-match=\"cup-0000\"]')?.dataset.status"
        ) == "running"  # fmt: skip
        assert await in_page(page, "document.querySelector('tr[data-team=\"alpha\"]')") == {}
        points = "document.querySelector('tr[data-team=\"alpha\"]').dataset.points"
        assert await in_page(page, points) == "0"
        board.standings = [row("alpha", 1.0), row("bravo", 0.0)]
        board.finish("cup-0000", "alpha wins (shrine)", None)
        assert await in_page(page, f"{points} === '1'")
        state = await in_page(
            page, "document.querySelector('tr[data-match=\"cup-0000\"]').dataset.status"
        )
        assert state == "finished"
        text = await in_page(page, "document.querySelector('#matches').textContent")
        assert "alpha wins (shrine)" in json.dumps(text)
        nursery.cancel_scope.cancel()


async def test_the_page_says_finished_once_the_run_has_ended(
    tmp_path: Path, browser: Browser
) -> None:
    """A finished run's page says "finished" (badge and state line), not "live"."""
    board = Board("cup")
    board.matches["cup-preflight-alpha"] = BoardMatch(
        "cup-preflight-alpha", ("alpha", "check-client"), preflight=True
    )
    for name in ("cup-preflight-alpha", "cup-0000", "cup-0001"):
        board.start(name, None)
        board.finish(name, "alpha wins (shrine)", None)
    board.finished = True
    async with trio.open_nursery() as nursery:
        web = await nursery.start(serve_board, board, "127.0.0.1", 0)
        page = await trio.to_thread.run_sync(browser.open, f"http://127.0.0.1:{web}/")
        assert await in_page(page, "document.documentElement.dataset.finished") == "true"
        assert await in_page(page, "document.getElementById('badge').textContent") == "finished"
        state = await in_page(page, "document.getElementById('state').textContent")
        # The pre-flight check is not counted as a match of the tournament.
        assert state == "finished: 2 matches played (and 1 pre-flight check); the results are final"
        nursery.cancel_scope.cancel()


async def test_a_long_live_match_opens_on_its_newest_steps_then_fetches_the_rest(
    tmp_path: Path, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The live page of a long match holds its newest frames only (here 5), draws the newest
    step, then fetches the older ones: every step, the first included, can then be shown, with
    the score counted from the start."""
    from replay_logs import sim_log

    from server.competition import web
    from server.competition.live_feed import viewer_json_of

    monkeypatch.setattr(web, "LIVE_WINDOW", 5)
    log = sim_log(tmp_path / "long.jsonl", seed=4, maps="digest")
    whole = viewer_json_of(log, True)
    assert whole is not None
    board = Board("long")
    board.start("long", log)  # still running
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_board, board, "127.0.0.1", 0)
        page = await trio.to_thread.run_sync(browser.open, f"http://127.0.0.1:{port}/live/long")
        last = len(whole.frames) - 1
        base = "JSON.parse(document.getElementById('match-data').textContent).base"
        assert await in_page(page, base) == last + 1 - 5
        assert await in_page(page, "document.documentElement.dataset.history === 'loaded'")
        assert await in_page(page, "Number(document.documentElement.dataset.step)") == last
        assert await in_page(page, "document.getElementById('slider').max") == str(last)
        await in_page(page, "document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Home'}))"
                      " || true")  # fmt: skip
        assert await in_page(page, "document.documentElement.dataset.step === '0'")
        first = json.loads(whole.frames[0])["p"]
        assert await in_page(page, agent_node(0)) == str(first[0])
        score = await in_page(page, "document.getElementById('score').textContent")
        assert "crossings" in str(score)
        nursery.cancel_scope.cancel()
