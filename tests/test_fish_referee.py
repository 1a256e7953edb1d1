"""The Fish referee: the calls of a game in order, and a verdict for every kind of bad reply."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fish.calls import PlayingAs, Setup, TakeTurn
from fish.game import FishGame
from fish.referee import Effect, Expel, Failure, GameResult, Kind, Referee, Reply, Verdict
from fish.rules import GAME_TYPE
from floes import Floes
from floes.effects import Deadline, Over, Record, Send

ROWS, COLS = 6, 4
#: Row 2 is all holes but one, so penguins placed in rows 0-1 can try to jump over holes.
BOARD = [1] * 8 + [0, 0, 0, 3] + [2] * 12


def referee(players: int = 2) -> Referee:
    ref = Referee(ROWS, COLS, list(BOARD), players)
    ref.start()
    return ref


@dataclass(frozen=True)
class Call:
    """The pending call as the wire carries it."""

    seat: int
    name: str
    args: list[Any]


def next_call(ref: Referee) -> Call | None:
    send = ref.pending
    return None if send is None else Call(send.seat, send.message.name, send.message.to_json()[1])


def verdict_of(effects: list[Effect]) -> Verdict:
    verdicts = [e.entry for e in effects if isinstance(e, Record) and isinstance(e.entry, Verdict)]
    assert len(verdicts) == 1
    return verdicts[0]


def receive(ref: Referee, value: object) -> Verdict:
    """The verdict of the pending call's player answering ``value``."""
    assert ref.pending is not None
    return verdict_of(ref.apply(Reply(ref.pending.seat, value)))


def fail(ref: Referee, reason: str) -> Verdict:
    """The verdict of the pending call's player not answering (``reason``)."""
    seat = 0 if ref.pending is None else ref.pending.seat
    return verdict_of(ref.apply(Failure(seat, reason)))


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
    while (call := next_call(ref)) is not None:
        calls.append(call)
        verdict = receive(ref, reply(ref, call))
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
    assert next_call(ref) is None
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
    while (call := next_call(ref)) is not None:
        assert not (done and call.seat == cheater), "a removed player was called again"
        if call.seat == cheater and call.name == call_name and not done:
            reply = bad(ref.floes, cheater)
            if reply is None:
                verdicts.append(receive(ref, good(ref, call)))
                continue  # no such move yet: try at the next turn
            verdict = receive(ref, reply)
            assert (verdict.kind, verdict.seat) == (kind, cheater)
            assert reason in verdict.reason
            assert ref.floes.penguins[cheater] == []
            done = True
        else:
            verdicts.append(receive(ref, good(ref, call)))
    assert done, f"the game never offered a chance to {what}"
    assert all(verdict.kind == "ok" for verdict in verdicts)
    result = ref.result()
    assert (result.failed if kind == "failed" else result.cheaters) == (cheater,)
    assert cheater not in result.winners
    assert result.winners


def test_a_player_that_times_out_fails_and_leaves_the_state() -> None:
    """fail() removes the pending call's player; later States no longer list it."""
    ref = referee(3)
    while (call := next_call(ref)) is not None and call.name != "setup":
        receive(ref, "void")
    assert call is not None
    assert call.seat == 0
    verdict = fail(ref, "timed out after 3 s")
    assert (verdict.kind, verdict.seat, verdict.reason) == (
        "failed",
        0,
        "setup: timed out after 3 s",
    )
    call = next_call(ref)
    assert call is not None
    assert call.seat == 1
    assert [p["color"] for p in call.args[0]["players"]] == ["white", "brown"]


def test_a_game_where_everyone_fails_ends_without_winners() -> None:
    ref = referee(2)
    fail(ref, "gone")
    fail(ref, "gone")
    assert next_call(ref) is None
    assert ref.result().winners == ()
    assert ref.result().failed == (0, 1)
    with pytest.raises(RuntimeError):
        fail(ref, "again")


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
    while (call := next_call(ref)) is not None:
        calls += 1
        assert calls <= 2 * players + 2 * len(BOARD), "the game does not end"
        reply = next(answers, None)
        verdict = receive(ref, good(ref, call) if reply is None else reply)
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


def test_the_referee_answers_each_input_with_typed_effects_in_order() -> None:
    """start() sends the first call and sets its deadline; an answer is recorded, then its
    verdict, then a put-out seat is expelled, then the next call; the end records the result
    and says Over with the winners."""
    ref = Referee(ROWS, COLS, list(BOARD), 2)
    first = ref.start()
    assert first == [Send(0, PlayingAs("red")), Deadline(0)]
    assert PlayingAs("red").to_json() == ["playing-as", ["red"]]
    effects = ref.apply(Reply(0, "void", 0.25))
    assert effects[:2] == [Record(Reply(0, "void", 0.25)), Record(Verdict(0, Kind.OK))]
    assert isinstance(effects[2], Send)
    assert effects[2].seat == 1
    assert effects[3] == Deadline(1)
    with pytest.raises(ValueError, match="seat 0 answered, the call was to seat 1"):
        ref.apply(Reply(0, "void"))
    effects = ref.apply(Failure(1, "no reply within 3 s", 3.0))
    verdict = Verdict(1, Kind.FAILED, "playing-as: no reply within 3 s")
    assert effects[:3] == [
        Record(Failure(1, "no reply within 3 s", 3.0)),
        Record(verdict),
        Expel(1, Kind.FAILED, verdict.reason),
    ]
    while ref.pending is not None:
        call = next_call(ref)
        assert call is not None
        assert call.seat == 0
        effects = ref.apply(Reply(0, good(ref, call)))
    result = effects[-2]
    assert isinstance(result, Record)
    assert isinstance(result.entry, GameResult)
    assert result.entry.winners == (0,)
    assert result.entry.failed == (1,)
    assert effects[-1] == Over((0,), "nobody can move")
    assert ref.over
    with pytest.raises(RuntimeError):
        ref.apply(Reply(0, "void"))


def test_a_call_carries_a_typed_state_and_sends_the_courses_json() -> None:
    """setup and take-turn carry a StateView (tiles as ints); on the wire it is the course's
    State: players (color, score, places as [r, c]) then the board's rows."""
    ref = referee(2)
    while (call := next_call(ref)) is not None and call.name != "setup":
        receive(ref, "void")
    assert ref.pending is not None
    message = ref.pending.message
    assert isinstance(message, Setup)
    assert [p.color for p in message.state.players] == ["red", "white"]
    assert message.state.fish == tuple(BOARD)
    assert message.to_json() == [
        "setup",
        [
            {
                "players": [
                    {"color": "red", "score": 0, "places": []},
                    {"color": "white", "score": 0, "places": []},
                ],
                "board": [BOARD[r * COLS : (r + 1) * COLS] for r in range(ROWS)],
            }
        ],
    ]
    while ref.pending is not None and not isinstance(ref.pending.message, TakeTurn):
        receive(ref, good(ref, next_call(ref)))  # type: ignore[arg-type]
    turn = ref.pending.message if ref.pending else None
    assert isinstance(turn, TakeTurn)
    places = [list(divmod(t, COLS)) for t in ref.floes.penguins[0]]
    assert turn.to_json()[1][0]["players"][0]["places"] == places
