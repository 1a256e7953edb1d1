"""The fair-time ordering rule on virtual time: which request is applied first, whatever the
wall-clock order of arrival (docs/fair-time.md)."""

from __future__ import annotations

import pytest

from dungeon.fairtime import ALLOWANCE, THINK_HOLD, FairOrder, over_budget

A = ALLOWANCE

# Each case: a script of steps and the order the requests must be released in.
# ("obs", team, cpu, runnable) a reading; ("req", team, cpu, name) an arrival;
# ("rel",) releases what may go, appended to the order.
CASES = {
    # Team 1's request arrives first on the wall clock but cost more CPU: team 0's goes first.
    "cpu_not_arrival": (
        [("obs", 0, 0.0, True), ("req", 1, 0.50, "b"), ("rel",), ("req", 0, 0.10, "a"), ("rel",),
         ("obs", 0, 0.10, False), ("rel",)],
        ["a", "b"],
    ),
    # The cheaper request waits while the other team, thinking, is still below its stamp...
    "held_while_other_thinks": (
        [("obs", 1, 0.05, True), ("req", 0, 0.20, "a"), ("rel",)],
        [],
    ),
    # ...and goes once the thinking team has used more CPU than it.
    "released_when_other_passes": (
        [("obs", 1, 0.05, True), ("req", 0, 0.20, "a"), ("rel",), ("obs", 1, 0.30, True), ("rel",)],
        ["a"],
    ),
    # A team asleep (waiting on the server, or idle by choice) never holds the other up.
    "idle_team_does_not_block": (
        [("obs", 1, 0.0, False), ("req", 0, 5.0, "a"), ("rel",)],
        ["a"],
    ),
    # The idle team's clock is lifted: waking with little CPU, it does not jump the queue.
    "idle_team_lifted": (
        [
            ("obs", 1, 0.0, False), ("req", 0, 5.0, "a"), ("rel",),
            ("obs", 1, 0.01, True), ("req", 0, 5.1, "a2"), ("req", 1, 0.02, "b"), ("rel",),
        ],
        ["a", "b"],  # a2 (5.1) waits: team 1, awake, is at 5.02
    ),
    # A program that never yields: its CPU grows, so the other's requests still go.
    "never_yields": (
        [("req", 0, 0.1, "a1"), ("obs", 1, 1.0, True), ("rel",), ("req", 0, 0.2, "a2"),
         ("obs", 1, 2.0, True), ("rel",)],
        ["a1", "a2"],
    ),
    # Two instant programs: equal stamps go by team, then each request costs an allowance.
    "ties_by_team": (
        [("req", 1, 0.0, "b1"), ("req", 0, 0.0, "a1"), ("rel",)],
        ["a1", "b1"],
    ),
    # A team's own requests keep their order (stamps never decrease).
    "fifo_within_team": (
        [("obs", 1, 9.0, True), ("req", 0, 0.3, "a1"), ("req", 0, 0.1, "a2"), ("rel",)],
        ["a1", "a2"],
    ),
    # Held requests of both teams: interleaved by stamp.
    "interleaved": (
        [("req", 0, 0.1, "a1"), ("req", 0, 0.3, "a2"), ("req", 1, 0.2, "b1"),
         ("req", 1, 0.4, "b2"), ("obs", 0, 1.0, True), ("obs", 1, 1.0, True), ("rel",)],
        ["a1", "b1", "a2", "b2"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_release_order(name: str) -> None:
    script, expected = CASES[name]
    order, released = FairOrder(), []
    for step in script:
        if step[0] == "obs":
            order.observe(step[1], step[2], runnable=step[3])
        elif step[0] == "req":
            order.arrive(step[1], step[2], step[3])
        else:
            released += order.release()
    assert released == expected


def test_a_multithreaded_team_pays_for_every_thread() -> None:
    # Two threads for 0.1 s of wall time read as 0.2 CPU-s: the single-threaded team's request
    # at 0.15 goes first although the threaded one "thought" for less wall time.
    order = FairOrder()
    order.arrive(1, 0.2, "threads")
    order.arrive(0, 0.15, "single")
    order.observe(0, 0.15, runnable=False)  # it waits for the server's answer
    assert order.release() == ["single", "threads"]


def test_stamp_counts_the_allowance_per_request() -> None:
    order = FairOrder()
    assert order.arrive(0, 0.0, "a") == pytest.approx(A)
    assert order.arrive(0, 0.0, "b") == pytest.approx(2 * A)


# Messages to a team: (team 0's reading, team 1's reading, team 1 holds a request) and the
# CPU team 1 must still use before messages to team 0 may go (0.0: at once).
WAITS = {
    # Team 0 asleep with 0.30 CPU-s used, team 1 thinking at 0.10: what team 1 does up to
    # 0.30 belongs to team 0's wake; its messages wait for it.
    "asleep_ahead_of_a_thinker": ((0.30, False), (0.10, True), False, 0.30 - 0.10 - A),
    # Team 1 has passed team 0's clock (its next request is stamped after it): at once.
    "asleep_behind_a_thinker": ((0.10, False), (0.30, True), False, 0.0),
    # Both asleep: nobody can send anything before team 0 wakes.
    "both_asleep": ((0.30, False), (0.10, False), False, 0.0),
    # Team 0 thinking: its messages wait for its sleep, or for THINK_HOLD more of its CPU.
    "thinking": ((0.30, True), (0.10, True), False, THINK_HOLD),
    # Team 1 holds a request: the release goes first, and what it causes goes with it.
    "other_holds_a_request": ((0.30, False), (0.10, True), True, 0.0),
}


@pytest.mark.parametrize("name", sorted(WAITS))
def test_messages_to_a_team_asleep_wait_for_its_wake(name: str) -> None:
    zero, one, holds, expected = WAITS[name]
    order = FairOrder()
    order.observe(0, zero[0], runnable=zero[1])
    order.observe(1, one[0], runnable=one[1])
    if holds:
        order.arrive(1, one[0], "b")
        order.observe(1, one[0] + A, runnable=True)
    assert order.waits(0) == pytest.approx(expected)


def test_a_team_thinking_hears_after_think_hold_of_its_cpu_if_it_never_sleeps() -> None:
    # Messages for team 0 began to wait at 0.300 CPU-s; it thinks on without sleeping: they
    # wait THINK_HOLD of its CPU, counted from then, not from now; asleep, they go at once.
    order = FairOrder()
    order.observe(1, 0.0, runnable=False)
    order.observe(0, 0.300, runnable=True)
    assert order.waits(0, owed_since=0.300) == pytest.approx(THINK_HOLD)
    order.observe(0, 0.300 + THINK_HOLD / 2, runnable=True)
    assert order.waits(0, owed_since=0.300) == pytest.approx(THINK_HOLD / 2)
    order.observe(0, 0.300 + THINK_HOLD, runnable=True)
    assert order.waits(0, owed_since=0.300) == 0.0
    order.observe(0, 0.301, runnable=False)
    assert order.waits(0, owed_since=0.300) == 0.0


def test_a_team_lifted_to_a_released_stamp_gets_what_it_caused_at_once() -> None:
    # Team 0 asleep at 0.10; team 1 sends at 0.30 and thinks on: team 0 is lifted to the
    # request's stamp, and the messages the request causes go at once.
    order = FairOrder()
    order.observe(0, 0.10, runnable=False)
    order.observe(1, 0.30, runnable=True)
    order.arrive(1, 0.30, "b")
    assert order.release() == ["b"]
    assert order.clock(0) == pytest.approx(0.30 + A)
    assert order.waits(0) == 0.0


def test_time_bank() -> None:
    assert over_budget(10.5, 10.0)
    assert not over_budget(9.9, 10.0)
    assert not over_budget(1e9, None)
