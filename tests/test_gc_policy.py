"""The server's garbage collection policy (server.gc_policy): what is frozen, and when the
safety net's full collection runs. Process-wide state: each test hands everything back."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from server.gc_policy import Collector


@pytest.fixture
def collector() -> Iterator[Collector]:
    policy = Collector(full_every=3)
    try:
        yield policy
    finally:
        policy.stopped()
        gc.enable()
        gc.collect()


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_start_freezes_everything_alive(collector: Collector) -> None:
    """After start-up nothing that exists is scanned by the collector any more."""
    collector.started()
    assert gc.get_freeze_count() > 0
    assert gc.get_objects(generation=2) == []
    assert collector.full_collections == 1


def test_only_the_policy_collects_while_the_server_runs(collector: Collector) -> None:
    """Automatic collections are off from start-up to stop (each one scanned every parked
    socket's coroutines), and back on afterwards."""
    collector.started()
    assert not gc.isenabled()
    collector.stopped()
    assert gc.isenabled()


def test_each_prepared_match_is_frozen_and_every_nth_runs_a_full_collection(
    collector: Collector,
) -> None:
    """A prepared match's objects are frozen; every ``full_every``-th preparation first hands
    the frozen objects back and collects, so a cycle caught by a freeze is freed in the end."""
    collector.started()
    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle, alive when the first match is frozen
    caught = weakref.ref(a)
    collector.match_prepared()
    del a, b  # now garbage, but frozen: the collector cannot see it
    gc.collect()
    assert caught() is not None
    collector.match_prepared()
    assert collector.full_collections == 1
    collector.match_prepared()  # the third: the safety net
    assert collector.full_collections == 2
    assert caught() is None


def test_stop_hands_every_frozen_object_back(collector: Collector) -> None:
    collector.started()
    collector.stopped()
    assert gc.get_freeze_count() == 0


def test_full_every_must_be_positive() -> None:
    with pytest.raises(ValueError, match="full_every"):
        Collector(full_every=0)
