"""The Fish referee: the calls of a game in order, and a verdict for every kind of bad reply."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fish.game import FishGame
from fish.referee import Call, Referee
from fish.rules import GAME_TYPE
from floes import Floes

ROWS, COLS = 6, 4
#: Row 2 is all holes but one, so penguins placed in rows 0-1 can try to jump over holes.
BOARD = [1] * 8 + [0, 0, 0, 3] + [2] * 12


def referee(players: int = 2) -> Referee:
    return Referee(ROWS, COLS, list(BOARD), players)


def good(ref: Referee, call: Call) -> Any:
    """The course's simple player: first free tile, then the smallest legal move."""
    floes = ref.floes
    if call.name == "setup":
        return list(divmod(floes.placements(call.seat)[0], COLS))
    if call.name == "take-turn":
        src, dst = floes.moves(call.seat)[0]
        return [list(divmod(src, COLS)), list(divmod(dst, COLS))]
    return "void"


def run(ref: Referee, reply: Callable[[Referee, Call], Any]) -> list[Call]:
    calls = []
    while (call := ref.next_call()) is not None:
        calls.append(call)
        verdict = ref.receive(reply(ref, call))
        assert verdict.seat == call.seat
    return calls


def test_a_game_of_good_players_runs_to_the_end() -> None:
    """playing-as and playing-with to each seat, setups round robin, turns until nobody moves."""
    ref = referee(3)
    calls = run(ref, good)
    names = [(call.seat, call.name) for call in calls]
    assert names[:6] == [
        (0, "playing-as"), (1, "playing-as"), (2, "playing-as"),
        (0, "playing-with"), (1, "playing-with"), (2, "playing-with"),
    ]  # fmt: skip
    assert calls[0].args == ["red"]
    assert calls[4].args == [["brown", "red"]]
    assert [seat for seat, name in names if name == "setup"] == [0, 1, 2] * 3
    assert ref.over
    assert ref.next_call() is None
    result = ref.result()
    assert result.failed == result.cheaters == ()
    assert set(result.winners) | set(result.rest) == {0, 1, 2}
    best = max(result.scores)
    assert [seat for seat in range(3) if result.scores[seat] == best] == list(result.winners)


def test_a_state_lists_the_receiver_first() -> None:
    """Each setup's State starts with the receiving player's colour."""
    ref = referee(3)
    for call in run(ref, good):
        if call.name in ("setup", "take-turn"):
            assert call.args[0]["players"][0]["color"] == ref.colors[call.seat]


def test_take_turn_carries_the_moves_since_the_players_last_turn() -> None:
    """A turn's action list holds the other players' moves since that player's last turn."""
    ref = referee(2)
    turns = [call for call in run(ref, good) if call.name == "take-turn"]
    assert turns[0].args[1] == []
    assert all(len(call.args[1]) <= 1 for call in turns)
    assert any(len(call.args[1]) == 1 for call in turns)


def first_penguin(floes: Floes, seat: int) -> list[int]:
    return list(divmod(floes.penguins[seat][0], COLS))


def any_other_penguin(floes: Floes, seat: int) -> list[int]:
    others = [t for s in range(floes.seats) if s != seat for t in floes.penguins[s]]
    return list(divmod(others[0], COLS))


def jump_over(floes: Floes, seat: int, blocked: Callable[[int], bool]) -> Any:
    """A move of ``seat`` along a line, past a blocked tile, onto a free one; None if none."""
    for src in floes.penguins[seat]:
        for line in floes.layout.rays[src]:
            passed = False
            for tile in line:
                if blocked(tile):
                    passed = True
                elif floes.is_free(tile) and passed:
                    return [list(divmod(src, COLS)), list(divmod(tile, COLS))]
                elif not floes.is_free(tile):
                    break  # another kind of obstacle
    return None


def hole_of(floes: Floes) -> list[int]:
    return list(divmod(floes.fish.index(0), COLS))


Bad = Callable[[Floes, int], Any]
CASES: list[tuple[str, str, Bad, str, str]] = [
    ("playing-as", "a number", lambda f, s: 0, "failed", "expected"),
    ("playing-with", "an array", lambda f, s: [], "failed", "expected"),
    ("setup", "void", lambda f, s: "void", "failed", "expected a position"),
    ("setup", "one number", lambda f, s: [0], "failed", "expected a position"),
    ("setup", "booleans", lambda f, s: [True, 0], "failed", "expected a position"),
    ("setup", "off the board", lambda f, s: [ROWS, 0], "cheated", "off the board"),
    ("setup", "negative", lambda f, s: [-1, 0], "cheated", "off the board"),
    ("setup", "on a hole", lambda f, s: hole_of(f), "cheated", "on a hole"),
    ("setup", "on a penguin", lambda f, s: any_other_penguin(f, s), "cheated", "on a penguin"),
    ("take-turn", "a position", lambda f, s: [0, 0], "failed", "expected an action"),
    ("take-turn", "off the board", lambda f, s: [first_penguin(f, s), [0, COLS]], "cheated",
     "off the board"),
    ("take-turn", "someone else's penguin", lambda f, s: [any_other_penguin(f, s), [5, 3]],
     "cheated", "no penguin of its own"),
    ("take-turn", "onto a hole", lambda f, s: [first_penguin(f, s), hole_of(f)], "cheated",
     "onto a hole"),
    ("take-turn", "onto a penguin", lambda f, s: [first_penguin(f, s), any_other_penguin(f, s)],
     "cheated", "onto a penguin"),
    ("take-turn", "over a hole", lambda f, s: jump_over(f, s, lambda t: f.fish[t] == 0),
     "cheated", "jumped over a hole"),
    ("take-turn", "over a penguin", lambda f, s: jump_over(f, s, lambda t: f.owner[t] >= 0),
     "cheated", "jumped over a penguin"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call_name", "what", "bad", "kind", "reason"), CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES]
)
def test_a_bad_reply_removes_the_player_and_the_game_goes_on(
    call_name: str, what: str, bad: Bad, kind: str, reason: str
) -> None:
    """Each bad reply gets its verdict (failed or cheated); the player loses its penguins, is
    never called again, and the others finish the game."""
    ref = referee(3)
    cheater = 1
    done = False
    verdicts = []
    while (call := ref.next_call()) is not None:
        assert not (done and call.seat == cheater), "a removed player was called again"
        if call.seat == cheater and call.name == call_name and not done:
            reply = bad(ref.floes, cheater)
            if reply is None:
                verdicts.append(ref.receive(good(ref, call)))
                continue  # no such move yet: try at the next turn
            verdict = ref.receive(reply)
            assert (verdict.kind, verdict.seat) == (kind, cheater)
            assert reason in verdict.reason
            assert ref.floes.penguins[cheater] == []
            done = True
        else:
            verdicts.append(ref.receive(good(ref, call)))
    assert done, f"the game never offered a chance to {what}"
    assert all(verdict.kind == "ok" for verdict in verdicts)
    result = ref.result()
    assert (result.failed if kind == "failed" else result.cheaters) == (cheater,)
    assert cheater not in result.winners
    assert result.winners


def test_a_player_that_times_out_fails_and_leaves_the_state() -> None:
    """fail() removes the pending call's player; later States no longer list it."""
    ref = referee(3)
    while (call := ref.next_call()) is not None and call.name != "setup":
        ref.receive("void")
    assert call is not None
    assert call.seat == 0
    verdict = ref.fail("timed out after 3 s")
    assert (verdict.kind, verdict.seat, verdict.reason) == (
        "failed",
        0,
        "setup: timed out after 3 s",
    )
    call = ref.next_call()
    assert call is not None
    assert call.seat == 1
    assert [p["color"] for p in call.args[0]["players"]] == ["white", "brown"]


def test_a_game_where_everyone_fails_ends_without_winners() -> None:
    ref = referee(2)
    ref.fail("gone")
    ref.fail("gone")
    assert ref.next_call() is None
    assert ref.result().winners == ()
    assert ref.result().failed == (0, 1)
    with pytest.raises(RuntimeError):
        ref.fail("again")


replies = st.one_of(
    st.just("void"),
    st.lists(st.integers(-2, 7), min_size=2, max_size=2),
    st.lists(st.lists(st.integers(-1, 6), min_size=2, max_size=2), min_size=2, max_size=2),
    st.none() | st.booleans() | st.text(max_size=3) | st.floats(allow_nan=False),
    st.lists(st.integers(0, 3), max_size=3),
)


@given(st.integers(2, 4), st.lists(replies, max_size=60))
def test_no_reply_can_crash_or_stall_the_referee(players: int, script: list[object]) -> None:
    """Whatever the players answer, each answer gets a verdict and the game ends: the calls
    are bounded by the number of penguins and tiles."""
    ref = referee(players)
    answers = iter(script)
    calls = 0
    while (call := ref.next_call()) is not None:
        calls += 1
        assert calls <= 2 * players + 2 * len(BOARD), "the game does not end"
        reply = next(answers, None)
        verdict = ref.receive(good(ref, call) if reply is None else reply)
        assert verdict.kind in ("ok", "failed", "cheated")
    result = ref.result()
    assert sorted(result.winners + result.failed + result.cheaters + result.rest) == list(
        range(players)
    )


@pytest.mark.parametrize("players", [1, 5])
def test_fish_takes_the_players_its_game_type_declares(players: int) -> None:
    """Fish's facts are declared once (fish.rules.GAME_TYPE): the referee and the simulator
    refuse a seat count outside 2-4 with the same sentence."""
    assert (GAME_TYPE.name, GAME_TYPE.min_players, GAME_TYPE.max_players) == ("fish", 2, 4)
    with pytest.raises(ValueError, match=f"Fish is for 2-4 players, got {players}"):
        referee(players)
    with pytest.raises(ValueError, match=f"^players: Fish is for 2-4 players, got {players}"):
        FishGame(players=players)
