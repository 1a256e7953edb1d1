"""Long random games: random legal and illegal requests from all twelve agents, checking after
every input what each agent was told against what the spec says it should know.

A tiny, dense dungeon makes agents meet, fight and die all the time.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from dungeon.config import RulesConfig
from dungeon.engine import AGENTS, AgentId, Disconnect, Input, Match, Output, Request, TimeUp
from dungeon.events import Kill
from protocol.messages import Enemy, Error, GameOver, Move, Moved, Sat, Solution

# Random assignments leave about 10 traps active: survival 0.97 lets about 3 crossings in 4 through.
CROWDED = RulesConfig(nodes=60, radius=0.25, npc_odds=0.3, survival=0.97)
SEEDS = [1, 2, 3, 4]
INPUTS_PER_SEED = 2500


class Watcher:
    """What one agent's socket has been told: its place and the sightings it holds."""

    def __init__(self) -> None:
        self.location: int | None = None
        self.sightings: set[tuple[int, int]] = set()
        self.over = False


def truth(match: Match, agent: AgentId) -> set[tuple[int, int]]:
    """The (location, entity) pairs the spec says ``agent`` sees right now."""
    enemy = match.locations(1 - agent.team)
    view = match.dungeon.views[match.location(agent)]
    seen = {(enemy[0], 0)}
    seen |= {(enemy[a], a) for a in range(1, 6) if enemy[a] in view}
    seen |= {(node, -1) for node in match.npcs if node in view}
    return seen


def receive(watchers: dict[AgentId, Watcher], output: Output) -> None:
    """Feed an output to the agents' models, asserting the pairing rule message by message."""
    for outbound in output.messages:
        watcher = watchers[outbound.to]
        message = outbound.message
        assert not watcher.over, "nothing comes after game_over"
        if isinstance(message, Enemy):
            pair = (message.location, message.agent)
            if message.seen:
                assert pair not in watcher.sightings, f"seen twice: {pair}"
                assert all(e != message.agent or message.agent == -1 for _, e in watcher.sightings)
                watcher.sightings.add(pair)
            else:
                assert pair in watcher.sightings, f"unseen without seen: {pair}"
                watcher.sightings.remove(pair)
        elif isinstance(message, Moved):
            watcher.location = message.location
        elif isinstance(message, GameOver):
            watcher.over = True


def random_input(match: Match, rng: random.Random) -> Input:
    """A random request, legal or not, with now and then a draw or a forfeit."""
    roll = rng.random()
    if roll < 0.0002:
        return TimeUp()
    if roll < 0.0004:
        return Disconnect(AgentId(rng.randrange(2), rng.randrange(6)))
    agent = AgentId(rng.randrange(2), rng.randrange(6))
    here = match.location(agent)
    neighbours = match.dungeon.adjacency[here]
    pending = match.pending(agent)
    choice = rng.random()
    if pending is None and choice < 0.85 and neighbours:
        return Request(agent, Move(to=rng.choice(neighbours)))
    if pending is not None and choice < 0.85:
        return Request(agent, Solution(assignment=[rng.random() < 0.5 for _ in range(20)]))
    if choice < 0.9:
        return Request(agent, Move(to=rng.randrange(match.dungeon.node_count + 3)))
    return Request(agent, Solution(assignment=[True] * rng.choice([0, 19, 20, 21])))


def play(seed: int) -> Iterator[tuple[Match, Input | None, Output]]:
    """INPUTS_PER_SEED random inputs over as many games as they take, each game's begin()
    first (input None); yields every (match, input, output) right after it was applied."""
    rng = random.Random(seed)
    applied = 0
    games = 0
    while applied < INPUTS_PER_SEED:
        games += 1
        match = Match(seed * 1000 + games, CROWDED)
        yield match, None, match.begin()
        while not match.is_over and applied < INPUTS_PER_SEED:
            event = random_input(match, rng)
            before = match.snapshot()
            output = match.apply(event)
            applied += 1
            if any(isinstance(o.message, Error) for o in output.messages):
                assert [type(o.message) for o in output.messages] == [Error]
                assert output.events == []
                assert match.snapshot() == before, "an invalid request changes nothing"
            yield match, event, output


@pytest.mark.parametrize("seed", SEEDS)
def test_seen_unseen_pairing_holds_over_long_random_games(seed: int) -> None:
    """Every seen is matched by one unseen, no entity is seen twice, and sightings stay true."""
    kills = 0
    watchers: dict[AgentId, Watcher] = {}
    for match, event, output in play(seed):
        if event is None:
            watchers = {agent: Watcher() for agent in AGENTS}
        receive(watchers, output)
        kills += sum(isinstance(fact, Kill) for fact in output.events)
        if match.is_over:
            assert all(w.over for w in watchers.values())
            continue
        for agent in AGENTS:
            assert watchers[agent].sightings == truth(match, agent)
            if watchers[agent].location is not None:
                assert watchers[agent].location == match.location(agent)
    assert kills > 0, "the crowded dungeon makes agents fight"


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_each_output_follows_the_spec_message_order(seed: int) -> None:
    """moved of the actor, moved of the killed, enemy updates, game_over: never another order."""
    rank = {"Sat": 0, "Error": 0, "Moved": 1, "Enemy": 2, "GameOver": 3}
    kills = 0
    for _, event, output in play(seed):
        if event is None:
            continue
        ranks = [rank[type(o.message).__name__] for o in output.messages]
        assert ranks == sorted(ranks)
        moved = [o for o in output.messages if isinstance(o.message, Moved)]
        if moved:
            assert isinstance(event, Request)
            assert moved[0].to == event.agent, "the acting agent's moved comes first"
            assert all(o.message.reason == "attacked" for o in moved[1:])
            kills += len(moved) - 1
        if isinstance(event, Request) and isinstance(event.message, Move) and not moved:
            assert [type(o.message) for o in output.messages] in ([Sat], [Error])
    assert kills > 0, "the crowded dungeon makes agents fight"
