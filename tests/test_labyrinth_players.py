"""The training players and the rotator: legal moves only, and each one's defining behaviour."""

from __future__ import annotations

import random
from collections import deque

import pytest

from labyrinth.game import STRATEGIES, LabyrinthGame, LabyrinthState
from labyrinth.generation import generate
from labyrinth.rotator import Rotator
from labyrinth.rules import Labyrinth, LabyrinthConfig, Move, MoveType, ReturnCode

SHORT = LabyrinthConfig(max_turns=300)


def reference_distance(labyrinth: Labyrinth, player: int) -> int:
    """Shortest number of steps from ``player`` to the treasure, by a plain BFS."""
    width, height = labyrinth.width, labyrinth.height
    start, goal = labyrinth.players[player], labyrinth.treasure
    seen = {start: 0}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        for cell in (
            ((x + 1) % width, y),
            ((x - 1) % width, y),
            (x, (y + 1) % height),
            (x, (y - 1) % height),
        ):
            if cell not in seen and not labyrinth.walls[cell[1] * width + cell[0]]:
                seen[cell] = seen[(x, y)] + 1
                queue.append(cell)
    return seen[goal]


def test_the_strategy_names() -> None:
    """The course's training players, the rotator, and "random" as PLAY_RANDOM."""
    assert set(STRATEGIES) == {
        "do_nothing",
        "play_random",
        "play_random_norot",
        "random",
        "astar",
        "rotator",
    }


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_every_player_only_plays_moves_that_do_not_lose(name: str) -> None:
    """Over many games against random opponents, no player ever picks a losing move."""
    rng = random.Random(1)
    opponents = ["play_random", "play_random_norot", "astar"]
    for seed in range(12):
        state = LabyrinthState(generate(seed, SHORT))
        bots = [STRATEGIES[name](), STRATEGIES[opponents[seed % 3]]()]
        seat = seed % 2
        bots = bots if seat == 0 else bots[::-1]
        while not state.is_terminal():
            labyrinth = state.labyrinth
            move = bots[labyrinth.to_move].step(state, rng)
            assert labyrinth.losing_reason(move) is None, (name, seed, move)
            assert labyrinth.play(move) != ReturnCode.MOVE_LOSE


def test_do_nothing_always_stays() -> None:
    """DO_NOTHING's every move is type 8."""
    state = LabyrinthGame().new_initial_state(4)
    bot = STRATEGIES["do_nothing"]()
    for _ in range(10):
        move = bot.step(state, random.Random(0))
        assert move.type == MoveType.DO_NOTHING
        state.apply_action(move)


def test_play_random_norot_never_rotates_and_play_random_does() -> None:
    """With plenty of energy, PLAY_RANDOM rotates now and then; the no-rotation one never."""
    kinds: dict[str, set[int]] = {"play_random": set(), "play_random_norot": set()}
    for name, seen in kinds.items():
        bot = STRATEGIES[name]()
        rng = random.Random(2)
        state = LabyrinthGame().new_initial_state(2)
        state.labyrinth.energies = [1000, 1000]
        for _ in range(40):
            if state.is_terminal():
                break
            move = bot.step(state, rng)
            seen.add(move.type)
            state.apply_action(move)
    assert kinds["play_random_norot"] <= {4, 5, 6, 7, 8}
    assert kinds["play_random"] & {0, 1, 2, 3}


@pytest.mark.parametrize("seed", range(8))
def test_astar_walks_a_shortest_path(seed: int) -> None:
    """Against DO_NOTHING, ASTAR wins in exactly its shortest distance of steps."""
    state = LabyrinthGame().new_initial_state(seed)
    distance = reference_distance(state.labyrinth, 0)
    bots = [STRATEGIES["astar"](), STRATEGIES["do_nothing"]()]
    steps = 0
    while not state.is_terminal():
        mover = state.labyrinth.to_move
        state.apply_action(bots[mover].step(state, random.Random(0)))
        steps += mover == 0
    assert state.labyrinth.winner == 0
    assert steps == distance


def open_position(
    rows: list[str],
    players: list[tuple[int, int]],
    treasure: tuple[int, int],
    energies: list[int],
    to_move: int = 0,
) -> LabyrinthState:
    walls = bytes(1 if char == "#" else 0 for row in rows for char in row)
    labyrinth = Labyrinth(len(rows[0]), len(rows), walls)
    labyrinth.players, labyrinth.treasure = players, treasure
    labyrinth.energies, labyrinth.to_move = energies, to_move
    return LabyrinthState(labyrinth)


def test_astar_steps_off_and_back_onto_a_treasure_it_stands_on() -> None:
    """A player on the treasure needs a step off and one back: ASTAR wins in two."""
    state = open_position(["....."] * 5, [(2, 2), (0, 0)], (2, 2), [0, 0])
    bot = STRATEGIES["astar"]()
    first = bot.step(state, random.Random(0))
    assert first.type in (4, 5, 6, 7)
    state.apply_action(first)
    state.apply_action(Move(MoveType.DO_NOTHING))
    state.apply_action(bot.step(state, random.Random(0)))
    assert state.labyrinth.winner == 0


def test_rotator_takes_a_win_in_one() -> None:
    """Next to the treasure, the rotator steps onto it."""
    state = open_position(["......."] * 5, [(2, 2), (6, 0)], (3, 2), [10, 10])
    assert Rotator().choose(state.labyrinth) == Move(MoveType.MOVE_RIGHT)


def test_rotator_blocks_an_opponent_one_step_from_the_treasure() -> None:
    """When the opponent would win next move, the rotator rotates so that it no longer can."""
    rows = ["#.#.#.#", "#.#.#.#", ".......", "#.#.#.#", "#.#.#.#"]
    state = open_position(rows, [(0, 2), (4, 2)], (3, 2), [5, 0])
    move = Rotator().choose(state.labyrinth)
    assert move.type in (0, 1, 2, 3)
    state.apply_action(move)
    labyrinth = state.labyrinth
    opponent_wins = [
        step
        for step in (4, 5, 6, 7)
        if labyrinth.step_target(1, step) == labyrinth.treasure
        and labyrinth.losing_reason(Move(step)) is None
    ]
    assert opponent_wins == []


def test_rotator_beats_astar_in_most_paired_games() -> None:
    """Over ten seeds with seats swapped, the rotator wins more than 60% against ASTAR."""
    game = LabyrinthGame()
    wins = 0
    for seed in range(10):
        for seats in (["rotator", "astar"], ["astar", "rotator"]):
            result = game.play(seed, seats)
            wins += result.winner is not None and seats[result.winner] == "rotator"
    assert wins > 12
