"""The headless dungeon (sim/dungeon.py): reproducible matches, honest figures, logs that
replay, and the State's decision nodes. Small rules (300 nodes) keep it fast."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from client.strategies import base as strategies
from dungeon.engine import AgentId
from protocol.messages import Error, Sat, ServerMessage
from replay.matchlog import read_log
from sim.backends import DaskBackend, LocalBackend
from sim.dungeon import DungeonGame
from sim.dungeon_state import STAY
from sim.dungeon_steps import strategy_seed
from sim.runner import RunSpec, run

SMALL: dict[str, Any] = {"nodes": 300, "radius": 0.1}


def small_game(**changes: Any) -> DungeonGame:
    return DungeonGame(**{**SMALL, **changes})


def test_same_seed_and_seats_give_the_same_match() -> None:
    """A headless match is a function of (seed, seats): results and figures repeat exactly."""
    game = small_game()
    first = game.play(4, ["reference", "rusher"])
    assert first == game.play(4, ["reference", "rusher"])
    assert first.winner in (0, 1, None)
    assert first.returns in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])


def test_strategy_seeds_differ_per_team_and_per_match() -> None:
    """Each team's strategy gets its own seed, spawned from the match seed."""
    seeds = {strategy_seed(s, t) for s in range(5) for t in (0, 1)}
    assert len(seeds) == 10


def test_the_draw_limit_ends_a_match_in_logical_steps() -> None:
    """Two random teams that never arrive stop at draw_steps steps, as a draw."""
    result = small_game(draw_steps=3, optimum=False).play(1, ["random", "random"])
    assert result.length == 3
    assert result.returns == [0.0, 0.0]
    assert result.winner is None


def test_figures_agree_with_the_match_log_and_the_log_replays(tmp_path: Path) -> None:
    """Crossings, trap deaths, kills and optima in MatchResult.stats are those of the log, and
    `replay verify` re-runs the log exactly."""
    from replay.rerun import verify_log

    path = tmp_path / "match.jsonl"
    result = small_game().play_logged(2, ["rusher", "random"], path)
    log = read_log(path)
    assert log.bad is None
    assert log.close is not None
    crossings = [line.data for line in log.outputs if line.event == "crossing"]
    for team in (0, 1):
        mine = [c for c in crossings if c["agent"][0] == team]
        assert result.stats[team]["crossings"] == len(mine)
        assert result.stats[team]["trap_deaths"] == sum(1 for c in mine if not c["survived"])
        kills = [line for line in log.outputs if line.event == "kill"]
        assert result.stats[team]["kills"] == sum(1 for k in kills if k.data["agent"][0] == team)
    optima = {line.data["crossing"]: line.data["value"] for line in log.optima}
    assert sorted(optima) == sorted(c["crossing"] for c in crossings)
    assert all(optima[c["crossing"]] <= c["active"] for c in crossings)
    verdict = verify_log(log)
    assert verdict.difference is None


class WrongWay:
    """Moves each agent to a node two hops away (refused by the engine), then waits."""

    def __init__(self, team: int, seed: int) -> None:
        self.team = team
        self.messages: list[tuple[int, ServerMessage]] = []
        self.asked: Counter[int] = Counter()

    def observe(self, agent: int, message: ServerMessage) -> None:
        self.messages.append((agent, message))

    def choose_move(self, agent: int) -> int | None:
        self.asked[agent] += 1
        return 10**6 if self.asked[agent] == 1 else None

    def solve(self, agent: int, problem: Sat) -> list[bool]:
        raise AssertionError("no move of WrongWay is ever accepted")


def test_a_refused_move_is_answered_with_the_engines_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A strategy asking for an impossible move gets the `error` a network client would get."""
    made: list[WrongWay] = []

    def factory(team: int, seed: int) -> WrongWay:
        made.append(WrongWay(team, seed))
        return made[-1]

    monkeypatch.setitem(strategies.STRATEGIES, "wrongway", factory)
    small_game(draw_steps=2, optimum=False).play(0, ["wrongway", "random"])
    errors = [(agent, m) for agent, m in made[0].messages if isinstance(m, Error)]
    assert sorted(agent for agent, _ in errors) == list(range(6))
    assert all("no node 1000000" in m.message for _, m in errors)


def test_a_raising_dungeon_strategy_is_recorded_by_the_runner(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A team strategy that raises fails its matches, recorded with seed and error."""

    def factory(team: int, seed: int) -> Any:
        raise RuntimeError("this strategy cannot even start")

    monkeypatch.setitem(strategies.STRATEGIES, "broken", factory)
    spec = RunSpec("dungeon", ("broken", "random"), matches=2, options={**SMALL, "draw_steps": 2})
    report = run(spec, LocalBackend(1)).report
    assert len(report["failed"]) == 2
    assert "RuntimeError: this strategy cannot even start" in report["failed"][0]["error"]
    assert report["pairings"][0]["games"] == 0


def test_dungeon_runs_are_identical_on_one_or_two_workers_and_dask(dask_scheduler: str) -> None:
    """The dungeon report is the same bytes (timings aside) whatever runs the matches."""
    spec = RunSpec("dungeon", ("rusher", "random"), matches=4, seed=9, options=SMALL)

    def body(report: dict[str, Any]) -> str:
        return json.dumps({k: v for k, v in report.items() if k != "timing"})

    one = body(run(spec, LocalBackend(1)).report)
    assert one == body(run(spec, LocalBackend(2)).report)
    assert one == body(run(spec, DaskBackend(dask_scheduler)).report)


def test_state_moves_never_enter_the_enemy_start_or_shrine() -> None:
    """A move decision offers STAY and the allowed neighbours only; a solve offers every
    assignment as an integer."""
    state = small_game().new_initial_state(3)
    dungeon = state.match.dungeon
    agent = state.agent
    actions = list(state.legal_actions())
    assert actions[0] == STAY
    enemy = 1 - agent.team
    here = state.match.location(agent)
    allowed = set(dungeon.adjacency[here]) - {dungeon.start[enemy], dungeon.shrine[enemy]}
    assert set(actions[1:]) == allowed
    state.apply_action(actions[1])
    assert state.legal_actions() == range(2**20)
    assert state.current_player() == agent.team


@pytest.mark.parametrize("action", [10**6, "3", True])
def test_state_refuses_an_illegal_move_and_changes_nothing(action: Any) -> None:
    """An illegal action raises ValueError and leaves the position as it was."""
    state = small_game().new_initial_state(3)
    before = state.serialize()
    with pytest.raises(ValueError, match=r"node|int"):
        state.apply_action(action)
    assert state.serialize() == before


def test_state_solve_applies_the_assignment_bits() -> None:
    """A solve action submits the assignment and ends the agent's commitment: one crossing."""
    state = small_game().new_initial_state(3)
    agent: AgentId = state.agent
    state.apply_action(list(state.legal_actions())[1])
    sat = state.match.pending(agent)
    assert sat is not None
    state.apply_action(2**20 - 1)
    assert state.match.pending(agent) is None
    assert state.match.crossings == 1


def test_the_figures_optimum_shortcuts_agree_with_the_exact_optimum() -> None:
    """Knowing an achieved k bounds the optimum: the k = 0 and k = 1 shortcuts give the exact
    value (the spec's 20/85 problems, a quarter of them unsatisfiable)."""
    import numpy as np

    from dungeon.traps import draw_problem, optimum
    from sim.dungeon_figures import TeamFigures

    figures = TeamFigures(switches=20, with_optimum=True)
    rng = np.random.Generator(np.random.PCG64(5))
    values = []
    for _ in range(24):
        problem = draw_problem(rng, 20, 85)
        exact = optimum(problem, 20)
        values.append(exact)
        for active in (exact, exact + 1, exact + 2):
            assert figures._optimum(problem.tolist(), active) == exact
    assert 0 in values
    assert any(v > 0 for v in values), "some problems cannot be fully disarmed"


def test_the_state_interface_follows_the_drivers_schedule(tmp_path: Path) -> None:
    """Replaying a headless match's requests through DungeonState (STAY for every agent that
    did not move) reaches the same end: both use one step order."""
    path = tmp_path / "match.jsonl"
    result = small_game(optimum=False).play_logged(6, ["reference", "rusher"], path)
    requests = [line.data for line in read_log(path).inputs if line.data["kind"] == "request"]
    state = small_game(optimum=False).new_initial_state(6)
    position = 0
    while not state.is_terminal():
        agent = state.agent
        nxt = requests[position] if position < len(requests) else None
        if nxt is None or (nxt["team"], nxt["agent"]) != (agent.team, agent.agent):
            state.apply_action(STAY)
            continue
        assert nxt["message"]["type"] == "move"
        state.apply_action(nxt["message"]["to"])
        bits = requests[position + 1]["message"]["assignment"]
        state.apply_action(sum(1 << i for i, bit in enumerate(bits) if bit))
        position += 2
    assert position == len(requests)
    assert state.match.winner == result.winner
    assert list(state.returns()) == result.returns
