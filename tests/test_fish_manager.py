"""The Fish tournament manager: grouping, rounds and every end condition of the spec."""

from __future__ import annotations

import pytest

from fish.manager import Manager, Outcome, group


@pytest.mark.parametrize(
    ("players", "sizes"),
    [
        (2, [2]),
        (3, [3]),
        (4, [4]),
        (5, [3, 2]),
        (6, [4, 2]),
        (7, [4, 3]),
        (8, [4, 4]),
        (9, [4, 3, 2]),
        (10, [4, 4, 2]),
        (13, [4, 4, 3, 2]),
        (100, [4] * 25),
    ],
)
def test_players_are_grouped_by_four_and_never_left_alone(players: int, sizes: list[int]) -> None:
    """Games of 4 in sign-up order; a lone left-over player takes one from the last full game."""
    games = group(list(range(players)))
    assert [len(game) for game in games] == sizes
    assert [player for game in games for player in game] == list(range(players))


def test_nine_players_make_games_of_four_three_and_two() -> None:
    """The spec's example: 9 -> 4, 3, 2, in sign-up order."""
    assert group("abcdefghi") == [list("abcd"), list("efg"), list("hi")]


def play(manager: Manager[str], winners_of: dict[tuple[str, ...], tuple[str, ...]]) -> None:
    """Run rounds, each game's winners looked up by its players (default: its first player)."""
    while (games := manager.next_round()) is not None:
        manager.round_done([Outcome(winners_of.get(tuple(game), (game[0],))) for game in games])


def test_the_tournament_ends_after_a_single_game_round() -> None:
    """Rounds go on until one round is a single game: its winners are the tournament's."""
    manager = Manager("abcdefghi")
    manager.started("abcdefghi")
    play(manager, {("a", "e", "h"): ("a", "h")})
    # round 1: abcd efg hi -> a e h; round 2: aeh (one game) -> a h
    assert manager.rounds == [[list("abcd"), list("efg"), list("hi")], [list("aeh")]]
    assert manager.end_calls() == [(p, p in "ah") for p in "abcdefghi"]
    manager.ended("abcdefghi")
    assert manager.winners == ["a", "h"]
    assert manager.failed == []


def test_the_tournament_ends_when_fewer_than_two_winners_remain() -> None:
    """A round that leaves one winner ends the tournament, even with several games."""
    manager = Manager("abcdef")
    manager.started("abcdef")
    assert manager.next_round() == [list("abcd"), list("ef")]
    manager.round_done([Outcome(("a",)), Outcome((), failed=("e", "f"))])
    assert manager.next_round() is None
    assert manager.failed == ["e", "f"]
    assert manager.end_calls() == [("a", True), ("b", False), ("c", False), ("d", False)]


def test_the_tournament_ends_when_a_round_eliminates_nobody() -> None:
    """When a round's winners are exactly its participants, another round would change nothing."""
    manager = Manager("abcdef")
    manager.started("abcdef")
    assert manager.next_round() == [list("abcd"), list("ef")]
    manager.round_done([Outcome(tuple("abcd")), Outcome(("e", "f"))])
    assert manager.next_round() is None
    manager.ended("abcdef")
    assert manager.winners == list("abcdef")


def test_nobody_wins_when_every_game_loses_its_players() -> None:
    """Games whose players all fail or cheat leave no winner."""
    manager = Manager("abcde")
    manager.started("abcde")
    manager.next_round()
    manager.round_done(
        [Outcome((), failed=("a", "b"), cheaters=("c",)), Outcome((), cheaters=("d", "e"))]
    )
    assert manager.next_round() is None
    assert manager.end_calls() == []
    manager.ended([])
    assert (manager.winners, manager.failed, manager.cheaters) == ([], ["a", "b"], ["c", "d", "e"])


def test_a_player_that_does_not_acknowledge_start_fails_and_plays_no_game() -> None:
    """start(true) unanswered: that player fails before the first round."""
    manager = Manager("abcde")
    assert manager.start_calls() == list("abcde")
    manager.started("abde")
    assert manager.failed == ["c"]
    assert manager.next_round() == [list("abde")]


def test_fewer_than_two_starters_end_at_once() -> None:
    """With one player left after start there is no game; that player is the winner."""
    manager = Manager("abc")
    manager.started("b")
    assert manager.next_round() is None
    manager.ended("b")
    assert manager.winners == ["b"]
    assert manager.failed == ["a", "c"]


def test_a_winner_that_does_not_acknowledge_end_fails() -> None:
    """end(true) unanswered makes that winner fail; a loser's silence changes nothing."""
    manager = Manager("abcd")
    manager.started("abcd")
    play(manager, {("a", "b", "c", "d"): ("a", "b")})
    manager.ended(["a"])  # b (a winner) and c, d (losers) stayed silent
    assert manager.winners == ["a"]
    assert manager.failed == ["b"]


def test_failed_players_and_cheaters_get_no_end_call() -> None:
    """end(false) goes only to players that neither failed nor cheated."""
    manager = Manager("abcd")
    manager.started("abcd")
    manager.next_round()
    manager.round_done([Outcome(("a",), failed=("b",), cheaters=("c",))])
    assert manager.next_round() is None
    assert manager.end_calls() == [("a", True), ("d", False)]


def test_steps_out_of_order_are_our_bug() -> None:
    manager = Manager("ab")
    with pytest.raises(RuntimeError):
        manager.next_round()
    with pytest.raises(ValueError, match="own id"):
        Manager("aa")
