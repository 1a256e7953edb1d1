"""The live page's HTML: the board's state is in the page itself, drawn before any event."""

from __future__ import annotations

import json
import re
from pathlib import Path

from server.competition.board import Board
from server.competition.web import index_page


def test_the_page_carries_the_boards_state_so_it_draws_at_once() -> None:
    """The page embeds the board as it was when asked for (no empty table while the event
    stream connects), as JSON that a team name holding "</script>" cannot end early."""
    board = Board("cup")
    board.start("cup-0000", None)
    board.matches["cup-0000"].seats = ("</script><b>x", "bravo")
    board.finished = True
    page = index_page("cup", board.snapshot())
    found = re.search(r'<script type="application/json" id="board-data">(.*?)</script>', page)
    assert found is not None
    data = json.loads(found.group(1))
    assert data == json.loads(json.dumps(board.snapshot()))
    assert data["finished"] is True
    assert "</script><b>" not in found.group(1)


def test_only_a_match_with_a_log_offers_a_live_view() -> None:
    """A running dungeon match (a log to follow) says live; a running game of another kind
    (no log while it runs) does not, so the page offers no live view that would 404."""
    from pathlib import Path

    board = Board("cup")
    board.start("cup-0000", None)
    board.start("cup-0001", Path("cup-0001.jsonl"))
    rows = {row["name"]: row for row in board.snapshot()["matches"]}
    assert rows["cup-0000"]["live"] is False
    assert rows["cup-0001"]["live"] is True


def test_a_tournaments_live_view_names_its_teams(tmp_path: Path) -> None:
    """A tournament match watched live says who plays which team, as its replay page will; a
    plain server's match (no team names) keeps "team 0" and "team 1"."""
    from replay_logs import sim_log

    from server.competition.live_feed import viewer_json_of
    from server.competition.web import live_page

    data = viewer_json_of(sim_log(tmp_path / "m.jsonl", seed=4), True)
    assert data is not None

    def players(page: str) -> object:
        found = re.search(r'id="match-data">(.*?)</script>', page, re.S)
        assert found is not None
        return json.loads(found.group(1)).get("players")

    named = players(live_page("cup-0003", data, True, ("ann", "</script>bob")))
    assert named == ["team 0: ann", "team 1: </script>bob"]
    assert players(live_page("match-1", data, True)) != ["team 0: team 0", "team 1: team 1"]
