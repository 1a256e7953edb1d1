"""The rules engine, one test per rule of spec dungeon.md sections 2 and 3.

Scenes are set up through the public API only: agents walk along shortest paths, disarming every
trap (the "satisfiable" trap policy guarantees a full solution exists, and a crossing with no
active trap always succeeds), so each scene is deterministic whatever the dice.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pytest
from pysat.solvers import Solver

from dungeon.config import RulesConfig
from dungeon.engine import AGENTS, AgentId, Disconnect, Match, Output, Request, TimeUp
from dungeon.events import Crossing, Kill, MatchOver, NpcKilled, TrapProblem
from dungeon.generation import generate
from dungeon.traps import active_traps, draw_for_policy
from protocol.messages import Dungeon, Enemy, Error, GameOver, Move, Moved, Sat, Solution

#: A small dense dungeon: short paths, quick scenes; every problem can be fully disarmed.
SMALL = RulesConfig(nodes=200, radius=0.13, trap_policy="satisfiable")
HEIR0, HENCH0, OTHER0 = AgentId(0, 0), AgentId(0, 1), AgentId(0, 2)
HEIR1, HENCH1, OTHER1 = AgentId(1, 0), AgentId(1, 1), AgentId(1, 2)


def new_match(seed: int = 3, config: RulesConfig = SMALL) -> Match:
    match = Match(seed, config)
    match.begin()
    return match


def disarm(sat: Sat) -> list[bool]:
    """An assignment leaving no trap active (the problem must be satisfiable)."""
    with Solver(name="minisat22", bootstrap_with=[list(trap) for trap in sat.traps]) as solver:
        assert solver.solve(), "the satisfiable policy hands out satisfiable problems"
        model = solver.get_model()
    value = {abs(literal): literal > 0 for literal in model}
    return [value.get(switch, False) for switch in range(1, sat.switches + 1)]


def arm(sat: Sat) -> list[bool]:
    """An assignment leaving the first trap active (each of its literals false)."""
    values = [False] * sat.switches
    for literal in sat.traps[0]:
        values[abs(literal) - 1] = literal < 0
    return values


def request(match: Match, agent: AgentId, message: Move | Solution) -> Output:
    return match.apply(Request(agent, message))


def cross(match: Match, agent: AgentId, to: int, *, safely: bool = True) -> Output:
    """Move ``agent`` to ``to`` and answer the problem (disarmed, or with a trap left on)."""
    committed = request(match, agent, Move(to=to))
    (sat,) = messages_to(committed, agent)
    assert isinstance(sat, Sat), sat
    return request(match, agent, Solution(assignment=disarm(sat) if safely else arm(sat)))


def path(match: Match, agent: AgentId, target: int, avoid: Iterable[int] = ()) -> list[int]:
    """The nodes of a shortest legal path from the agent to ``target`` (target included)."""
    dungeon = match.dungeon
    enemy = 1 - agent.team
    blocked = frozenset({dungeon.start[enemy], dungeon.shrine[enemy], *avoid})
    distance = dungeon.hops(target, avoid=blocked)
    node = match.location(agent)
    assert distance[node] is not None, "the scene needs a path"
    steps = []
    while node != target:
        node = min(
            (v for v in dungeon.adjacency[node] if distance[v] is not None),
            key=lambda v: distance[v],  # type: ignore[arg-type,return-value]
        )
        steps.append(node)
    return steps


def walk(match: Match, agent: AgentId, target: int, avoid: Iterable[int] = ()) -> None:
    for node in path(match, agent, target, avoid):
        out = cross(match, agent, node)
        assert match.location(agent) == node, out


def messages_to(output: Output, agent: AgentId) -> list[object]:
    return [outbound.message for outbound in output.messages if outbound.to == agent]


def quiet_node(match: Match, near: int) -> int:
    """A node next to ``near`` that is no start, no shrine and holds no NPC or agent."""
    dungeon = match.dungeon
    taken = {*dungeon.start, *dungeon.shrine, *match.npcs}
    taken |= {*match.locations(0), *match.locations(1)}
    return next(v for v in dungeon.adjacency[near] if v not in taken)


# --- section 2: agents and moves -------------------------------------------------------------


def test_every_agent_starts_on_its_team_start() -> None:
    """All six agents of each team begin on that team's start node."""
    match = new_match()
    for agent in AGENTS:
        assert match.location(agent) == match.dungeon.start[agent.team]
        assert match.committed(agent) is None


def test_dungeon_goes_to_all_twelve_before_anything_else() -> None:
    """begin() sends one `dungeon` to each of the twelve agents before any other message."""
    match = Match(3, SMALL)
    out = match.begin()
    first = out.messages[:12]
    assert [outbound.to for outbound in first] == list(AGENTS)
    for outbound in first:
        message = outbound.message
        assert isinstance(message, Dungeon)
        assert (message.team, message.agent) == outbound.to
        assert message.start == match.dungeon.start
        assert message.shrine == match.dungeon.shrine
        assert len(message.nodes) == SMALL.nodes
        assert len(message.edges) == len(match.dungeon.edges)
    assert not any(isinstance(o.message, Dungeon) for o in out.messages[12:])


def test_first_sightings_are_the_enemy_heir_and_npcs_in_view() -> None:
    """Right after `dungeon`, each agent sees the enemy heir at its start and the NPCs in view."""
    match = Match(3, SMALL)
    out = match.begin()
    dungeon = match.dungeon
    for agent in AGENTS:
        view = {match.location(agent), *dungeon.adjacency[match.location(agent)]}
        expected = {(dungeon.start[1 - agent.team], 0, True)}
        expected |= {(node, -1, True) for node in view & dungeon.npcs}
        got = [(m.location, m.agent, m.seen) for m in messages_to(out, agent)[1:]]
        assert all(isinstance(m, Enemy) for m in messages_to(out, agent)[1:])
        assert sorted(got) == sorted(expected)


def test_a_valid_move_commits_and_is_answered_with_a_trap_problem() -> None:
    """A move to an adjacent node commits the agent and brings a `sat` of 85 3-switch traps."""
    match = new_match(config=RulesConfig(nodes=200, radius=0.13))
    to = match.dungeon.adjacency[match.location(HENCH0)][0]
    out = request(match, HENCH0, Move(to=to))
    (sat,) = messages_to(out, HENCH0)
    assert len(out.messages) == 1
    assert isinstance(sat, Sat)
    assert (sat.to, sat.switches, len(sat.traps)) == (to, 20, 85)
    for trap in sat.traps:
        assert len({abs(literal) for literal in trap}) == 3
        assert all(1 <= abs(literal) <= 20 for literal in trap)
    assert match.committed(HENCH0) == to
    assert match.location(HENCH0) == match.dungeon.start[0]
    assert isinstance(out.events[0], TrapProblem)
    assert out.events[0].traps == sat.traps


@pytest.mark.parametrize(
    ("name", "target"),
    [
        (
            "not adjacent",
            lambda m, here: next(v for v in range(200) if v not in m.dungeon.views[here]),
        ),
        ("its own node", lambda m, here: here),
        ("no such node", lambda m, here: 200),
        ("far beyond the last node", lambda m, here: 10**9),
    ],
)
def test_move_to_a_non_adjacent_node_is_an_error(name: str, target: object) -> None:
    """A move to a node that is not a neighbour of the agent's node is answered with an error."""
    match = new_match()
    here = match.location(HENCH0)
    to = target(match, here)  # type: ignore[operator]
    out = request(match, HENCH0, Move(to=to))
    assert [type(m) for m in messages_to(out, HENCH0)] == [Error], name
    assert match.committed(HENCH0) is None


def test_move_while_committed_is_an_error() -> None:
    """An agent committed to a move may not start another until it answers its problem."""
    match = new_match()
    first, second = match.dungeon.adjacency[match.location(HENCH0)][:2]
    request(match, HENCH0, Move(to=first))
    out = request(match, HENCH0, Move(to=second))
    (error,) = messages_to(out, HENCH0)
    assert isinstance(error, Error)
    assert str(first) in error.message
    assert match.committed(HENCH0) == first


@pytest.mark.parametrize("team", [0, 1])
@pytest.mark.parametrize("kind", ["start", "shrine"])
def test_move_to_the_other_teams_start_or_shrine_is_an_error(kind: str, team: int) -> None:
    """No agent may step onto the other team's start or shrine, even from next door."""
    match = new_match()
    agent = AgentId(team, 1)
    forbidden = getattr(match.dungeon, kind)[1 - team]
    next_door = min(
        match.dungeon.adjacency[forbidden],
        key=lambda v: len(path(match, agent, v)) if v not in match.dungeon.shrine else 10**6,
    )
    walk(match, agent, next_door)
    out = request(match, agent, Move(to=forbidden))
    (error,) = messages_to(out, agent)
    assert isinstance(error, Error)
    assert "other team" in error.message
    assert match.committed(agent) is None


def test_solution_without_a_move_is_an_error() -> None:
    """A solution from an agent that is not committed to a move is answered with an error."""
    match = new_match()
    out = request(match, HENCH0, Solution(assignment=[True] * 20))
    assert [type(m) for m in messages_to(out, HENCH0)] == [Error]


def test_solution_with_the_wrong_number_of_values_is_an_error_and_keeps_the_commitment() -> None:
    """A solution needs exactly one value per switch; a wrong one leaves the move pending."""
    match = new_match()
    to = match.dungeon.adjacency[match.location(HENCH0)][0]
    request(match, HENCH0, Move(to=to))
    for size in (0, 19, 21):
        out = request(match, HENCH0, Solution(assignment=[True] * size))
        (error,) = messages_to(out, HENCH0)
        assert isinstance(error, Error)
        assert "20 switches" in error.message
        assert match.committed(HENCH0) == to


def test_invalid_requests_change_nothing_and_draw_nothing() -> None:
    """An invalid request changes no state and consumes no random draw."""
    match = new_match()
    to = match.dungeon.adjacency[match.location(HENCH0)][0]
    request(match, HENCH0, Move(to=to))
    before = (match.generator_state, match.locations(0), match.locations(1), match.npcs)
    bad = [
        (HENCH0, Move(to=to)),
        (HENCH0, Solution(assignment=[True])),
        (HENCH1, Solution(assignment=[True] * 20)),
        (HENCH1, Move(to=match.location(HENCH1))),
    ]
    for agent, message in bad:
        out = request(match, agent, message)
        assert [type(m) for m in messages_to(out, agent)] == [Error]
        assert out.events == []
    after = (match.generator_state, match.locations(0), match.locations(1), match.npcs)
    assert after == before
    assert match.committed(HENCH0) == to
    assert match.committed(HENCH1) is None


def test_every_crossing_gets_a_fresh_problem() -> None:
    """The same corridor crossed twice comes with two different trap problems."""
    match = new_match()
    here = match.location(HENCH0)
    to = quiet_node(match, here)
    first = request(match, HENCH0, Move(to=to))
    request(match, HENCH0, Solution(assignment=[True] * 20))
    if match.location(HENCH0) != here:
        walk(match, HENCH0, here)
    second = request(match, HENCH0, Move(to=to))
    assert messages_to(first, HENCH0) != messages_to(second, HENCH0)


def test_the_generator_draws_the_dungeon_then_problems_then_dice_in_input_order() -> None:
    """Problems and dice come from the match generator right after the dungeon, in input order."""
    match = new_match(seed=11)
    mirror = np.random.Generator(np.random.PCG64(11))
    generate(mirror, SMALL)
    to = quiet_node(match, match.location(HENCH0))
    moved = request(match, HENCH0, Move(to=to))
    expected_problem, _ = draw_for_policy(mirror, SMALL)
    (sat,) = messages_to(moved, HENCH0)
    assert isinstance(sat, Sat)
    assert sat.traps == expected_problem.traps
    solved = request(match, HENCH0, Solution(assignment=disarm(sat)))
    assert isinstance(solved.events[0], Crossing)
    assert solved.events[0].roll == mirror.random()


def test_the_survival_die_is_drawn_even_when_no_trap_is_active() -> None:
    """A crossing with k = 0 still consumes exactly one draw for its die."""
    match = new_match()
    to = quiet_node(match, match.location(HENCH0))
    moved = request(match, HENCH0, Move(to=to))
    (sat,) = messages_to(moved, HENCH0)
    assert isinstance(sat, Sat)
    mirror = np.random.Generator(np.random.PCG64(0))
    mirror.bit_generator.state = match.generator_state
    expected_roll = mirror.random()
    out = request(match, HENCH0, Solution(assignment=disarm(sat)))
    assert isinstance(out.events[0], Crossing)
    assert out.events[0].active == 0
    assert out.events[0].roll == expected_roll
    assert match.generator_state == mirror.bit_generator.state


def test_a_crossing_with_no_active_trap_always_succeeds() -> None:
    """Survival is (7/8)^k, so with k = 0 the agent reaches its target and gets `crossed`."""
    match = new_match()
    to = quiet_node(match, match.location(HENCH0))
    out = cross(match, HENCH0, to)
    assert messages_to(out, HENCH0)[0] == Moved(True, to, [], "crossed")
    assert match.location(HENCH0) == to
    assert match.committed(HENCH0) is None


def count_active(traps: Iterable[Iterable[int]], assignment: list[bool]) -> int:
    """k in the spec's words: the traps none of whose DIMACS literals the assignment makes true."""
    return sum(
        not any(assignment[abs(literal) - 1] == (literal > 0) for literal in trap) for trap in traps
    )


def test_the_survival_chance_is_seven_eighths_to_the_power_k() -> None:
    """A crossing survives exactly when the generator's next draw is below (7/8)^k."""
    match = new_match(config=RulesConfig(nodes=200, radius=0.13))
    rng = np.random.default_rng(5)
    start = match.dungeon.start[0]
    outcomes = set()
    for _ in range(150):
        agent = HENCH0
        to = match.dungeon.adjacency[match.location(agent)][0]
        if to in (*match.dungeon.start, *match.dungeon.shrine):
            walk(match, agent, quiet_node(match, match.location(agent)))
            continue
        (sat,) = messages_to(request(match, agent, Move(to=to)), agent)
        assert isinstance(sat, Sat)
        assignment = (rng.random(20) < 0.5).tolist()
        die = np.random.Generator(np.random.PCG64(0))
        die.bit_generator.state = match.generator_state
        survives = die.random() < (7 / 8) ** count_active(sat.traps, assignment)
        out = request(match, agent, Solution(assignment=assignment))
        moved = messages_to(out, agent)[0]
        assert isinstance(moved, Moved)
        expected = (True, to, "crossed") if survives else (False, start, "trap")
        assert (moved.success, moved.location, moved.reason) == expected
        assert match.location(agent) == expected[1]
        outcomes.add(survives)
    assert outcomes == {True, False}, "random assignments both survive and die"


def test_a_trap_death_sends_the_agent_back_to_its_start() -> None:
    """An agent killed by a trap is moved to its team's start with `trap` and no success."""
    match = new_match(config=SMALL.replace(survival=0.0))
    to = quiet_node(match, match.location(HENCH0))
    walk(match, HENCH0, to)  # with k = 0, 0.0**0 == 1: disarmed crossings still succeed
    onward = quiet_node(match, to)
    out = cross(match, HENCH0, onward, safely=False)
    start = match.dungeon.start[0]
    assert messages_to(out, HENCH0)[0] == Moved(False, start, [], "trap")
    assert match.location(HENCH0) == start
    assert isinstance(out.events[0], Crossing)
    assert out.events[0].survived is False


def test_satisfiable_policy_hands_out_only_satisfiable_problems() -> None:
    """Under the satisfiable policy every problem has an assignment leaving no trap active."""
    match = new_match(config=SMALL.replace(traps=110))  # ratio 5.5: most draws unsatisfiable
    here = match.location(HENCH0)
    for to in match.dungeon.adjacency[here][:5]:
        if to in match.dungeon.shrine or to in match.dungeon.start:
            continue
        out = request(match, HENCH0, Move(to=to))
        (sat,) = messages_to(out, HENCH0)
        assert isinstance(sat, Sat)
        assert active_traps(np.array(sat.traps), disarm(sat)) == 0
        request(match, HENCH0, Solution(assignment=arm(sat)))
        if match.location(HENCH0) != here:
            walk(match, HENCH0, here)


# --- combat ------------------------------------------------------------------------------------


def kill_scene(victims: Iterable[AgentId] = (HENCH1, OTHER1)) -> tuple[Match, int]:
    """The enemy ``victims`` on node x, our agent 1 next door; returns (match, x)."""
    match = new_match()
    start1, shrine1 = match.dungeon.start[1], match.dungeon.shrine[1]
    middle = path(match, HENCH1, match.dungeon.start[0])
    x = next(
        v
        for v in middle[len(middle) // 2 :]
        if v not in match.npcs and v not in (start1, shrine1, *match.dungeon.shrine)
    )
    for victim in victims:
        walk(match, victim, x, avoid=[shrine1])  # an enemy heir on its shrine would win
    door = next(
        v
        for v in match.dungeon.adjacency[x]
        if v not in (start1, shrine1) and v not in match.npcs and v != match.location(HEIR1)
    )
    walk(match, HENCH0, door, avoid=[x])
    return match, x


def test_arrival_kills_every_enemy_agent_on_the_node_and_sends_it_home() -> None:
    """Enemies on the node an agent arrives at are sent to their start with `attacked`."""
    match, x = kill_scene()
    out = cross(match, HENCH0, x)
    start1 = match.dungeon.start[1]
    assert messages_to(out, HENCH0)[0] == Moved(True, x, [1, 2], "crossed")
    for victim in (HENCH1, OTHER1):
        assert messages_to(out, victim)[0] == Moved(False, start1, [], "attacked")
        assert match.location(victim) == start1
    kills = [e for e in out.events if isinstance(e, Kill)]
    assert [e.victim for e in kills] == [[1, 1], [1, 2]]


def test_the_arriving_agent_is_never_harmed() -> None:
    """However many enemies stand on the node, the arriving agent stays there, unattacked."""
    match, x = kill_scene()
    out = cross(match, HENCH0, x)
    assert match.location(HENCH0) == x
    moved = [m for m in messages_to(out, HENCH0) if isinstance(m, Moved)]
    assert moved == [Moved(True, x, [1, 2], "crossed")]


def test_killed_enemies_leave_the_view_of_their_killer() -> None:
    """An enemy killed in view is reported unseen where it died."""
    match, x = kill_scene()
    told = match.snapshot()["sightings"][AGENTS.index(HENCH0)]
    assert {(x, 1), (x, 2)} <= set(map(tuple, told)), "from next door, our agent saw them"
    out = cross(match, HENCH0, x)
    news = [m for m in messages_to(out, HENCH0) if isinstance(m, Enemy) and m.agent > 0]
    assert news == [Enemy(x, 1, False), Enemy(x, 2, False)]


def test_a_killed_enemy_heir_is_told_to_the_whole_team_at_its_start() -> None:
    """The enemy heir sent home by combat: every agent of the team gets unseen x, seen start."""
    match, x = kill_scene(victims=[HEIR1])
    out = cross(match, HENCH0, x)
    start1 = match.dungeon.start[1]
    assert messages_to(out, HEIR1)[0] == Moved(False, start1, [], "attacked")
    for watcher in AGENTS[:6]:
        news = [m for m in messages_to(out, watcher) if isinstance(m, Enemy) and m.agent == 0]
        assert news == [Enemy(x, 0, False), Enemy(start1, 0, True)]


def test_killed_agent_loses_its_commitment() -> None:
    """An agent killed while committed to a move is no longer committed; its solution errs."""
    match, x = kill_scene()
    onward = next(v for v in match.dungeon.adjacency[x] if v not in match.dungeon.shrine)
    onward = onward if onward != match.dungeon.start[0] else match.location(HENCH0)
    (sat,) = messages_to(request(match, HENCH1, Move(to=onward)), HENCH1)
    assert isinstance(sat, Sat)
    assert match.committed(HENCH1) == onward
    cross(match, HENCH0, x)
    assert match.committed(HENCH1) is None
    out = request(match, HENCH1, Solution(assignment=[True] * 20))
    assert [type(m) for m in messages_to(out, HENCH1)] == [Error]


def test_arrival_kills_the_npc_and_removes_it_for_good() -> None:
    """An NPC on the arrival node dies (-1 in `killed`) and is gone for every later arrival."""
    match = new_match()
    start1, shrine1 = match.dungeon.start[1], match.dungeon.shrine[1]
    target = min(
        (v for v in match.npcs if v not in (start1, shrine1)),
        key=lambda v: len(path(match, HENCH0, v)),
    )
    route = path(match, HENCH0, target)
    if len(route) > 1:
        walk(match, HENCH0, route[-2])
    out = cross(match, HENCH0, target)
    assert messages_to(out, HENCH0)[0] == Moved(True, target, [-1], "crossed")
    assert target not in match.npcs
    assert NpcKilled(agent=[0, 1], location=target) in out.events
    assert Enemy(target, -1, False) in messages_to(out, HENCH0), "the dead NPC leaves the view"
    back = quiet_node(match, target) if len(route) == 1 else route[-2]
    walk(match, HENCH0, back)
    again = cross(match, HENCH0, target)
    assert messages_to(again, HENCH0)[0] == Moved(True, target, [], "crossed")


def test_team_mates_share_nodes_freely() -> None:
    """An agent arriving where its team mates stand harms none of them."""
    match = new_match()
    to = quiet_node(match, match.location(HENCH0))
    walk(match, HENCH0, to)
    out = cross(match, OTHER0, to)
    assert messages_to(out, OTHER0)[0] == Moved(True, to, [], "crossed")
    assert match.location(HENCH0) == match.location(OTHER0) == to


# --- winning and the other endings ---------------------------------------------------------------


@pytest.mark.parametrize("team", [0, 1])
def test_the_heir_at_its_own_shrine_wins(team: int) -> None:
    """The match ends the moment a team's heir arrives at that team's shrine."""
    match = new_match()
    heir, enemy = AgentId(team, 0), AgentId(1 - team, 1)
    shrine = match.dungeon.shrine[team]
    route = path(match, heir, shrine)
    walk(match, heir, route[-2])
    assert not match.is_over
    out = cross(match, heir, shrine)
    assert match.is_over
    assert match.winner == team
    assert [o.message for o in out.messages[-12:]] == [GameOver(winner=team)] * 12
    assert [o.to for o in out.messages[-12:]] == list(AGENTS)
    assert out.events[-1] == MatchOver(winner=team, reason="shrine")
    late = request(match, enemy, Move(to=match.dungeon.adjacency[match.location(enemy)][0]))
    assert [type(m) for m in messages_to(late, enemy)] == [Error]


def test_a_henchman_at_the_shrine_does_not_win() -> None:
    """Only the heir wins by reaching the shrine."""
    match = new_match()
    walk(match, HENCH0, match.dungeon.shrine[0])
    assert not match.is_over


def test_the_heir_killed_by_a_trap_on_the_way_to_its_shrine_does_not_win() -> None:
    """Only an arrival wins: an heir that dies crossing to its shrine goes home instead."""
    match = new_match(config=SMALL.replace(survival=0.0))
    shrine = match.dungeon.shrine[0]
    route = path(match, HEIR0, shrine)
    walk(match, HEIR0, route[-2])  # with k = 0, 0.0**0 == 1: disarmed crossings still succeed
    out = cross(match, HEIR0, shrine, safely=False)
    assert messages_to(out, HEIR0)[0] == Moved(False, match.dungeon.start[0], [], "trap")
    assert not match.is_over
    assert not any(isinstance(o.message, GameOver) for o in out.messages)


@pytest.mark.parametrize("team", [0, 1])
def test_a_team_whose_every_socket_closed_forfeits(team: int) -> None:
    """Disconnect of a team ends the match with the other team as winner."""
    match = new_match()
    out = match.apply(Disconnect(AgentId(team, 4)))
    assert match.is_over
    assert match.winner == 1 - team
    assert [o.message for o in out.messages] == [GameOver(winner=1 - team)] * 12
    assert out.events == [MatchOver(winner=1 - team, reason="forfeit")]
    assert match.apply(Disconnect(AgentId(1 - team, 0))).messages == [], "only one ending"


def test_time_up_is_a_draw() -> None:
    """The draw limit ends the match with no winner."""
    match = new_match()
    out = match.apply(TimeUp())
    assert (match.is_over, match.winner, match.end_reason) == (True, None, "time")
    assert [o.message for o in out.messages] == [GameOver(winner=None)] * 12


# --- section 3: what agents see, and message order -----------------------------------------------


def kinds(out: Output) -> list[str]:
    return [type(o.message).__name__ for o in out.messages]


def test_messages_of_one_request_come_in_spec_order() -> None:
    """Acting agent's `moved`, then every killed agent's `moved`, then `enemy`, then `game_over`."""
    match, x = kill_scene()
    out = cross(match, HENCH0, x)
    order = kinds(out)
    assert order[:3] == ["Moved", "Moved", "Moved"]
    assert out.messages[0].to == HENCH0
    assert set(order[3:]) == {"Enemy"}

    match = new_match()
    route = path(match, HEIR0, match.dungeon.shrine[0])
    walk(match, HEIR0, route[-2])
    out = cross(match, HEIR0, route[-1])
    order = kinds(out)
    assert order[0] == "Moved"
    assert order[-12:] == ["GameOver"] * 12
    assert set(order[1:-12]) == {"Enemy"}


def test_the_enemy_heir_changing_node_is_told_to_the_whole_team_unseen_then_seen() -> None:
    """When the heir moves, each enemy agent gets `seen: false` at the old node, then `true`."""
    match = new_match()
    old = match.location(HEIR1)
    to = quiet_node(match, old)
    out = cross(match, HEIR1, to)
    for watcher in AGENTS[:6]:
        heir_news = [m for m in messages_to(out, watcher) if isinstance(m, Enemy) and m.agent == 0]
        assert heir_news == [Enemy(old, 0, False), Enemy(to, 0, True)]


def test_the_enemy_heir_is_never_reported_twice() -> None:
    """An enemy heir walking into agents' view is still reported once per move, never twice."""
    match = new_match()
    start0 = match.dungeon.start[0]
    meeting = quiet_node(match, start0)
    for node in path(match, HEIR1, meeting, avoid=[start0]):
        old = match.location(HEIR1)
        out = cross(match, HEIR1, node)
        for watcher in AGENTS[:6]:
            news = [m for m in messages_to(out, watcher) if isinstance(m, Enemy) and m.agent == 0]
            assert news == [Enemy(old, 0, False), Enemy(node, 0, True)]
    assert match.location(HEIR1) in match.dungeon.views[start0]


def test_an_agent_sees_enemies_enter_and_leave_its_view() -> None:
    """A henchman walking next to a watcher is reported seen, and unseen when it walks away."""
    match = new_match()
    watcher = HENCH0
    lookout = quiet_node(match, match.location(watcher))
    walk(match, watcher, lookout)
    view = match.dungeon.views[lookout]
    route = path(match, HENCH1, lookout, avoid=[match.dungeon.start[0], lookout])
    entered = None
    for node in route[:-1]:
        out = cross(match, HENCH1, node)
        news = [m for m in messages_to(out, watcher) if isinstance(m, Enemy) and m.agent == 1]
        if node in view:
            entered = node
            assert Enemy(node, 1, True) in news
            break
        assert news == []
    assert entered is not None
    away = next(
        v for v in match.dungeon.adjacency[entered] if v not in view and v not in match.npcs
    )
    out = cross(match, HENCH1, away)
    news = [m for m in messages_to(out, watcher) if isinstance(m, Enemy) and m.agent == 1]
    assert news == [Enemy(entered, 1, False)]


def test_an_agent_that_walks_away_stops_seeing() -> None:
    """An NPC comes into view when the watcher arrives next to it and leaves it when it goes."""
    match = new_match()
    start0, start1, shrine1 = (
        match.dungeon.start[0],
        match.dungeon.start[1],
        match.dungeon.shrine[1],
    )
    npc = min(
        (v for v in match.npcs if v not in (start1, shrine1) and len(path(match, HENCH0, v)) >= 2),
        key=lambda v: len(path(match, HENCH0, v)),
    )
    route = [start0, *path(match, HENCH0, npc)]
    walk(match, HENCH0, route[-3])  # two corridors from the NPC: out of view
    out = cross(match, HENCH0, route[-2])
    assert Enemy(npc, -1, True) in messages_to(out, HENCH0)
    out = cross(match, HENCH0, route[-3])
    npc_news = [m for m in messages_to(out, HENCH0) if isinstance(m, Enemy) and m.agent == -1]
    assert Enemy(npc, -1, False) in npc_news
    assert not any(m.seen and m.location == npc for m in npc_news)


def test_same_seed_and_inputs_give_the_same_match() -> None:
    """Two engines fed the same inputs produce the same messages and events."""
    first, second = new_match(seed=21), new_match(seed=21)
    for match in (first, second):
        walk(match, HEIR0, quiet_node(match, match.location(HEIR0)))
    to = quiet_node(first, first.location(HENCH1))
    assert cross(first, HENCH1, to, safely=False) == cross(second, HENCH1, to, safely=False)
    assert first.generator_state == second.generator_state


def test_a_clone_plays_on_alone_and_equal_snapshots_give_equal_futures() -> None:
    """clone() copies the whole state: playing the clone leaves the original unchanged."""
    match = new_match(seed=5)
    walk(match, HENCH0, quiet_node(match, match.location(HENCH0)))
    twin = match.clone()
    assert twin.snapshot() == match.snapshot()
    before = match.snapshot()
    to = quiet_node(twin, twin.location(HENCH1))
    played = cross(twin, HENCH1, to, safely=False)
    assert match.snapshot() == before
    assert cross(match, HENCH1, to, safely=False) == played
    assert match.snapshot() == twin.snapshot()
