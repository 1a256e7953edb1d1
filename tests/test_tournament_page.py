"""The live page's HTML: the board's state is in the page itself, drawn before any event."""

from __future__ import annotations

import json
import re

from arena.tournament.board import Board
from arena.tournament.web import index_page


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
