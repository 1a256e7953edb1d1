"""The dungeon socket's session rules (protocol/session.py), as a table."""

from __future__ import annotations

import pytest

from protocol.session import TRANSITIONS, Event, Phase, Session, SessionError

E, P = Event, Phase


@pytest.mark.parametrize(
    ("events", "phase"),
    [
        ([], P.AWAIT_START),
        ([E.START_REFUSED, E.START_ACCEPTED], P.JOINED),
        ([E.START_ACCEPTED, E.MOVE, E.DUNGEON], P.FREE),
        ([E.START_ACCEPTED, E.DUNGEON, E.MOVE, E.SAT, E.SOLUTION, E.ANSWERED], P.FREE),
        ([E.START_ACCEPTED, E.DUNGEON, E.MOVE, E.ERROR], P.FREE),
        ([E.START_ACCEPTED, E.DUNGEON, E.MOVE, E.SAT, E.SOLUTION, E.ERROR], P.FREE),
        ([E.START_ACCEPTED, E.DUNGEON, E.MOVE, E.GAME_OVER], P.OVER),
        ([E.START_ACCEPTED, E.CLOSED], P.CLOSED),
    ],
)
def test_a_socket_moves_through_the_phases_the_spec_allows(
    events: list[Event], phase: Phase
) -> None:
    """Each sequence of allowed events ends in the phase the spec's rules give."""
    session = Session(error_limit=100)
    for event in events:
        session.handle(event)
    assert session.phase is phase


@pytest.mark.parametrize(
    ("events", "bad"),
    [
        ([], E.DUNGEON),  # a `dungeon` before any start
        ([E.START_ACCEPTED], E.SAT),  # a `sat` before `dungeon`
        ([E.START_ACCEPTED, E.DUNGEON], E.DUNGEON),  # a second `dungeon`
        ([E.START_ACCEPTED, E.DUNGEON], E.ANSWERED),  # an answer nobody asked for
        ([E.START_ACCEPTED, E.GAME_OVER], E.MOVE),  # anything after `game_over`
        ([E.CLOSED], E.START_ACCEPTED),  # anything after the close
    ],
)
def test_what_the_rules_do_not_allow_is_a_session_error(events: list[Event], bad: Event) -> None:
    """An event outside the table raises SessionError and leaves the phase as it was."""
    session = Session(error_limit=100)
    for event in events:
        session.handle(event)
    before = session.phase
    with pytest.raises(SessionError):
        session.handle(bad)
    assert session.phase is before


def test_every_transition_names_real_phases_and_never_leaves_closed() -> None:
    """The table maps (phase, event) pairs to phases; CLOSED and OVER have no way out."""
    assert all(p not in (P.CLOSED, P.OVER) for p, _ in TRANSITIONS)
    assert all(isinstance(after, Phase) for after in TRANSITIONS.values())


def test_the_error_that_reaches_the_limit_refuses_the_socket() -> None:
    """Errors are counted when made; the limit-th makes the session refused, and later ones
    are not counted."""
    session = Session(error_limit=3)
    assert [session.error_made() for _ in range(4)] == [True, True, True, False]
    assert session.refused
    assert session.errors == 3


def test_lines_before_dungeon_count_against_the_held_budget() -> None:
    """Once joined, lines before `dungeon` count (blank ones passed in too); past the budget
    the answer is False; before the start and after `dungeon` they do not count."""
    session = Session(error_limit=100, held_limit=4)
    assert session.early_line(10)  # before the start: not counted
    session.handle(E.START_ACCEPTED)
    assert session.early_line(3)
    assert session.early_line(1)
    assert not session.early_line(1)
    session.handle(E.DUNGEON)
    assert session.began
